import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Fragmenting big.mp4 (`remux --fragment 2`) against the plain remux and against ffmpeg's
/// fragmented copy (`-c copy -movflags frag_keyframe+empty_moov+default_base_moof`): the three
/// commands in interleaved rounds after a warm-up, each followed by an untimed `sync`; medians.
/// The goal: CPU at most 1.2× the plain remux's.
func fragmentRows(media: URL, binary: String, rounds: Int) {
    let m = { media.appendingPathComponent($0).path }
    let out = m("out.mp4")
    let commands: [(String, [String])] = [
        ("plain remux", [binary, "remux", m("big.mp4"), out]),
        ("remux --fragment 2", [binary, "remux", m("big.mp4"), out, "--fragment", "2"]),
        ("ffmpeg fragmented", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", m("big.mp4"), "-map", "0", "-c", "copy",
                               "-movflags", "frag_keyframe+empty_moov+default_base_moof", out]),
    ]
    var runs = Array(repeating: [Measurement](), count: commands.count)
    for round in 0...rounds {
        for (i, command) in commands.enumerated() {
            unlink(out); sync()
            let r = measure(command.1)
            if round > 0 { runs[i].append(r) }
        }
    }
    unlink(out)
    func mid(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
    let wall = runs.map { mid($0.map(\.seconds)) }, cpu = runs.map { mid($0.map(\.cpuSeconds)) }
    let rss = runs.map { mid($0.map { Double($0.maxRSSKiB) / 1024 }) }
    print("\nFragmented MP4: big.mp4, medians of \(rounds) interleaved rounds after a warm-up\n")
    print(pad("command", 22) + pad("wall s", 9) + pad("CPU s", 9) + pad("RSS MB", 9) + pad("× plain CPU", 13) + "× ffmpeg CPU")
    for (i, command) in commands.enumerated() {
        print(pad(command.0, 22) + pad(fmt(wall[i], 3), 9) + pad(fmt(cpu[i], 3), 9) + pad(fmt(rss[i], 1), 9)
              + pad(fmt(cpu[i] / max(cpu[0], 1e-9)), 13) + fmt(cpu[i] / max(cpu[2], 1e-9)))
    }
    let ratio = cpu[1] / max(cpu[0], 1e-9)
    print("fragmenting: \(fmt(ratio))× the plain remux's CPU (goal ≤ 1.2: \(ratio <= 1.2 ? "met" : "NOT met"))")
}

/// Packaging big.mp4 for streaming (`splice package --segment 2`: CMAF segments, HLS and DASH)
/// against the plain remux and against ffmpeg's DASH muxer writing the same (`-f dash
/// -seg_duration 2 -hls_playlist 1`: an fMP4 segment per track per 2 s, an MPD and HLS
/// playlists); interleaved rounds after a warm-up, each followed by an untimed `sync`; medians.
/// Splice writes each track's fragments once and copies them into segment files: the goal is
/// CPU at most 1.5× the plain remux's.
func packageRows(media: URL, binary: String, rounds: Int) {
    let m = { media.appendingPathComponent($0).path }
    let out = m("out.mp4"), dir = m("package-out")
    let commands: [(String, [String])] = [
        ("plain remux", [binary, "remux", m("big.mp4"), out]),
        ("package --segment 2", [binary, "package", m("big.mp4"), "-o", dir, "--segment", "2"]),
        ("ffmpeg -f dash", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", m("big.mp4"), "-map", "0", "-c", "copy", "-f", "dash",
                            "-seg_duration", "2", "-hls_playlist", "1", dir + "/manifest.mpd"]),
    ]
    var runs = Array(repeating: [Measurement](), count: commands.count)
    for round in 0...rounds {
        for (i, command) in commands.enumerated() {
            unlink(out)
            try? FileManager.default.removeItem(atPath: dir)
            if i == 2 { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            sync()
            let r = measure(command.1)
            if round > 0 { runs[i].append(r) }
        }
    }
    unlink(out)
    try? FileManager.default.removeItem(atPath: dir)
    func mid(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
    let wall = runs.map { mid($0.map(\.seconds)) }, cpu = runs.map { mid($0.map(\.cpuSeconds)) }
    let rss = runs.map { mid($0.map { Double($0.maxRSSKiB) / 1024 }) }
    print("\nPackaging: big.mp4, medians of \(rounds) interleaved rounds after a warm-up\n")
    print(pad("command", 22) + pad("wall s", 9) + pad("CPU s", 9) + pad("RSS MB", 9) + pad("× plain CPU", 13) + "× ffmpeg CPU")
    for (i, command) in commands.enumerated() {
        print(pad(command.0, 22) + pad(fmt(wall[i], 3), 9) + pad(fmt(cpu[i], 3), 9) + pad(fmt(rss[i], 1), 9)
              + pad(fmt(cpu[i] / max(cpu[0], 1e-9)), 13) + fmt(cpu[i] / max(cpu[2], 1e-9)))
    }
    let ratio = cpu[1] / max(cpu[0], 1e-9)
    print("packaging: \(fmt(ratio))× the plain remux's CPU (goal ≤ 1.5: \(ratio <= 1.5 ? "met" : "NOT met"))")
}
