import Dispatch
import Foundation
import MediaCore
import ISOBMFF
import Subtitles

/// Anything that hands out sample buffers in decode order: a reader's track output, a subtitle reader…
public protocol SampleBufferSource: AnyObject, Sendable {
    /// The next sample, or `nil` when there are no more (or reading failed).
    func copyNextSampleBuffer() -> SampleBuffer?
}

extension AssetReaderTrackOutput: SampleBufferSource {}

/// The plumbing between sources and a writer, as in AVFoundation's sample code: for each
/// (source, input) pair a serial queue that copies samples into the input while it is ready,
/// marks it finished at the end, and leaves a `DispatchGroup`; when the group is empty the
/// writer finishes. Reader and writer errors end the run; `cancel()` stops it and leaves no output.
///
/// ```swift
/// let pipe = try SamplePipe.mirroring(asset, to: URL(fileURLWithPath: "copy.mp4"))
/// pipe.progressHandler = { print(Int($0 * 100), "%") }
/// try pipe.run()
/// ```
public final class SamplePipe: @unchecked Sendable {
    public let reader: AssetReader?
    public let writer: AssetWriter
    /// Called with the fraction done (0…1), from the pipe's queues.
    public var progressHandler: (@Sendable (Double) -> Void)?

    private struct Connection {
        let source: any SampleBufferSource
        let input: AssetWriterInput
        let queue: DispatchQueue
        /// Expected media duration, for progress.
        let duration: MediaTime?
    }

    private let lock = NSLock()
    private var connections: [Connection] = []
    private var isCancelled = false
    private var progress: [Double] = []
    private var left: [Bool] = []
    private let group = DispatchGroup()

    /// The source time the writer's session starts at (the first timestamp of a libavformat
    /// source, which MPEG-TS files put anywhere; 0 otherwise).
    public var sessionStartTime = MediaTime.zero
    /// What the pipe set up could not carry into the output (chapters a container has no place for).
    public private(set) var warnings: [String] = []

    public init(reader: AssetReader?, writer: AssetWriter) {
        self.reader = reader
        self.writer = writer
    }

    /// Feeds `input` from `source` (on its own serial queue) when the pipe runs.
    /// - Parameter duration: how much media the source holds, for `progressHandler`.
    public func connect(_ source: any SampleBufferSource, to input: AssetWriterInput, duration: MediaTime? = nil) {
        lock.withLock {
            let queue = DispatchQueue(label: "splice.pipe.\(connections.count)")
            connections.append(Connection(source: source, input: input, queue: queue, duration: duration))
        }
    }

    /// Runs the pipe to the end and finishes the writer.
    /// - Throws: the reader's or writer's error, or `.cancelled` after `cancel()`; the output is then not created.
    public func run() throws {
        if let reader, !reader.startReading() {
            writer.cancelWriting()
            throw reader.error ?? MediaError(.cancelled, "reading was cancelled")
        }
        guard writer.startWriting() else {
            reader?.cancelReading()
            throw writer.error ?? MediaError(.io, "cannot start writing", file: writer.outputURL.path)
        }
        writer.startSession(atSourceTime: sessionStartTime)
        let connections = lock.withLock { () -> [Connection] in
            progress = Array(repeating: 0, count: self.connections.count)
            left = Array(repeating: false, count: self.connections.count)
            return self.connections
        }
        for (i, c) in connections.enumerated() {
            group.enter()
            c.input.requestMediaDataWhenReady(on: c.queue) { [self] in pump(i, c) }
        }
        group.wait()
        // Let each queue finish the block that left the group, so nothing of this run is still
        // running (or holding the writer) when `run()` returns.
        for c in connections { c.queue.sync {} }
        try finishRun()
    }

