// splice-bench: speed and memory against ffmpeg (and cp), measured in the same run.
//
//   make bench            (= swift build -c release && .build/release/splice-bench)
//   BENCH_ONLY=goals make bench      (the goals table only: Goals.swift, then fragmenting: Fragments.swift)
//   BENCH_ONLY=fragments make bench  (fragmenting big.mp4 only)
//   BENCH_ONLY=package make bench    (packaging big.mp4 for HLS and DASH only)
//   BENCH_ONLY=hdr make bench        (tone mapping 1080p PQ to SDR only: Compositing.swift)
//   SPLICE_BENCH_BASELINE=/other/build/splice make bench   (that build measured too, runs alternating)
//   BENCH_ONLY=baseline SPLICE_BENCH_BASELINE=/other/build/splice make bench   (the two builds only: Baseline.swift)
//
// First the goals table (Goals.swift): each job against the ffmpeg command it is measured by,
// interleaved rounds after a warm-up, medians of wall time, CPU time and peak RSS, and peak RSS
// against file size. Then, on a ~240 MB 1080p H.264 + AAC MP4 (and its first half) and a
// one-hour AAC M4A generated once into bench-media/: remux against cp and ffmpeg (3 runs on a warm
// page cache, the median shown), decoding, concat, smart cut, watermark and images.
// RSS is the child's peak resident set (getrusage), which includes its shared libraries.
import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

// `splice-bench --decode <file>`: decode the first video track to pictures and drop them (the
// child process the decode benchmark measures).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--decode" {
    do {
        let asset = try Asset(url: URL(fileURLWithPath: CommandLine.arguments[2]))
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks(withMediaType: .video)[0], outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        guard reader.startReading() else { throw reader.error! }
        var frames = 0
        while output.copyNextSampleBuffer() != nil { frames += 1 }
        guard reader.status == .completed else { throw reader.error! }
        exit(frames > 0 ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("decode: \(error)\n".utf8))
        exit(1)
    }
}

// `splice-bench --transcode <in> <out.mp4> <seconds>`: the first `seconds` of the first video
// track decoded and re-encoded with x264 (`veryfast`, CRF 23) through a reader output and a writer
// input — decode, convert and encode of one track, pipelined.
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--transcode" {
    do {
        let asset = try Asset(url: URL(fileURLWithPath: CommandLine.arguments[2]))
        let reader = try AssetReader(asset: asset)
        reader.timeRange = TimeRange(start: .zero, duration: MediaTime(seconds: Double(CommandLine.arguments[4]) ?? 10, preferredTimescale: 1000))
        let output = AssetReaderTrackOutput(track: asset.tracks(withMediaType: .video)[0], outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        let url = URL(fileURLWithPath: CommandLine.arguments[3])
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        let input = AssetWriterInput(mediaType: .video, outputSettings: .video(VideoEncodingSettings(codec: .h264, quality: .crf(23), preset: "veryfast")))
        try writer.add(input)
        guard reader.startReading() else { throw reader.error! }
        guard writer.startWriting() else { throw writer.error! }
        writer.startSession(atSourceTime: .zero)
        while let sample = output.copyNextSampleBuffer() {
            while !input.isReadyForMoreMediaData { usleep(1000) }
            guard input.append(sample) else { throw writer.error! }
        }
        input.markAsFinished()
        writer.finish()
        guard writer.status == .completed else { throw writer.error! }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("transcode: \(error)\n".utf8))
        exit(1)
    }
}

let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let media = root.appendingPathComponent("bench-media")
try? FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("splice").path
let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 3
/// Another build of splice to compare with (`SPLICE_BENCH_BASELINE=/path/to/splice`): its runs
/// alternate with this build's, so that both see the same machine.
let baseline = ProcessInfo.processInfo.environment["SPLICE_BENCH_BASELINE"]

struct Measurement {
    var seconds: Double
    var maxRSSKiB: Int
    /// User + system CPU time.
    var cpuSeconds: Double = 0
}

let rssFile = NSTemporaryDirectory() + "splice-bench-rss-\(getpid())"

