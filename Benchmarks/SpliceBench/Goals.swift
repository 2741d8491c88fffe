import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One job of the goals table: the ffmpeg command it is measured against, Splice's command,
/// and the goal as ratios of ffmpeg's wall time, CPU time and peak RSS.
struct GoalJob {
    var name: String
    var ffmpeg: [String]
    var splice: [String]
    var output: String
    /// Splice's wall and CPU time at most this many times ffmpeg's.
    var timeGoal: Double
    /// Splice's peak RSS at most ffmpeg's.
    var rssGoal: Bool
}

/// The media of the goals table, made once with the ffmpeg CLI and mkvmerge (the commands of
/// the issue that set the goals): a 47 s noisy 1080p H.264 + AAC 192k movie as MP4 and as
/// Matroska, the same four times over (for memory against size), an hour of 32 kb/s AAC,
/// 20 s of lightly noisy 1080p with AAC 128k, and 10 s of a half-scale 1 kHz tone.
func makeGoalMedia(_ media: URL) {
    func make(_ name: String, _ command: String) {
        let path = media.appendingPathComponent(name).path
        guard !FileManager.default.fileExists(atPath: path) else { return }
        print("generating \(name) (once)…")
        shell(command.replacingOccurrences(of: "$OUT", with: path).replacingOccurrences(of: "$DIR", with: media.path))
    }
    let ff = "ffmpeg -nostdin -v error -y"
    make("big.mp4", "\(ff) -f lavfi -i testsrc2=s=1920x1080:r=25,noise=alls=5:allf=t -f lavfi -i sine=frequency=440 -t 47 "
         + "-c:v libx264 -preset ultrafast -bf 2 -crf 20 -g 50 -c:a aac -b:a 192k $OUT")
    make("big.mkv", "mkvmerge -q -o $OUT $DIR/big.mp4")
    make("big4.mp4", "printf \"file '%s'\\n\" $DIR/big.mp4 $DIR/big.mp4 $DIR/big.mp4 $DIR/big.mp4 > $DIR/big4.txt && "
         + "\(ff) -f concat -safe 0 -i $DIR/big4.txt -map 0 -c copy $OUT")
    make("big4.mkv", "mkvmerge -q -o $OUT $DIR/big4.mp4")
    make("aac1h.m4a", "\(ff) -f lavfi -i sine=frequency=440:sample_rate=44100 -t 3600 -c:a aac -b:a 32k $OUT")
    make("src.mp4", "\(ff) -f lavfi -i testsrc2=s=1920x1080:r=25,noise=alls=2:allf=t -f lavfi -i sine=frequency=440 -t 20 "
         + "-c:v libx264 -c:a aac -b:a 128k $OUT")
    make("music.m4a", "\(ff) -f lavfi -i 'aevalsrc=0.5*sin(2*PI*1000*t):s=48000:c=stereo' -t 10 -c:a aac -b:a 192k $OUT")
}