    /// Runs the pipe without blocking the caller; see `run()`.
    public func run() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                do { try self.run(); c.resume() } catch { c.resume(throwing: error) }
            }
        }
    }

    /// Stops the run: the reader and writer are cancelled and no output is left.
    public func cancel() {
        lock.withLock { isCancelled = true }
        reader?.cancelReading()
        writer.cancelWriting()
    }

    private var cancelled: Bool { lock.withLock { isCancelled } }

    private func pump(_ i: Int, _ c: Connection) {
        while c.input.isReadyForMoreMediaData && !cancelled {
            guard let sample = c.source.copyNextSampleBuffer() else {
                c.input.markAsFinished()
                report(i, 1)
                leave(i)
                return
            }
            if !c.input.append(sample) { break }
            if progressHandler != nil, let d = c.duration, d > .zero {
                report(i, min(1, (sample.decodeTime + sample.duration).seconds / d.seconds))
            }
        }
        let readerStopped = reader.map { $0.status == .failed || $0.status == .cancelled } ?? false
        if cancelled || writer.status != .writing || readerStopped {
            leave(i)
        }
    }

    private func leave(_ i: Int) {
        let first: Bool = lock.withLock {
            guard !left[i] else { return false }
            left[i] = true
            return true
        }
        if first { group.leave() }
    }

    private func report(_ i: Int, _ fraction: Double) {
        guard let handler = progressHandler else { return }
        let total: Double = lock.withLock {
            progress[i] = fraction
            return progress.reduce(0, +) / Double(max(1, progress.count))
        }
        handler(total)
    }

    private func finishRun() throws {
        if cancelled {
            writer.cancelWriting()
            throw MediaError(.cancelled, "cancelled", file: writer.outputURL.path)
        }
        if let reader, reader.status == .failed || reader.status == .cancelled {
            writer.cancelWriting()
            throw reader.error ?? MediaError(.cancelled, "reading was cancelled")
        }
        guard writer.status == .writing else {
            throw writer.error ?? MediaError(.cancelled, "writing was cancelled", file: writer.outputURL.path)
        }
        writer.finish()
        guard writer.status == .completed else {
            throw writer.error ?? MediaError(.cancelled, "writing was cancelled", file: writer.outputURL.path)
        }
    }
}

extension SamplePipe {
    /// A pipe that copies every track of `asset` into a new file with the same structure:
    /// one input per track, the alternate groups (same numbers, same default tracks), every
    /// track association (IDs remapped), languages, `elng`, names, enabled flags, edit lists,
    /// and — from MP4/MOV sources — the boxes Splice does not interpret.
    public static func mirroring(_ asset: Asset, to outputURL: URL, fileType: FileType? = nil) throws -> SamplePipe {
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        try checkWritable(asset, to: writer)
        let pipe = SamplePipe(reader: reader, writer: writer)
        pipe.mirror(asset)
        return pipe
    }

    /// Checks that every track `mirrorTracks` copies can be written to `writer`'s file type.
    /// - Throws: `.unsupported` naming the track, its codec and why (what MP4 holds, or what could
    ///   not be read of its configuration).
    static func checkWritable(_ asset: Asset, to writer: AssetWriter) throws {
        guard writer.fileType.isISO else { return }
        for track in mirroredTracks(asset) {
            guard let format = track.formatDescriptions.first, format.sampleEntry == nil,
                  SubtitlePacketFormat(codecName: format.codecName ?? "") == nil else { continue }
            let reason = track.stream?.isoProblem ?? "no ISO sample description"
            throw MediaError(.unsupported, "track \(track.trackID) (\(track.codecName)) cannot be written to \(writer.fileType.rawValue): \(reason)",
                             file: asset.url.path)
        }
    }

    /// QuickTime text tracks that are chapter lists (targets of `chap`), which become a
    /// container's own chapters outside MP4/MOV.
    static func chapterTracks(_ asset: Asset) -> [AssetTrack] {
        let targets = Set(asset.tracks.flatMap { $0.associations[.chapterList] ?? [] })
        return asset.tracks.filter { targets.contains($0.trackID) && $0.mediaType.isLegible && $0.isoTrack != nil }
    }

    /// The chapters of a chapter track: one per non-empty sample.
    static func chapters(of track: AssetTrack) -> [(title: String, start: MediaTime, duration: MediaTime)] {
        guard let asset = track.asset, let reader = try? AssetReader(asset: asset) else { return [] }
        let output = AssetReaderTrackOutput(track: track)
        reader.add(output)
        guard reader.startReading() else { return [] }
        var result: [(String, MediaTime, MediaTime)] = []
        var shift = MediaTime.zero
        if let first = track.segments.first(where: { !$0.isEmpty }), let source = first.source { shift = first.target.start - source.start }
        while let s = output.copyNextSampleBuffer() {
            let title = TX3G.decode(s.data).text
            if !title.isEmpty { result.append((title, s.presentationTime + shift, s.duration)) }
        }
        return result
    }

