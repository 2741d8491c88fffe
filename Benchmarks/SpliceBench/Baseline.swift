import Foundation

/// Two builds of splice against each other (`BENCH_ONLY=baseline SPLICE_BENCH_BASELINE=/other/splice
/// make bench`): the splice commands the bench times — the goals table's remuxes, mix and export,
/// the 1080p and 1 h remuxes, the lossless and the smart concat — each run by this build and by
/// the baseline in alternation, `rounds` times after a warm-up. Per row: both medians of wall and
/// CPU time and both interquartile ranges of the wall time; a change is neutral when, on every
/// row of a second or more, the CPU times are within 5 % and each median lies within the other
/// build's interquartile range.
func baselineRows(media: URL, binary: String, baseline: String, rounds: Int) {
    makeGoalMedia(media)
    generate()
    let m = { media.appendingPathComponent($0).path }
    let clips = (0..<3).map { m("clip-\($0).mp4") }
    for (i, clip) in clips.enumerated() where !FileManager.default.fileExists(atPath: clip) {
        shell("ffmpeg -nostdin -v error -y -ss \(i * 17) -i \(m("video-1080p.mp4")) -t 25 -map 0 -c copy \(clip)")
    }
    let rows: [(String, [String], String)] = [
        ("MKV → MP4 remux", ["remux", m("big.mkv"), m("out.mp4")], m("out.mp4")),
        ("MP4 → MKV remux", ["remux", m("big.mp4"), m("out.mkv")], m("out.mkv")),
        ("1 h AAC MP4 → MP4", ["remux", m("aac1h.m4a"), m("out.m4a")], m("out.m4a")),
        ("1080p remux", ["remux", m("video-1080p.mp4"), m("out.mp4")], m("out.mp4")),
        ("1080p remux faststart", ["remux", m("video-1080p.mp4"), m("out.mp4"), "--faststart"], m("out.mp4")),
        ("mix (20 s 1080p)", ["mix", m("src.mp4"), m("music.m4a"), "-o", m("out.mp4"), "--music-volume", "0.3"], m("out.mp4")),
        ("export 1280x720", ["export", m("src.mp4"), "-o", m("out.mp4"), "--preset", "1280x720"], m("out.mp4")),
        ("concat exact, 3 clips", ["concat", "--cut", "exact"] + clips + ["-o", m("out.mp4")], m("out.mp4")),
        ("concat smart, 3 clips", ["concat"] + zip(clips, ["1.3,23.7", "0.5,24.1", "2.7,22.9"]).map { "\($0)#t=\($1)" } + ["-o", m("out.mp4")],
         m("out.mp4")),
        ("trim smart into .mkv", ["trim", m("video-1080p.mp4"), "-o", m("out.mkv"), "--range", "3.3,41.7"], m("out.mkv")),
    ]
    print("This build against \(baseline): \(rounds) alternating rounds after a warm-up; wall and CPU medians, wall interquartile ranges\n")
    print(pad("job", 24) + pad("wall s (IQR)   this", 26) + pad("baseline", 22) + pad("CPU s this", 12) + pad("baseline", 10)
          + pad("× CPU", 8) + "verdict")
    var neutral = true
    for (name, arguments, output) in rows {
        var mine: [Measurement] = [], theirs: [Measurement] = []
        for round in 0...rounds {
            unlink(output); sync()
            let a = measure([binary] + arguments)
            unlink(output); sync()
            let b = measure([baseline] + arguments)
            if round > 0 { mine.append(a); theirs.append(b) }
        }
        unlink(output)
        let (w1, q1) = quartiles(mine.map(\.seconds)), (w2, q2) = quartiles(theirs.map(\.seconds))
        let c1 = quartiles(mine.map(\.cpuSeconds)).median, c2 = quartiles(theirs.map(\.cpuSeconds)).median
        let cpu = c1 / max(c2, 1e-9)
        let judged = max(w1, w2) >= 1
        let cpuOK = abs(cpu - 1) <= 0.05, wallOK = q2.contains(w1) && q1.contains(w2)
        let verdict = !judged ? "(under a second)" : (cpuOK ? "CPU ok" : "CPU OFF") + ", " + (wallOK ? "wall ok" : "wall OFF")
        if judged, !(cpuOK && wallOK) { neutral = false }
        func range(_ w: Double, _ q: ClosedRange<Double>) -> String { "\(fmt(w, 3)) (\(fmt(q.lowerBound, 2))–\(fmt(q.upperBound, 2)))" }
        print(pad(name, 24) + pad(range(w1, q1), 26) + pad(range(w2, q2), 22) + pad(fmt(c1, 3), 12) + pad(fmt(c2, 3), 10)
              + pad(fmt(cpu, 3), 8) + verdict)
    }
    print("\n" + (neutral ? "neutral: every row of a second or more within 5 % CPU and within the other's interquartile range"
                          : "NOT neutral: see the rows marked OFF"))
}

/// The median and the interquartile range (first to third quartile, nearest rank) of `xs`.
func quartiles(_ xs: [Double]) -> (median: Double, iqr: ClosedRange<Double>) {
    let s = xs.sorted()
    guard !s.isEmpty else { return (0, 0...0) }
    let at = { (p: Double) in s[min(s.count - 1, max(0, Int((p * Double(s.count - 1)).rounded())))] }
    return (at(0.5), at(0.25)...at(0.75))
}