/// The goals table: each job against its ffmpeg command, runs interleaved (ffmpeg, Splice,
/// ffmpeg, …) after one warm-up round, every command followed by an untimed `sync`; medians
/// of `rounds` of wall time, CPU time (user + system) and peak RSS.
func goalRows(media: URL, binary: String, rounds: Int) {
    makeGoalMedia(media)
    let m = { media.appendingPathComponent($0).path }
    let ff = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    let mix = "[0:a]volume=0.7[a0];[1:a]volume=0.3[a1];[a0][a1]amix=inputs=2:duration=first:normalize=0[a]"
    let stereoMix = "[0:a]aformat=sample_rates=44100:channel_layouts=stereo,volume=0.7[a0];[1:a]aresample=44100,volume=0.3[a1];"
        + "[a0][a1]amix=inputs=2:duration=first:normalize=0[a]"
    var jobs = [
        GoalJob(name: "MKV → MP4 remux", ffmpeg: ff + ["-i", m("big.mkv"), "-map", "0", "-c", "copy", m("out.mp4")],
                splice: [binary, "remux", m("big.mkv"), m("out.mp4")], output: m("out.mp4"), timeGoal: 0.9, rssGoal: true),
        GoalJob(name: "MP4 → MKV remux", ffmpeg: ff + ["-i", m("big.mp4"), "-map", "0", "-c", "copy", m("out.mkv")],
                splice: [binary, "remux", m("big.mp4"), m("out.mkv")], output: m("out.mkv"), timeGoal: 0.9, rssGoal: true),
        GoalJob(name: "1 h AAC MP4 → MP4", ffmpeg: ff + ["-i", m("aac1h.m4a"), "-map", "0", "-c", "copy", m("out.m4a")],
                splice: [binary, "remux", m("aac1h.m4a"), m("out.m4a")], output: m("out.m4a"), timeGoal: 0.35, rssGoal: false),
        GoalJob(name: "mix (20 s 1080p)", ffmpeg: ff + ["-i", m("src.mp4"), "-i", m("music.m4a"), "-filter_complex", mix,
                                                         "-map", "0:v", "-map", "[a]", "-c:v", "copy", "-c:a", "aac", "-b:a", "192k", m("out.mp4")],
                splice: [binary, "mix", m("src.mp4"), m("music.m4a"), "-o", m("out.mp4"), "--music-volume", "0.3"],
                output: m("out.mp4"), timeGoal: 0.8, rssGoal: false),
        // The issue's command mixes to mono (amix takes the first input's layout: the movie's
        // mono sound), which `mix` does not: it keeps the music's stereo at the movie's rate.
        // The same output from ffmpeg, for the same work.
        GoalJob(name: "mix, ffmpeg in stereo", ffmpeg: ff + ["-i", m("src.mp4"), "-i", m("music.m4a"), "-filter_complex", stereoMix,
                                                              "-map", "0:v", "-map", "[a]", "-c:v", "copy", "-c:a", "aac", "-b:a", "192k", m("out.mp4")],
                splice: [binary, "mix", m("src.mp4"), m("music.m4a"), "-o", m("out.mp4"), "--music-volume", "0.3"],
                output: m("out.mp4"), timeGoal: 0.8, rssGoal: false),
    ]
    printAudioShapes(of: jobs[3...4])
    let export = [binary, "export", m("src.mp4"), "-o", m("export.mp4"), "--preset", "1280x720", "--force"]
    if let command = exportCommandMatchingSEI(splice: export, source: m("src.mp4"), output: m("export.mp4"), media: media) {
        jobs.append(GoalJob(name: "export 1280x720 (20 s)", ffmpeg: command, splice: export, output: m("export.mp4"),
                            timeGoal: 0.95, rssGoal: true))
    }
    print("Goals: medians of \(rounds) interleaved rounds after a warm-up, each command followed by an untimed sync\n")
    print(pad("job", 24) + pad("tool", 8) + pad("wall s", 9) + pad("CPU s", 9) + pad("RSS MB", 9) + pad("× wall", 8) + pad("× CPU", 8)
          + pad("× RSS", 8) + "goal")
    for job in jobs { report(job, runs: runGoal(job, rounds: rounds)) }
    rssAgainstSize(media: media, binary: binary, rounds: max(3, rounds / 2))
}

private func runGoal(_ job: GoalJob, rounds: Int) -> (ffmpeg: [Measurement], splice: [Measurement]) {
    var f: [Measurement] = [], s: [Measurement] = []
    for round in 0...rounds {
        unlink(job.output); sync()
        let a = measure(job.ffmpeg)
        unlink(job.output); sync()
        let b = measure(job.splice)
        unlink(job.output); sync()
        if round > 0 { f.append(a); s.append(b) }
    }
    return (f, s)
}

private func report(_ job: GoalJob, runs: (ffmpeg: [Measurement], splice: [Measurement])) {
    func mid(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
    func stats(_ r: [Measurement]) -> (Double, Double, Double) {
        (mid(r.map(\.seconds)), mid(r.map(\.cpuSeconds)), mid(r.map { Double($0.maxRSSKiB) / 1024 }))
    }
    let (fw, fc, fr) = stats(runs.ffmpeg), (sw, sc, sr) = stats(runs.splice)
    let wall = sw / fw, cpu = sc / max(fc, 1e-9), rss = sr / fr
    var verdict = [wall <= job.timeGoal ? "wall ok" : "wall OVER", cpu <= job.timeGoal ? "CPU ok" : "CPU OVER"]
    if job.rssGoal { verdict.append(rss <= 1 ? "RSS ok" : "RSS OVER") }
    let goal = "≤ \(fmt(job.timeGoal))×" + (job.rssGoal ? ", RSS ≤ ffmpeg's" : "")
    print(pad(job.name, 24) + pad("ffmpeg", 8) + pad(fmt(fw, 3), 9) + pad(fmt(fc, 3), 9) + fmt(fr, 1))
    print(pad("", 24) + pad("splice", 8) + pad(fmt(sw, 3), 9) + pad(fmt(sc, 3), 9) + pad(fmt(sr, 1), 9) + pad(fmt(wall), 8)
          + pad(fmt(cpu), 8) + pad(fmt(rss), 8) + goal + ": " + verdict.joined(separator: ", "))
    print(pad("", 24) + "ffmpeg: " + job.ffmpeg.dropFirst(5).map { $0.contains(" ") || $0.contains(";") ? "\"\($0)\"" : $0 }
          .joined(separator: " ").replacingOccurrences(of: job.output, with: "out").replacingOccurrences(of: FileManager.default.currentDirectoryPath + "/bench-media/", with: ""))
}

/// The ffmpeg command of the export row: scaled to 1280x720 with x264 `medium` at CRF 20 and
/// the audio copied, as the preset does — checked by reading the x264 options from the SEI of
/// both outputs: nil (and the difference printed) when they differ.
func exportCommandMatchingSEI(splice: [String], source: String, output: String, media: URL) -> [String]? {
    let command = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-map", "0", "-vf", "scale=1280:720",
                   "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-c:a", "copy", output]
    _ = measure(splice)
    let ours = x264Options(output), ourSSIM = ssim(output, against: source)
    _ = measure(command)
    let theirs = x264Options(output), theirSSIM = ssim(output, against: source)
    unlink(output)
    print("export outputs: SSIM against the source scaled by ffmpeg: splice \(fmt(ourSSIM, 4)), ffmpeg \(fmt(theirSSIM, 4)); "
          + "x264 options " + (ours == theirs ? "identical" : "DIFFERENT"))
    guard let ours, ours == theirs else {
        print("export row left out: the x264 options differ\n  splice: \(ours ?? "none")\n  ffmpeg: \(theirs ?? "none")")
        return nil
    }
    return command
}