    /// The tracks a mirror copies: all of them, but the attachments (fonts, covers) of libavformat sources.
    static func mirroredTracks(_ asset: Asset) -> [AssetTrack] {
        asset.tracks.filter { $0.isoTrack != nil || $0.mediaType != .data }
    }

    /// Adds an output, an input and a connection for every track of `asset`, and its groups
    /// (see `mirroring`).
    /// - Returns: the inputs, in track order.
    @discardableResult
    public func mirror(_ asset: Asset) -> [AssetWriterInput] {
        let m = mirrorTracks(asset)
        for g in m.groups { writer.add(g) }
        return m.inputs
    }

    /// What `mirrorTracks` made: inputs in track order (and by source track ID) and the source's
    /// groups as writer groups, not yet added — so that a caller can add tracks to them first.
    public struct Mirrored {
        public var inputs: [AssetWriterInput]
        public var inputsByTrackID: [Int: AssetWriterInput]
        /// One per `Asset.trackGroups` entry, in the same order.
        public var groups: [AssetWriterInputGroup]
    }

    /// Like `mirror(_:)`, but returns the groups instead of adding them to the writer.
    public func mirrorTracks(_ asset: Asset) -> Mirrored {
        if case let .isobmff(movie, _) = asset.source {
            if movie.movieHeader.timescale <= UInt32(Int32.max) { writer.movieTimeScale = Int32(movie.movieHeader.timescale) }
            if FileType(movie.fileType) == writer.fileType { writer.passthroughFileType = movie.fileType }
            writer.passthroughMovieHeader = movie.movieHeader
            writer.passthroughMovieBoxes = movie.otherMovieBoxes
        }
        if case .ffmpeg = asset.source { sessionStartTime = asset.startTime }
        var inputs: [Int: AssetWriterInput] = [:]
        var ordered: [AssetWriterInput] = []
        let mirrored = SamplePipe.mirroredTracks(asset)
        for track in asset.tracks where !mirrored.contains(where: { $0 === track }) {
            warnings.append("track \(track.trackID) (\(track.codecName)\(track.name.map { ", " + $0 } ?? "")) is left out: attachments and data streams are not copied")
        }
        let chapterTracks = writer.fileType.isISO ? [] : SamplePipe.chapterTracks(asset)
        for track in chapterTracks {
            if writer.fileType.muxerName == "matroska" || writer.fileType.muxerName == "webm" {
                writer.chapters += SamplePipe.chapters(of: track)
            } else {
                warnings.append("track \(track.trackID) (chapters) is left out: \(writer.fileType.rawValue) files have no chapters")
            }
        }
        for track in mirrored where !chapterTracks.contains(where: { $0 === track }) {
            let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
            output.alwaysCopiesSampleData = false
            reader?.add(output)
            let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                         sourceFormatHint: track.formatDescriptions.first)
            input.languageCode = track.languageCode
            input.extendedLanguageTag = track.extendedLanguageTag
            input.name = track.name
            input.marksOutputTrackAsEnabled = track.isEnabled
            input.mediaTimeScale = track.naturalTimeScale
            input.isForced = track.isForced
            input.mediaCharacteristics = Set([MediaCharacteristic.describesMusicAndSoundForAccessibility, .describesVideoForAccessibility]
                .filter(track.hasMediaCharacteristic))
            // Audio from other containers is timed in samples in MP4 (its timestamps, often in
            // milliseconds, move by less than a tick).
            if track.isoTrack == nil, writer.fileType.isISO, track.mediaType == .audio,
               let rate = track.formatDescriptions.first?.sampleRate, rate >= 1, rate <= Double(Int32.max) {
                input.mediaTimeScale = Int32(rate)
            }
            input.segments = track.segments.isEmpty ? nil : track.segments
            if let iso = track.isoTrack {
                input.passthrough = TrackPassthrough(
                    header: iso.header, mediaHeader: iso.mediaHeader, handler: iso.handler,
                    mediaInformationBoxes: iso.mediaInformationBoxes, otherTrackBoxes: iso.otherTrackBoxes,
                    otherMediaBoxes: iso.otherMediaBoxes, sampleTableBoxes: iso.sampleTable.otherBoxes,
                    expectedSampleCount: iso.sampleCount)
            }
            writer.add(input)
            connect(output, to: input, duration: track.timeRange.duration)
            inputs[track.trackID] = input
            ordered.append(input)
        }
        var groups = asset.trackGroups.map { group in
            AssetWriterInputGroup(inputs: group.tracks.compactMap { inputs[$0.trackID] },
                                  defaultInput: group.defaultTrack.flatMap { inputs[$0.trackID] },
                                  preferredAlternateGroup: group.alternateGroup)
        }
        if case .ffmpeg = asset.source {
            // Matroska's default flags become groups the way players expect them: the audio tracks
            // one group with its default (else first) track enabled, the subtitle tracks another with
            // its default track enabled, or none.
            for type in [MediaType.audio, .subtitle] {
                let members = mirrored.filter { $0.mediaType == type }
                guard !members.isEmpty else { continue }
                let chosen = members.first { $0.isDefault } ?? (type == .audio ? members.first : nil)
                groups.append(AssetWriterInputGroup(inputs: members.compactMap { inputs[$0.trackID] },
                                                    defaultInput: chosen.flatMap { inputs[$0.trackID] }))
            }
        }
        if writer.fileType.isISO, !asset.isISOBMFF, !asset.chapters.isEmpty {
            // Container chapters become a QuickTime chapter track, referred to by `chap` from
            // every audio and video track (as QuickTime and ffmpeg write them).
            let source = ChapterSamples(asset.chapters)
            let input = AssetWriterInput(mediaType: .text, outputSettings: nil, sourceFormatHint: source.formatDescription)
            input.marksOutputTrackAsEnabled = false
            input.name = "Chapters"
            input.mediaTimeScale = 1000
            writer.add(input)
            connect(source, to: input, duration: asset.duration)
            for other in ordered where other.mediaType == .audio || other.mediaType == .video {
                other.addTrackAssociation(withTrackOf: input, type: .chapterList)
            }
            ordered.append(input)
        }
        for track in asset.tracks {
            guard let input = inputs[track.trackID] else { continue }
            for type in track.availableTrackAssociationTypes {
                for id in track.associations[type] ?? [] {
                    if let target = inputs[id] { input.addTrackAssociation(withTrackOf: target, type: type) }
                }
            }
        }
        return Mirrored(inputs: ordered, inputsByTrackID: inputs, groups: groups)
    }
}

