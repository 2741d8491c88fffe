import Foundation
import ISOBMFF
import MediaCore
import Subtitles

/// HLS and DASH packaging: one set of CMAF media — a file per track, cut into segments where
/// the lead video track's sync samples start them — referenced by a multivariant HLS playlist
/// and a DASH MPD, with the movie's structure in both: its alternate groups become HLS
/// `EXT-X-MEDIA` groups and DASH adaptation set groups, enabled tracks the defaults, `forc`
/// targets and forced-only text the forced subtitles, and languages their BCP 47 tags. Several
/// inputs are renditions of one movie (the same timeline; their video segments start together
/// or the package is refused, naming the input).
///
/// ```swift
/// let packager = Packager(inputURLs: [URL(fileURLWithPath: "movie.mp4")],
///                         outputDirectory: URL(fileURLWithPath: "movie-stream"))
/// packager.options.segmentDuration = MediaTime(value: 4, timescale: 1)
/// let package = try packager.run()
/// print(package.files)   // master.m3u8, manifest.mpd, 1-1.m3u8, 1-1/init.mp4, 1-1/1.m4s, …
/// ```
///
/// The directory is made beside its final place and renamed into it whole: a failure or a
/// cancel leaves nothing. File names are Splice's (`<input>-<track ID>`, numbers), never a name,
/// language or title read from an input.
public final class Packager: @unchecked Sendable {   // mutable state is under `state`'s lock
    /// What to write.
    public struct Options: Sendable, Hashable {
        /// Write `master.m3u8` and a media playlist per track.
        public var writesHLS = true
        /// Write `manifest.mpd`.
        public var writesDASH = true
        /// A segment starts at the lead video track's first sync sample at least this long after
        /// the one before (Apple recommends 6 s).
        public var segmentDuration = MediaTime(value: 6, timescale: 1)
        /// One file per track addressed by byte ranges (`EXT-X-BYTERANGE`, DASH on-demand with
        /// `sidx`) instead of a file per segment. HLS subtitles stay WebVTT segment files.
        public var singleFile = false

        /// Both manifests, 6 s segments, a file per segment.
        public init() {}
    }

    /// What was written.
    public struct Package: Sendable {
        /// The directory.
        public var directory: URL
        /// Every file, relative to `directory`, sorted.
        public var files: [String]
        /// `1-1` (input 1's track 1) → its number of segments.
        public var segments: [String: Int]
    }

    /// The inputs: renditions of one movie.
    public let inputURLs: [URL]
    /// The package's directory.
    public let outputDirectory: URL
    /// What to write; set before `run()`.
    public var options = Options()
    /// Replace `outputDirectory` when it exists (after the new one is complete).
    public var replacesExistingDirectory = false
    /// Called with the fraction done, from 0 to 1.
    public var progressHandler: (@Sendable (Double) -> Void)?

    private struct State {
        var cancelled = false
        var pipe: SamplePipe?
        var notes: [String] = []
        var warnings: [String] = []
    }
    private let state = Locked(State())

    /// What was left out, and why (tracks that HLS and DASH do not carry, sound repeated by renditions).
    public var notes: [String] { state.withLock { $0.notes } }
    /// What the manifests or the media could not keep.
    public var warnings: [String] { state.withLock { $0.warnings } }

    /// A packager of `inputURLs` (renditions of one movie) into `outputDirectory`.
    public init(inputURLs: [URL], outputDirectory: URL) {
        self.inputURLs = inputURLs
        self.outputDirectory = outputDirectory
    }

    /// Stops the packaging: `run()` throws `.cancelled` and leaves nothing.
    public func cancel() {
        let pipe = state.withLock { s -> SamplePipe? in
            s.cancelled = true
            return s.pipe
        }
        pipe?.cancel()
    }