/// Runs a command to completion; returns wall time and its peak RSS. The command runs under
/// GNU time, which forks it from a small process: a child spawned straight from this one would
/// report this process's RSS as its own floor.
func measure(_ command: [String]) -> Measurement {
    let args = ["/usr/bin/time", "-f", "%M", "-o", rssFile] + command
    var pid: pid_t = 0
    let cArgs = args.map { strdup($0) } + [nil]
    defer { for a in cArgs { free(a) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let start = Date()
    guard posix_spawnp(&pid, args[0], &actions, nil, cArgs, environ) == 0 else {
        fatalError("cannot run \(args[0])")
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let elapsed = Date().timeIntervalSince(start)
    posix_spawn_file_actions_destroy(&actions)
    if status != 0 {
        FileHandle.standardError.write(Data("command failed (\(status)): \(args.joined(separator: " "))\n".utf8))
        exit(1)
    }
    let rss = (try? String(contentsOfFile: rssFile, encoding: .utf8))?.split(separator: "\n").last.flatMap { Int($0) } ?? 0
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return Measurement(seconds: elapsed, maxRSSKiB: rss, cpuSeconds: cpu)
}

func median(_ args: [String], cleanup: String) -> Measurement {
    var results: [Measurement] = []
    for _ in 0..<runs {
        unlink(cleanup)
        results.append(measure(args))
    }
    unlink(cleanup)
    results.sort { $0.seconds < $1.seconds }
    return results[results.count / 2]
}

/// The same splice command run by the baseline build (`SPLICE_BENCH_BASELINE`), when there is one.
func onBaseline(_ command: [String]) -> [String]? {
    guard let baseline, command.first == binary else { return nil }
    return [baseline] + command.dropFirst()
}

/// A "baseline" row under a splice row: the baseline's median, its wall and CPU time against this build's.
func baselineRow(_ label: String, _ runs: [Measurement], against m: Measurement) {
    guard !runs.isEmpty else { return }
    let b = runs.sorted { $0.seconds < $1.seconds }[(runs.count - 1) / 2]
    print(pad(label, 24) + pad("  baseline", 30) + pad(fmt(b.seconds, 3), 9) + pad(fmt(b.cpuSeconds, 2), 9)
          + "this build: \(fmt(m.seconds / b.seconds, 3))× the wall time, \(fmt(m.cpuSeconds / max(b.cpuSeconds, 1e-9), 3))× the CPU time")
}

/// Medians of `a` and `b`, their runs alternating (a, b, a, b, …).
func medians(_ a: [String], _ b: [String], cleanup: String) -> (Measurement, Measurement) {
    var ra: [Measurement] = [], rb: [Measurement] = []
    for _ in 0..<runs {
        unlink(cleanup); ra.append(measure(a))
        unlink(cleanup); rb.append(measure(b))
    }
    unlink(cleanup)
    func mid(_ r: [Measurement]) -> Measurement { r.sorted { $0.seconds < $1.seconds }[r.count / 2] }
    return (mid(ra), mid(rb))
}

/// This build's measurement of `arguments`, and the baseline's when there is one.
func spliceMedians(_ arguments: [String], cleanup: String) -> (Measurement, Measurement?) {
    guard let baseline else { return (median([binary] + arguments, cleanup: cleanup), nil) }
    let (a, b) = medians([binary] + arguments, [baseline] + arguments, cleanup: cleanup)
    return (a, b)
}

func shell(_ command: String) {
    let r = measure(["/bin/sh", "-c", command])
    _ = r
}

func generate() {
    try? FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let video = media.appendingPathComponent("video-1080p.mp4").path
    if !FileManager.default.fileExists(atPath: video) {
        print("generating \(video) (once)…")
        shell("ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=25:duration=60 -f lavfi -i sine=frequency=440:duration=60 -c:v libx264 -preset ultrafast -b:v 38M -maxrate 40M -bufsize 40M -g 50 -c:a aac -b:a 128k \(video)")
    }
    let half = media.appendingPathComponent("video-1080p-half.mp4").path
    if !FileManager.default.fileExists(atPath: half) {
        shell("ffmpeg -nostdin -v error -y -i \(video) -t 30 -map 0 -c copy \(half)")
    }
    let audio = media.appendingPathComponent("audio-1h.m4a").path
    if !FileManager.default.fileExists(atPath: audio) {
        print("generating \(audio) (once)…")
        shell("ffmpeg -nostdin -v error -y -f lavfi -i sine=frequency=440:duration=3600:sample_rate=44100 -c:a aac -b:a 64k \(audio)")
    }
}

func sampleCount(_ path: String) -> Int {
    let pipe = Pipe()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = ["inspect", path, "--json"]
    p.standardOutput = pipe
    try? p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    let tracks = json?["tracks"] as? [[String: Any]] ?? []
    return tracks.reduce(0) { $0 + ($1["sampleCount"] as? Int ?? 0) }
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func fmt(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }

if ProcessInfo.processInfo.environment["BENCH_ONLY"] == "baseline" {
    guard let baseline else { fatalError("BENCH_ONLY=baseline compares with SPLICE_BENCH_BASELINE=/path/to/other/splice") }
    baselineRows(media: media, binary: binary, baseline: baseline,
                 rounds: max(3, Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 9))
    exit(0)
}
if ProcessInfo.processInfo.environment["BENCH_ONLY"] == "fragments" {
    makeGoalMedia(media)
    fragmentRows(media: media, binary: binary, rounds: max(9, Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 9))
    exit(0)
}
if ProcessInfo.processInfo.environment["BENCH_ONLY"] == "hdr" {
    toneMappingRows(media: media, binary: binary, runs: max(3, Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 3))
    exit(0)
}
if ProcessInfo.processInfo.environment["BENCH_ONLY"] == "package" {
    makeGoalMedia(media)
    packageRows(media: media, binary: binary, rounds: max(5, Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 5))
    exit(0)
}
let goalRounds = max(5, Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 5)
goalRows(media: media, binary: binary, rounds: goalRounds)
fragmentRows(media: media, binary: binary, rounds: max(9, goalRounds))
packageRows(media: media, binary: binary, rounds: goalRounds)
if ProcessInfo.processInfo.environment["BENCH_ONLY"] == "goals" { exit(0) }
print("")

generate()
print("splice-bench: median of \(runs) runs, warm page cache, binary \(binary)")
if let baseline { print("baseline (runs alternating with this build's): \(baseline)") }
print("")
print(pad("file", 24) + pad("tool", 30) + pad("seconds", 9) + pad("×cp", 7) + pad("×cp+sync", 9) + pad("×ffmpeg", 9) + pad("RSS MB", 8) + "µs/sample")
for name in ["video-1080p.mp4", "video-1080p-half.mp4", "audio-1h.m4a"] {
    let input = media.appendingPathComponent(name).path
    let ext = (name as NSString).pathExtension
    let out = media.appendingPathComponent("out.\(ext)").path
    shell("cat \(input) > /dev/null")
    let samples = sampleCount(input)
    let cp = median(["cp", input, out], cleanup: out)
    // `cp + sync`: what a flushed output (`splice --sync`) costs at the least.
    let cpSync = median(["/bin/sh", "-c", "cp \"$0\" \"$1\" && sync \"$1\"", input, out], cleanup: out)
    let ff = median(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", input, "-map", "0", "-c", "copy", out], cleanup: out)
    let ffFast = median(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", input, "-map", "0", "-c", "copy", "-movflags", "+faststart", out], cleanup: out)
    let (sp, spBase) = spliceMedians(["remux", input, out], cleanup: out)
    let (spFast, spFastBase) = spliceMedians(["remux", input, out, "--faststart"], cleanup: out)
    func row(_ tool: String, _ m: Measurement, vs ffmpeg: Measurement?, perSample: Bool) {
        let ratioFF = ffmpeg.map { fmt(m.seconds / $0.seconds) } ?? "-"
        let us = perSample ? fmt(m.seconds * 1e6 / Double(max(samples, 1)), 2) : "-"
        print(pad(name, 24) + pad(tool, 30) + pad(fmt(m.seconds, 3), 9) + pad(fmt(m.seconds / cp.seconds), 7)
              + pad(fmt(m.seconds / cpSync.seconds), 9) + pad(ratioFF, 9) + pad(fmt(Double(m.maxRSSKiB) / 1024, 1), 8) + us)
    }
    row("cp", cp, vs: nil, perSample: false)
    row("cp + sync", cpSync, vs: nil, perSample: false)
    row("ffmpeg -c copy", ff, vs: nil, perSample: true)
    row("ffmpeg -c copy +faststart", ffFast, vs: nil, perSample: true)
    row("splice remux", sp, vs: ff, perSample: true)
    if let spBase { baselineRow(name, [spBase], against: sp) }
    row("splice remux --faststart", spFast, vs: ffFast, perSample: true)
    if let spFastBase { baselineRow(name + " faststart", [spFastBase], against: spFast) }
    let bytes = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int ?? 0
    print(pad("", 24) + "(\(samples) samples, \(fmt(Double(bytes) / 1e6, 1)) MB)")
}

let mp4Source = media.appendingPathComponent("video-1080p.mp4").path
let exportSource = media.appendingPathComponent("video-1080p-half.mp4").path
func middle(_ ms: [Measurement]) -> Measurement { ms.sorted { $0.seconds < $1.seconds }[(ms.count - 1) / 2] }

// Decoding: every frame of the 1080p H.264 video to pictures, dropped, against ffmpeg decoding
// to the null muxer; runs alternate, wall and CPU time.
print("\n" + pad("decode (1080p H.264)", 24) + pad("tool", 30) + pad("seconds", 9) + pad("CPU s", 9) + pad("×ffmpeg", 9) + "RSS MB")
let bench = CommandLine.arguments[0]
let (ffDecode, spDecode) = medians(["ffmpeg", "-nostdin", "-v", "error", "-i", mp4Source, "-map", "0:v:0", "-f", "null", "-"],
                                   [bench, "--decode", mp4Source], cleanup: "/dev/null/none")
for (tool, m) in [("ffmpeg -f null", ffDecode), ("splice reader, decoded", spDecode)] {
    print(pad("decode (1080p H.264)", 24) + pad(tool, 30) + pad(fmt(m.seconds, 3), 9) + pad(fmt(m.cpuSeconds, 2), 9)
          + pad(fmt(m.seconds / ffDecode.seconds), 9) + fmt(Double(m.maxRSSKiB) / 1024, 1))
}
// The baseline's decode is its own splice-bench's, beside its splice (runs alternating with this build's).
if let baseline, case let baseBench = URL(fileURLWithPath: baseline).deletingLastPathComponent().appendingPathComponent("splice-bench").path,
   FileManager.default.isExecutableFile(atPath: baseBench) {
    let (mine, theirs) = medians([bench, "--decode", mp4Source], [baseBench, "--decode", mp4Source], cleanup: "/dev/null/none")
    print(pad("decode (1080p H.264)", 24) + pad("splice reader, this build", 30) + pad(fmt(mine.seconds, 3), 9) + fmt(mine.cpuSeconds, 2))
    baselineRow("decode (1080p H.264)", [theirs], against: mine)
}

// Lossless concat: three ~100 MB clips (25 s of the 1080p movie each) joined by `splice concat
// --cut exact` (every sample copied, file to file), against `cat` of the same bytes plus `sync` and ffmpeg's
// concat demuxer with -c copy; runs alternate.
let concatClips = (0..<3).map { media.appendingPathComponent("clip-\($0).mp4").path }
for (i, clip) in concatClips.enumerated() where !FileManager.default.fileExists(atPath: clip) {
    shell("ffmpeg -nostdin -v error -y -ss \(i * 17) -i \(mp4Source) -t 25 -map 0 -c copy \(clip)")
}
let concatList = media.appendingPathComponent("clips.txt").path
try? concatClips.map { "file '\($0)'" }.joined(separator: "\n").write(toFile: concatList, atomically: true, encoding: .utf8)
let concatOut = media.appendingPathComponent("concat.mp4").path
let clipBytes = concatClips.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1))?[.size] as? Int ?? 0) }
print("\n" + pad("concat 3 clips (\(clipBytes / 1_000_000) MB)", 24) + pad("tool", 30) + pad("seconds", 9) + pad("×cat+sync", 11) + pad("×ffmpeg", 9) + "RSS MB")
for clip in concatClips { shell("cat \(clip) > /dev/null") }
var catRuns: [Measurement] = [], ffConcatRuns: [Measurement] = [], spConcatRuns: [Measurement] = [], baseConcatRuns: [Measurement] = []
let concatCommand = [binary, "concat", "--cut", "exact"] + concatClips + ["-o", concatOut]
for _ in 0..<runs {
    unlink(concatOut)
    catRuns.append(measure(["/bin/sh", "-c", "cat \"$1\" \"$2\" \"$3\" > \"$0\" && sync \"$0\"", concatOut] + concatClips))
    unlink(concatOut)
    ffConcatRuns.append(measure(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", concatList, "-map", "0", "-c", "copy", concatOut]))
    unlink(concatOut)
    spConcatRuns.append(measure(concatCommand))
    if let b = onBaseline(concatCommand) { unlink(concatOut); baseConcatRuns.append(measure(b)) }
}
unlink(concatOut)
let catConcat = middle(catRuns), ffConcat = middle(ffConcatRuns), spConcat = middle(spConcatRuns)
for (tool, m) in [("cat + sync", catConcat), ("ffmpeg -f concat -c copy", ffConcat), ("splice concat", spConcat)] {
    print(pad("concat 3 clips", 24) + pad(tool, 30) + pad(fmt(m.seconds, 3), 9) + pad(fmt(m.seconds / catConcat.seconds), 11)
          + pad(fmt(m.seconds / ffConcat.seconds), 9) + fmt(Double(m.maxRSSKiB) / 1024, 1))
}
baselineRow("concat 3 clips", baseConcatRuns, against: spConcat)
smartCutRows(clips: concatClips, media: media, binary: binary, runs: runs)

compositingRows(media: media, source: exportSource, binary: binary, runs: runs)
toneMappingRows(media: media, binary: binary, runs: runs)
