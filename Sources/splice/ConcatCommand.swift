import Dispatch
import Foundation
import Splice

/// A clip on the command line: `FILE` or `FILE#t=START,END` (W3C Media Fragments).
struct Clip {
    let url: URL
    let start: Double?
    let end: Double?
    let text: String

    /// `movie.mp4#t=10,20`, `#t=10` (to the end), `#t=,20` (from the start).
    init(_ text: String) throws {
        self.text = text
        guard let hash = text.range(of: "#t=", options: .backwards) else {
            url = URL(fileURLWithPath: text)
            start = nil
            end = nil
            return
        }
        url = URL(fileURLWithPath: String(text[..<hash.lowerBound]))
        let times = text[hash.upperBound...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard times.count <= 2, !times.allSatisfy(\.isEmpty) else { throw UsageError(message: "\(text): '#t=' takes START,END, START or ,END") }
        func time(_ s: String) throws -> Double? {
            guard !s.isEmpty else { return nil }
            guard let t = ThumbnailCommand.parseTime(s) else { throw UsageError(message: "\(text): '\(s)' is not a time (seconds or [hh:]mm:ss[.fff])") }
            return t
        }
        start = try time(times[0])
        end = times.count == 2 ? try time(times[1]) : nil
        if let start, let end, end <= start { throw UsageError(message: "\(text): the range ends before it starts") }
    }

    /// The clip's range on its asset's timeline: checked against the asset's duration.
    func range(in asset: Asset) throws -> TimeRange {
        let duration = asset.duration.seconds
        let from = start ?? 0, to = end ?? duration
        guard from < duration else {
            throw MediaError(.invalidData, "the range starts at \(from) s, past the end (\(String(format: "%.3f", duration)) s)", file: url.path)
        }
        guard to <= duration + 0.0005 else {
            throw MediaError(.invalidData, "the range ends at \(to) s, past the end (\(String(format: "%.3f", duration)) s)", file: url.path)
        }
        let startTime = MediaTime(seconds: from, preferredTimescale: 90_000)
        let endTime = end == nil ? asset.duration : MediaTime(seconds: min(to, duration), preferredTimescale: 90_000)
        return TimeRange(start: startTime, end: endTime)
    }

    func open() throws -> Asset {
        guard FileManager.default.fileExists(atPath: url.path) else { throw MediaError(.fileNotFound, "no such file", file: url.path) }
        return try Asset(url: url)
    }
}

/// `splice concat`: clips one after the other, copied byte for byte when they fit one track.
enum ConcatCommand: Command {
    static let name = "concat"
    static let abstract = "Join clips (whole files or ranges of them) one after the other."
    static let usage = "splice concat <clip>... -o <output> [--reencode auto|never|always] [--preset <name>] [--audio-only] [--all-tracks] [--crossfade <seconds>] [--faststart] [--force]"
    static let help = """
        OVERVIEW: \(abstract)

        A clip is FILE or FILE#t=START,END (#t=10,20; #t=10 to the end; #t=,20 from the
        start; seconds or [hh:]mm:ss[.fff]). Each clip brings its enabled video track and
        its enabled audio track; a clip without audio leaves silence, so that sound and
        picture stay in step. Into MP4/MOV the samples are copied byte for byte, and each
        cut is frame-exact through the edit list (a clip starting between sync samples
        brings the samples from the one before, which the edit list hides).

        USAGE: \(usage)

        OPTIONS:
          -o <output>             The file to write.
          --reencode <when>       auto (default): copy when every clip fits one track (same
                                  codec, size, profile, audio rate and channels) and every cut
                                  can be exact, else re-encode every clip to the first clip's
                                  size (others fitted inside, letterboxed) and audio format.
                                  never: fail instead (exit 65); into Matroska/TS, whose
                                  cuts cannot be hidden, snap each start back to its sync
                                  sample with a warning. always: re-encode.
          --preset <name>         The export preset when re-encoding (default: highestQuality).
          --audio-only            Join only the audio (also for sound-only outputs: .m4a, .mka, .ogg, .opus); a clip without sound is refused.
          --all-tracks            Keep every track all clips have (by type and language),
                                  not only the enabled video and audio.
          --crossfade <seconds>   Dissolve each clip's picture into the next's and crossfade
                                  their sound; the clips overlap, so the result is shorter by
                                  (clips − 1) × seconds. Re-encodes (the preset's settings).
          --faststart             Put the movie header first (MP4/MOV).
          --force                 Replace <output> if it exists.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid or unfit clips,
        66 missing clip, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    enum Reencode: String { case auto, never, always }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--audio-only", "--all-tracks", "--faststart", "--force"],
                                       options: ["-o", "--reencode", "--preset", "--crossfade"])
        guard !args.positionals.isEmpty else { throw UsageError(message: "expected at least one <clip>") }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        guard let mode = Reencode(rawValue: args.options["--reencode"] ?? "auto") else { throw UsageError(message: "--reencode takes auto, never or always") }
        let preset = try JobSupport.preset(args.options["--preset"])
        let outputURL = URL(fileURLWithPath: output)
        guard let type = FileType(pathExtension: outputURL.pathExtension) else {
            throw MediaError(.unsupported, "cannot write '.\(outputURL.pathExtension)' files", file: outputURL.path)
        }
        try JobSupport.checkOutput(outputURL, force: args.flags.contains("--force"), inputs: args.positionals)
        let audioOnly = args.flags.contains("--audio-only") || type.holdsSoundOnly
        let clips = try args.positionals.map(Clip.init)
        let assets = try clips.map { try $0.open() }
        var ranges = try zip(clips, assets).map { try $0.range(in: $1) }
        if !audioOnly, !assets.contains(where: { !$0.tracks(withMediaType: .video).isEmpty }) {
            throw MediaError(.invalidData, "no clip has video (use --audio-only, or an .m4a output, to join audio)", file: clips[0].url.path)
        }
        if audioOnly, let silent = zip(clips, assets).first(where: { $1.tracks(withMediaType: .audio).isEmpty }) {
            // Joining sound: a clip without any is refused, not dropped without a word.
            throw MediaError(.invalidData, "has no sound, and --audio-only joins the clips' sound: leave it out, or join it with its video",
                             file: silent.0.url.path)
        }
        let allTracks = args.flags.contains("--all-tracks")
        if let fade = args.options["--crossfade"] {
            guard mode != .never, !allTracks else { throw UsageError(message: "--crossfade re-encodes; it cannot go with --reencode never or --all-tracks") }
            return try runCrossfade(fade, clips, assets, ranges, preset: preset, audioOnly: audioOnly, to: outputURL, args)
        }
        var reencode = mode == .always
        if !type.hasEditLists, !audioOnly, !reencode {
            (ranges, reencode) = try cutAtSyncSamples(clips, assets, ranges, type: type, never: mode == .never)
        }
        let composition = try build(clips, assets, ranges, audioOnly: audioOnly, allTracks: allTracks)
        composition.writesWithoutEditLists = !type.hasEditLists
        let asset = try composition.makeAsset()
        // Segments that cannot share a track, and (into a file that does not keep ISO entries as
        // they are) codecs the file cannot hold: `auto` re-encodes for either.
        let unfit = asset.tracks.filter { [.video, .audio].contains($0.mediaType) && !type.keepsBoxes && !type.canHold($0.codecName) }
        let problems = asset.tracks.compactMap { t in t.passthroughProblem.map { "track \(t.trackID): \($0)" } }
            + unfit.map { "track \($0.trackID): .\(type.rawValue) files cannot hold \($0.codecName)" }
        if !problems.isEmpty, !reencode {
            guard mode != .never else { throw MediaError(.unsupported, "the clips cannot be copied (--reencode never): " + problems.joined(separator: "; ")) }
            for p in problems { Terminal.error("note: re-encoding every clip: \(p)\n") }
            reencode = true
        }
        let session = ExportSession(asset: asset, preset: reencode ? preset : .passthrough)
        if !assets[0].metadata.isEmpty { session.metadata = assets[0].metadata }   // the first clip's date, place, title
        if reencode {
            let firstVideo = assets.lazy.compactMap { $0.tracks(withMediaType: .video).first }.first
            session.videoSize = firstVideo?.naturalSize
            // The first clip's frame rate, constant: other clips' pictures repeated or left out.
            if let rate = firstVideo?.nominalFrameRate, rate > 0 { session.videoFrameRate = ConcatCommand.standardRate(Double(rate)) }
            if let audio = assets.lazy.compactMap({ $0.tracks(withMediaType: .audio).first?.formatDescriptions.first }).first {
                session.audioSampleRate = audio.sampleRate.flatMap { $0.rounded(saturating: Int.self, .towardZero) }
                session.audioChannelCount = audio.channelCount
            }
        }
        return try JobSupport.export(session, to: outputURL, force: args.flags.contains("--force"), faststart: args.flags.contains("--faststart"))
    }

    /// `--crossfade`: the clips overlapped and dissolved, everything re-encoded.
    static func runCrossfade(_ fade: String, _ clips: [Clip], _ assets: [Asset], _ ranges: [TimeRange], preset: ExportPreset,
                             audioOnly: Bool, to outputURL: URL, _ args: ParsedArguments) throws -> Int32 {
        guard let seconds = Double(fade), seconds > 0, seconds <= 60 else { throw UsageError(message: "--crossfade takes seconds (0 to 60), not '\(fade)'") }
        let fadeJob = try crossfade(clips, assets, ranges, seconds: seconds, audioOnly: audioOnly)
        let session = ExportSession(asset: try fadeJob.composition.makeAsset(), preset: preset == .passthrough ? .highestQuality : preset)
        session.videoComposition = fadeJob.videoComposition
        session.audioMix = fadeJob.audioMix
        if !assets[0].metadata.isEmpty { session.metadata = assets[0].metadata }
        if let audio = assets.lazy.compactMap({ $0.tracks(withMediaType: .audio).first?.formatDescriptions.first }).first {
            session.audioSampleRate = audio.sampleRate.flatMap { $0.rounded(saturating: Int.self, .towardZero) }
            session.audioChannelCount = audio.channelCount
        }
        return try JobSupport.export(session, to: outputURL, force: args.flags.contains("--force"), faststart: args.flags.contains("--faststart"))
    }

    /// Matroska and TS have no edit lists: a copy is exact only when every cut is at a sync
    /// sample. `never`: the cuts move there (with a warning each); else the clips are re-encoded.
    static func cutAtSyncSamples(_ clips: [Clip], _ assets: [Asset], _ ranges: [TimeRange], type: FileType,
                                 never: Bool) throws -> ([TimeRange], Bool) {
        var ranges = ranges
        var reencode = false
        // Matroska and TS have no edit lists: a copy is exact only when every cut is at a sync sample.
        var snapped = ranges
        for k in clips.indices {
            guard let video = assets[k].tracks(withMediaType: .video).first(where: \.isEnabled) ?? assets[k].tracks(withMediaType: .video).first else { continue }
            let start = try video.syncSampleTime(atOrBefore: ranges[k].start) ?? ranges[k].start
            let end = ranges[k].end >= assets[k].duration ? ranges[k].end : (try video.syncSampleTime(atOrAfter: ranges[k].end) ?? assets[k].duration)
            snapped[k] = TimeRange(start: start, end: end)
        }
        let moved = clips.indices.filter { snapped[$0] != ranges[$0] }
        if !moved.isEmpty, never {
            for k in moved {
                let earlier = String(format: "%.3f", (ranges[k].start - snapped[k].start).seconds)
                let later = String(format: "%.3f", (snapped[k].end - ranges[k].end).seconds)
                let span = String(format: "%.3f–%.3f", snapped[k].start.seconds, snapped[k].end.seconds)
                let line = "warning: \(clips[k].text): cut at sync samples, \(span) s (start \(earlier) s earlier, end \(later) s later): "
                    + ".\(type.rawValue) files have no edit lists\n"
                Terminal.error(line)
            }
            ranges = snapped
        } else if !moved.isEmpty {
            Terminal.error("note: re-encoding: \(clips[moved[0]].text) is not cut at sync samples, and .\(type.rawValue) files have no edit lists to hide the rest\n")
            reencode = true
        }
        return (ranges, reencode)
    }

    /// A measured frame rate as the nominal one it stands for (24.975 → 25; 29.97 stays).
    static func standardRate(_ measured: Double) -> Double {
        let nominal = [23.976, 24, 25, 29.97, 30, 48, 50, 59.94, 60, 120]
        return nominal.first { abs($0 - measured) / $0 < 0.005 } ?? measured
    }

    /// The composition of `clips`: each clip's chosen tracks over its range, one after the other.
    static func build(_ clips: [Clip], _ assets: [Asset], _ ranges: [TimeRange], audioOnly: Bool, allTracks: Bool) throws -> MutableComposition {
        let composition = MutableComposition()
        // The tracks joined: (type, language) keys every clip has, or the enabled video and audio.
        let keys: [(MediaType, String?)]
        if allTracks {
            // (Chapter tracks are left out: the chapters of joined clips are not joined.)
            let per = assets.map { a in
                a.tracks.filter { t in
                    [.video, .audio, .subtitle, .text].contains(t.mediaType) && !a.tracks.contains { $0.associations[.chapterList]?.contains(t.trackID) == true }
                }.map { ($0.mediaType, $0.languageCode) }
            }
            // Every track of the first clip whose kind (type and language) each clip has as often.
            keys = per[0].filter { k in per.allSatisfy { p in p.filter { $0 == k }.count >= per[0].filter { $0 == k }.count } }
        } else {
            keys = (audioOnly ? [] : [(MediaType.video, nil)]) + [(.audio, nil)]
        }
        // The n-th track of a key in each clip goes into the n-th composition track of that key.
        func nth(_ i: Int) -> Int { keys[..<i].filter { $0 == keys[i] }.count }
        func source(_ asset: Asset, _ i: Int) -> AssetTrack? {
            let candidates = asset.tracks.filter { t in
                t.mediaType == keys[i].0 && (!allTracks || t.languageCode == keys[i].1)
                    && !asset.tracks.contains { $0.associations[.chapterList]?.contains(t.trackID) == true }
            }
            if !allTracks { return candidates.first { $0.isEnabled } ?? candidates.first }
            let n = nth(i)
            return n < candidates.count ? candidates[n] : nil
        }
        var targets: [CompositionTrack] = []
        for (i, (type, language)) in keys.enumerated() {
            guard let t = composition.addMutableTrack(withMediaType: type) else { continue }
            t.languageCode = language
            if allTracks, let model = source(assets[0], i) {
                t.isEnabled = model.isEnabled
                t.alternateGroup = model.alternateGroup
                t.extendedLanguageTag = model.extendedLanguageTag
            }
            targets.append(t)
        }
        var at = MediaTime.zero
        for (k, asset) in assets.enumerated() {
            let range = ranges[k]
            for (i, target) in targets.enumerated() {
                if let track = source(asset, i), range.start < track.timeRange.end {
                    try target.insertTimeRange(range, of: track, at: at)
                } else {
                    target.insertEmptyTimeRange(TimeRange(start: at, duration: range.duration))
                }
            }
            at = at + range.duration
        }
        for t in composition.tracks where t.segments.allSatisfy(\.isEmpty) { composition.removeTrack(t) }
        return composition
    }
}

/// What `export`, `concat` and `merge` share: the preset option, the output check, and running
/// an export with progress and Ctrl-C.
enum JobSupport {
    static func preset(_ name: String?, default fallback: ExportPreset = .highestQuality) throws -> ExportPreset {
        guard let name else { return fallback }
        guard let p = ExportPreset(rawValue: name) else {
            throw UsageError(message: "no preset named '\(name)'; the presets are " + ExportPreset.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return p
    }

    /// Whether `--progress json` was given (the only value it takes).
    static func jsonProgress(_ args: ParsedArguments) throws -> Bool {
        guard let value = args.options["--progress"] else { return false }
        guard value == "json" else { throw UsageError(message: "--progress takes 'json'") }
        return true
    }

    /// Refuses an output that is one of the job's inputs (by device and inode, so also through
    /// `../`, a symbolic or a hard link; `--force` or not), then one that exists without `--force`.
    /// - Parameter inputs: every file the job reads, as given (a clip's `#t=` part is ignored).
    static func checkOutput(_ url: URL, force: Bool, inputs: [String]) throws {
        let files = inputs.flatMap { [$0, String($0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])] }
        try FileIdentity.checkOutput(url.path, isNotAnyOf: files)
        if !force && FileManager.default.fileExists(atPath: url.path) {
            throw MediaError(.invalidOperation, "already exists (use --force to replace it)", file: url.path)
        }
    }

    /// Runs `session` into `url` with a progress line (`json`: JSON lines); 128 + the signal on
    /// SIGINT, SIGTERM or SIGHUP (nothing left).
    static func export(_ session: ExportSession, to url: URL, force: Bool, faststart: Bool, json: Bool = false) throws -> Int32 {
        session.outputURL = url
        session.replacesExistingFile = force
        session.shouldOptimizeForNetworkUse = faststart
        let reporter = ProgressReport(mediaSeconds: session.exportedRange.duration.seconds, json: json)
        if reporter.isEnabled { session.progressHandler = { reporter.update($0) } }
        do {
            try Signals.whileRunning(cancel: { [weak session] in session?.cancelExport() }) { try session.run() }
            reporter.finish()
        } catch let e as MediaError where e.code == .cancelled {
            reporter.clear()
            guard let status = Signals.reportInterruption(of: url.path) else { throw e }
            return status
        } catch {
            reporter.clear()
            throw error
        }
        for warning in session.warnings { Terminal.error("warning: \(warning)\n") }
        let written = try Asset(url: url)
        let tracks = written.tracks.map { t in "\(t.mediaType) \(t.codecName)" + (t.naturalSize.map { " \($0)" } ?? "") }
        print("\(url.path): \(session.preset == .passthrough ? (session.audioMix == nil ? "copied" : "copied, audio mixed") : "re-encoded (\(session.preset))"), "
              + "\(String(format: "%.3f", written.duration.seconds)) s, \(tracks.joined(separator: ", "))")
        return ExitCode.success
    }
}