/// The samples of a QuickTime chapter track: one per chapter (a 16-bit length and the UTF-8
/// title), gaps between chapters as empty samples.
final class ChapterSamples: SampleBufferSource, @unchecked Sendable {
    /// A QuickTime text sample entry, as QuickTime and ffmpeg write it for chapters. (Made anew
    /// each time: a `Data` kept in a global is reported as a leak by LeakSanitizer.)
    static var sampleEntry: Data { Data([
        0x00, 0x00, 0x00, 0x3B, 0x74, 0x65, 0x78, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x0D, 0x66, 0x74, 0x61, 0x62, 0x00, 0x01, 0x00, 0x01, 0x00,
    ]) }
    let formatDescription = FormatDescription(mediaType: .text, codec: "text", sampleEntry: ChapterSamples.sampleEntry)
    private let lock = NSLock()
    private var samples: [(text: String, start: MediaTime, duration: MediaTime)] = []

    init(_ chapters: [Asset.Chapter]) {
        var t = MediaTime.zero
        for c in chapters.sorted(by: { $0.timeRange.start < $1.timeRange.start }) {
            let start = max(c.timeRange.start, t)
            if start > t { samples.append(("", t, start - t)) }
            let end = max(start, c.timeRange.end)
            samples.append((c.title, start, end - start))
            t = end
        }
    }

    func copyNextSampleBuffer() -> SampleBuffer? {
        lock.withLock {
            guard !samples.isEmpty else { return nil }
            let s = samples.removeFirst()
            let utf8 = Array(s.text.utf8.prefix(0xFFFF))
            let data = Data([UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8)
            return SampleBuffer(data: data, decodeTime: s.start, presentationTime: s.start, duration: s.duration,
                                isSync: true, formatDescription: formatDescription)
        }
    }
}
