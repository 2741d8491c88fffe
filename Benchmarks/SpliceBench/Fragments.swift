import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `commands` in `rounds` interleaved rounds after a warm-up (`prepare(i)` and an untimed
/// `sync` before each) and prints their medians under `title`: wall and CPU seconds, peak RSS,
/// and CPU against the first command's and the last's (ffmpeg's). Returns the CPU medians.
func interleavedRows(_ title: String, _ commands: [(String, [String])], rounds: Int, prepare: (Int) -> Void) -> [Double] {
    var runs = Array(repeating: [Measurement](), count: commands.count)
    for round in 0...rounds {
        for (i, command) in commands.enumerated() {
            prepare(i); sync()
            let r = measure(command.1)
            if round > 0 { runs[i].append(r) }
        }
    }
    func mid(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
    let wall = runs.map { mid($0.map(\.seconds)) }, cpu = runs.map { mid($0.map(\.cpuSeconds)) }
    let rss = runs.map { mid($0.map { Double($0.maxRSSKiB) / 1024 }) }
    let last = commands.count - 1
    print("\n\(title), medians of \(rounds) interleaved rounds after a warm-up\n")
    print(pad("command", 22) + pad("wall s", 9) + pad("CPU s", 9) + pad("RSS MB", 9) + pad("× plain CPU", 13) + "× ffmpeg CPU")
    for (i, command) in commands.enumerated() {
        print(pad(command.0, 22) + pad(fmt(wall[i], 3), 9) + pad(fmt(cpu[i], 3), 9) + pad(fmt(rss[i], 1), 9)
              + pad(fmt(cpu[i] / max(cpu[0], 1e-9)), 13) + fmt(cpu[i] / max(cpu[last], 1e-9)))
    }
    return cpu
}

/// Fragmenting big.mp4 (`remux --fragment 2`) against the plain remux and against ffmpeg's
/// fragmented copy (`-c copy -movflags frag_keyframe+empty_moov+default_base_moof`). The goal:
/// CPU at most 1.2× the plain remux's.
func fragmentRows(media: URL, binary: String, rounds: Int) {
    let m = { media.appendingPathComponent($0).path }
    let out = m("out.mp4")
    let cpu = interleavedRows("Fragmented MP4: big.mp4", [
        ("plain remux", [binary, "remux", m("big.mp4"), out]),
        ("remux --fragment 2", [binary, "remux", m("big.mp4"), out, "--fragment", "2"]),
        ("ffmpeg fragmented", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", m("big.mp4"), "-map", "0", "-c", "copy",
                               "-movflags", "frag_keyframe+empty_moov+default_base_moof", out]),
    ], rounds: rounds) { _ in unlink(out) }
    unlink(out)
    let ratio = cpu[1] / max(cpu[0], 1e-9)
    print("fragmenting: \(fmt(ratio))× the plain remux's CPU (goal ≤ 1.2: \(ratio <= 1.2 ? "met" : "NOT met"))")
}

/// Packaging big.mp4 for streaming (`splice package --segment 2`: CMAF segments, HLS and DASH)
/// against the plain remux and against ffmpeg's DASH muxer writing the same (`-f dash
/// -seg_duration 2 -hls_playlist 1`: an fMP4 segment per track per 2 s, an MPD and HLS
/// playlists). Splice writes each track's fragments into one file, then copies them into the
/// segment files in the kernel (`copy_file_range`): the media are written twice, so the plain
/// remux is not the bound; the goal is CPU at most ffmpeg's.
func packageRows(media: URL, binary: String, rounds: Int) {
    let m = { media.appendingPathComponent($0).path }
    let out = m("out.mp4"), dir = m("package-out")
    let cpu = interleavedRows("Packaging: big.mp4", [
        ("plain remux", [binary, "remux", m("big.mp4"), out]),
        ("package --segment 2", [binary, "package", m("big.mp4"), "-o", dir, "--segment", "2"]),
        ("ffmpeg -f dash", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", m("big.mp4"), "-map", "0", "-c", "copy", "-f", "dash",
                            "-seg_duration", "2", "-hls_playlist", "1", dir + "/manifest.mpd"]),
    ], rounds: rounds) { i in
        unlink(out)
        try? FileManager.default.removeItem(atPath: dir)
        if i == 2 { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    }
    unlink(out)
    try? FileManager.default.removeItem(atPath: dir)
    let ratio = cpu[1] / max(cpu[2], 1e-9)
    print("packaging: \(fmt(ratio))× ffmpeg's CPU (goal ≤ 1.0: \(ratio <= 1.0 ? "met" : "NOT met")), "
          + "\(fmt(cpu[1] / max(cpu[0], 1e-9)))× the plain remux's")
}