/// The options x264 wrote into its SEI ("cabac=1 ref=3 …"), from the file's bytes.
func x264Options(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path),
          let start = data.range(of: Data("options: ".utf8)) else { return nil }
    let end = data[start.upperBound...].firstIndex(of: 0) ?? data.endIndex
    return String(decoding: data[start.upperBound..<end], as: UTF8.self)
}

/// Peak RSS of each remux against the file's size: the 47 s movie and the same four times over,
/// medians of `rounds`; the longer one's at most 5 MB more.
private func rssAgainstSize(media: URL, binary: String, rounds: Int) {
    print("\nPeak RSS against size (47 s movie, and the same 4× longer): medians of \(rounds)")
    for (job, small, large, ext) in [("MKV → MP4", "big.mkv", "big4.mkv", "mp4"), ("MP4 → MKV", "big.mp4", "big4.mp4", "mkv"),
                                     ("MP4 → MP4", "big.mp4", "big4.mp4", "mp4")] {
        let out = media.appendingPathComponent("out.\(ext)").path
        func rss(_ input: String) -> Double {
            let runs = (0..<rounds).map { _ -> Double in
                unlink(out); sync()
                defer { unlink(out); sync() }
                return Double(measure([binary, "remux", media.appendingPathComponent(input).path, out]).maxRSSKiB) / 1024
            }
            return runs.sorted()[runs.count / 2]
        }
        let a = rss(small), b = rss(large)
        print(pad(job, 24) + "\(fmt(a, 1)) MB and \(fmt(b, 1)) MB: " + (b - a <= 5 ? "flat (not 5 MB more)" : "GROWS by \(fmt(b - a, 1)) MB"))
    }
}

/// Prints the sound each command of `jobs` writes (channels, rate, bit rate, from ffprobe).
private func printAudioShapes(of jobs: ArraySlice<GoalJob>) {
    for job in jobs {
        var shapes: [String] = []
        for command in [job.ffmpeg, job.splice] {
            unlink(job.output)
            _ = measure(command)
            let p = Process(), out = Pipe()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=channels,sample_rate,bit_rate",
                           "-of", "csv=p=0", job.output]
            p.standardOutput = out
            try? p.run()
            let fields = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
            p.waitUntilExit()
            shapes.append(fields.count == 3 ? "\(fields[1]) ch \(fields[0]) Hz \((Int(fields[2]) ?? 0) / 1000) kb/s" : "?")
        }
        unlink(job.output)
        print("\(job.name) outputs: ffmpeg \(shapes[0]), splice \(shapes[1])")
    }
}

/// The SSIM of `path` against `source` scaled to its size by ffmpeg (bicubic).
func ssim(_ path: String, against source: String) -> Double {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["ffmpeg", "-nostdin", "-v", "info", "-nostats", "-i", path, "-i", source,
                   "-lavfi", "[1:v][0:v]scale2ref[s][o];[o][s]ssim", "-f", "null", "-"]
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try? p.run()
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    let line = text.split(separator: "\n").last { $0.contains("SSIM") } ?? ""
    return line.split(separator: " ").first { $0.hasPrefix("All:") }.flatMap { Double($0.dropFirst(4)) } ?? 0
}