    /// Packages the inputs.
    /// - Throws: `.invalidOperation` for no input, no manifest, a segment duration that is not
    ///   positive or an output that exists; what `Asset(url:)` throws; `.unsupported` naming
    ///   what CMAF cannot carry (several edits, a changing sample description) or renditions
    ///   whose segments do not start together; `.cancelled`.
    @discardableResult
    public func run() throws -> Package {
        try checkRequest()
        let parent = outputDirectory.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(outputDirectory.lastPathComponent).packaging-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw MediaError(.io, "cannot make the package's directory beside it: \(error.localizedDescription)", file: parent.path)
        }
        do {
            let package = try build(in: staging)
            try install(staging)
            return Package(directory: outputDirectory, files: package.files, segments: package.segments)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    private func checkRequest() throws {
        guard !inputURLs.isEmpty else { throw MediaError(.invalidOperation, "no input to package") }
        guard options.writesHLS || options.writesDASH else { throw MediaError(.invalidOperation, "neither HLS nor DASH is asked for") }
        guard options.segmentDuration.isNumeric, options.segmentDuration > .zero else {
            throw MediaError(.invalidOperation, "the segment duration is \(options.segmentDuration.seconds) s; it must be positive")
        }
        for url in inputURLs where url.standardizedFileURL.path.hasPrefix(outputDirectory.standardizedFileURL.path + "/") {
            throw MediaError(.invalidOperation, "the input is inside the package's directory, which is replaced", file: url.path)
        }
        if FileManager.default.fileExists(atPath: outputDirectory.path), !replacesExistingDirectory {
            throw MediaError(.invalidOperation, "exists (replace it with --force)", file: outputDirectory.path)
        }
    }

    /// Moves the finished package into place (the old one, with `replacesExistingDirectory`,
    /// out of the way first and removed after).
    private func install(_ staging: URL) throws {
        var old: URL?
        if FileManager.default.fileExists(atPath: outputDirectory.path) {
            let aside = staging.appendingPathExtension("old")
            guard rename(outputDirectory.path, aside.path) == 0 else {
                throw MediaError(.io, "cannot move the old package aside: \(String(cString: strerror(errno)))", file: outputDirectory.path)
            }
            old = aside
        }
        guard rename(staging.path, outputDirectory.path) == 0 else {
            let reason = String(cString: strerror(errno))
            if let old { _ = rename(old.path, outputDirectory.path) }
            throw MediaError(.io, "cannot move the package into place: \(reason)", file: outputDirectory.path)
        }
        if let old { try? FileManager.default.removeItem(at: old) }
    }

    // MARK: Building

    private struct Built { var files: [String]; var segments: [String: Int] }

    private func build(in dir: URL) throws -> Built {
        let assets = try inputURLs.map { try Asset(url: $0) }
        var notes: [String] = []
        var tracks = try PackageTrack.tracks(of: assets, notes: &notes)
        state.withLock { $0.notes += notes }
        guard let lead = tracks.firstIndex(where: { $0.kind == .video && $0.input == 1 && $0.isEnabled })
                ?? tracks.firstIndex(where: { $0.kind == .video }) ?? tracks.firstIndex(where: { $0.kind == .audio }) else {
            throw MediaError(.unsupported, "has no video or sound track to package", file: inputURLs[0].path)
        }
        let duration = assets.map(\.duration).filter(\.isNumeric).max() ?? .zero
        let done = Locked(0)
        let count = Double(max(1, tracks.count)), handler = progressHandler
        let step: @Sendable (Double) -> Void = { f in handler?((Double(done.withLock { $0 }) + f) / count) }

        tracks[lead].media = try writeMedia(tracks[lead], assets[tracks[lead].input - 1], starts: nil, dir, progress: step)
        done.withLock { $0 += 1 }
        let leadMedia = tracks[lead].media!
        let first = leadMedia.segments.first?.start ?? 0
        let starts = leadMedia.segments.dropFirst().map { MediaTime(value: Int64(clamping: $0.start - first), timescale: Int32(clamping: leadMedia.timescale)) }
        for i in tracks.indices where i != lead {
            try checkCancelled()
            if tracks[i].isLegible {
                tracks[i].document = try SubtitleExtraction.document(of: tracks[i].source)
                if options.writesDASH { tracks[i].media = try writeText(tracks[i], within: duration, starts: starts, dir, progress: step) }
            } else {
                do {
                    tracks[i].media = try writeMedia(tracks[i], assets[tracks[i].input - 1], starts: starts, dir, progress: step)
                } catch let e as MediaError where tracks[i].kind == .video && e.message.contains("a CMAF fragment starts with a sync sample") {
                    // (the muxer found no sync sample where a segment of the lead starts)
                    throw MediaError(.unsupported, "track \(tracks[i].source.trackID)'s segments do not start where the package's do "
                                     + "(track \(tracks[lead].source.trackID) of \(inputURLs[tracks[lead].input - 1].lastPathComponent)): "
                                     + e.message.replacingOccurrences(of: "a CMAF fragment starts with a sync sample; ", with: "")
                                     + "; encode the renditions with sync samples at the same times (e.g. a fixed GOP)",
                                     file: inputURLs[tracks[i].input - 1].path)
                }
                if tracks[i].kind == .video { try PackageLayout.checkAligned(tracks[i], with: tracks[lead], file: inputURLs[tracks[i].input - 1].path) }
            }
            done.withLock { $0 += 1 }
            step(0)
        }
        try checkCancelled()
        let layout = PackageLayout(tracks: tracks, singleFile: options.singleFile,
                                   segmentStarts: [0] + starts.map(\.seconds), duration: duration.seconds)
        var files = try layout.writeMedia(into: dir)
        if options.writesHLS { files += try HLSPlaylists(layout: layout).write(into: dir) }
        if options.writesDASH { files += try DASHManifest(layout: layout).write(into: dir) }
        var segments: [String: Int] = [:]
        for t in tracks { segments[t.key] = t.media?.segments.count ?? t.document.map { _ in starts.count + 1 } }
        return Built(files: files.sorted(), segments: segments)
    }

    private func checkCancelled() throws {
        if state.withLock({ $0.cancelled }) { throw MediaError(.cancelled, "the packaging was cancelled") }
    }

    /// Runs `pipe`, cancellable.
    private func run(_ pipe: SamplePipe, progress: @escaping @Sendable (Double) -> Void) throws {
        pipe.progressHandler = progress
        let cancelled = state.withLock { s -> Bool in
            s.pipe = pipe
            return s.cancelled
        }
        defer { state.withLock { $0.pipe = nil } }
        if cancelled { throw MediaError(.cancelled, "the packaging was cancelled") }
        try pipe.run()
        let warnings = pipe.warnings + pipe.writer.warnings
        state.withLock { $0.warnings += warnings }
    }

    /// The writer's settings for a package's track: CMAF, cut at `starts` (nil: the lead, cut
    /// at the segment duration), with a `sidx` for one file per track.
    private func configure(_ writer: AssetWriter, starts: [MediaTime]?) {
        writer.outputFileTypeProfile = .mpeg4CMAFCompliant
        writer.preferredOutputSegmentInterval = options.segmentDuration
        writer.fragmentStarts = starts
        writer.writesSegmentIndex = options.singleFile
    }

    private func writeMedia(_ t: PackageTrack, _ asset: Asset, starts: [MediaTime]?, _ dir: URL,
                            progress: @escaping @Sendable (Double) -> Void) throws -> PackageMedia {
        let url = dir.appendingPathComponent(t.mediaFile)
        let pipe = try SamplePipe.mirroring(asset, to: url, fileType: .mp4, keeping: TrackSelection(including: [.trackID(t.source.trackID)]))
        configure(pipe.writer, starts: starts)
        try run(pipe, progress: progress)
        return try PackageMedia(url: url, mediaType: t.kind)
    }

    /// A text track as `wvtt` in CMAF (DASH's subtitles), from its cues.
    private func writeText(_ t: PackageTrack, within duration: MediaTime, starts: [MediaTime], _ dir: URL,
                           progress: @escaping @Sendable (Double) -> Void) throws -> PackageMedia {
        let url = dir.appendingPathComponent(t.mediaFile)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        configure(writer, starts: starts)
        let pipe = SamplePipe(reader: nil, writer: writer)
        // A cue that spans a segment's start is split there (the same cue in both samples, as
        // ISO/IEC 14496-30 repeats a cue that goes on): the text track's segments start with the video's.
        var document = t.document ?? SubtitleDocument(cues: [])
        let cuts = starts.map { $0.convertScale(1000, method: .nearest).value }
        document.cues = document.cues.flatMap { cue -> [SubtitleCue] in
            var parts: [SubtitleCue] = [], rest = cue
            for cut in cuts where cut > rest.start && cut < rest.end {
                var head = rest
                head.end = cut
                parts.append(head)
                rest.start = cut
            }
            return parts + [rest]
        }
        var track = NewSubtitleTrack(document: document,
                                     language: t.source.languageCode.map { LanguageTag(iso639: $0, bcp47: t.source.extendedLanguageTag) },
                                     name: t.source.name, isForced: t.isForced, isDefault: t.isEnabled)
        track.mp4Format = .wvtt
        track.keepsLateCues = true
        var warnings: [String] = []
        _ = try pipe.addSubtitleInput(track, within: duration, size: nil, warnings: &warnings)
        state.withLock { $0.warnings += warnings }
        try run(pipe, progress: progress)
        return try PackageMedia(url: url, mediaType: .subtitle)
    }
}
