import Foundation

/// The smart-cut row: `splice concat` of the three ~100 MB 1080p clips, each cut mid-GOP at both
/// ends (the default, smart: the partial GOPs re-encoded, the rest copied), against its budget —
/// `cat` + `sync` of the clips plus ffmpeg encoding as many frames with the same x264 settings
/// (the source's profile, `medium`, CRF 18, no macroblock tree, 4 threads), measured in the same
/// run, plus 20 %; its peak RSS against that encode's plus 32 MB.
func smartCutRows(clips: [String], media: URL, binary: String, runs: Int) {
    let out = media.appendingPathComponent("smart.mp4").path
    let ranges = ["1.3,23.7", "0.5,24.1", "2.7,22.9"]
    let command = [binary, "concat"] + zip(clips, ranges).map { "\($0)#t=\($1)" } + ["-o", out, "--force"]
    // How many frames the cut re-encodes (its note), to encode as many with ffmpeg.
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: binary)
    probe.arguments = Array(command.dropFirst())
    let errors = Pipe()
    probe.standardError = errors
    probe.standardOutput = FileHandle.nullDevice
    try? probe.run()
    probe.waitUntilExit()
    let note = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard let line = note.split(separator: "\n").first(where: { $0.contains("frames re-encoded") }),
          let frames = line.split(separator: " ").firstIndex(of: "frames").flatMap({ Int(line.split(separator: " ")[$0 - 1]) }) else {
        print("smart cut: no note of frames re-encoded: \(note)")
        return
    }
    let label = "smart concat (\(frames) fr)"
    print("\n" + pad(label, 24) + pad("tool", 34) + pad("seconds", 9) + pad("×budget", 9) + "RSS MB")
    var cat: [Measurement] = [], encode: [Measurement] = [], smart: [Measurement] = []
    for _ in 0..<runs {
        unlink(out)
        cat.append(measure(["/bin/sh", "-c", "cat \"$1\" \"$2\" \"$3\" > \"$0\" && sync \"$0\"", out] + clips))
        unlink(out)
        encode.append(measure(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", clips[0], "-frames:v", String(frames), "-an",
                               "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-profile:v", "baseline", "-x264-params", "mbtree=0",
                               "-threads", "4", out]))
        unlink(out)
        smart.append(measure(command))
    }
    unlink(out)
    let c = middle(cat), e = middle(encode), s = middle(smart)
    let budget = (c.seconds + e.seconds) * 1.2
    for (tool, m) in [("cat + sync", c), ("ffmpeg x264, \(frames) frames", e), ("splice concat (smart)", s)] {
        print(pad(label, 24) + pad(tool, 34) + pad(fmt(m.seconds, 2), 9) + pad(fmt(m.seconds / budget), 9) + fmt(Double(m.maxRSSKiB) / 1024, 1))
    }
    let rssOver = Double(s.maxRSSKiB - e.maxRSSKiB) / 1024
    print("smart concat: \(fmt(s.seconds, 2)) s against a budget of \(fmt(budget, 2)) s ((cat + sync + encode) × 1.2): "
          + (s.seconds <= budget ? "within" : "OVER") + "; RSS \(fmt(rssOver, 1)) MB above the encode's (at most 32): " + (rssOver <= 32 ? "within" : "OVER"))
}
