import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// Reads an asset's samples, one `AssetReaderTrackOutput` per track.
///
/// Passthrough only (`outputSettings: nil`): samples come out as stored — bytes,
/// decode and presentation times, durations, sync and dependency flags, and the
/// track's original format description. Times are media times, in the track's
/// timescale; the track's `segments` (its edit list) map them to the movie.
///
/// ```swift
/// let reader = try AssetReader(asset: asset)
/// let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: nil)
/// reader.add(output)
/// reader.startReading()
/// while let sample = output.copyNextSampleBuffer() { … }
/// if reader.status == .failed { throw reader.error! }
/// ```
public final class AssetReader: @unchecked Sendable {
    public enum Status: Sendable, Equatable {
        case unknown, reading, completed, failed, cancelled
    }

    public let asset: Asset
    private let lock = NSLock()
    private var _outputs: [AssetReaderTrackOutput] = []
    private var _status: Status = .unknown
    private var _error: MediaError?
    private var _timeRange: TimeRange = .everything
    /// The source of MP4/MOV assets.
    let file: ReadOnlyFile?
    let movie: MovieFile?
    /// The libavformat input of other assets, opened when reading starts.
    private(set) var demuxer: PacketDemuxer?
    private var _warnings: [String] = []

    /// Makes a reader for `asset`.
    public init(asset: Asset) throws {
        self.asset = asset
        if case let .isobmff(movie, file) = asset.source {
            self.file = file
            self.movie = movie
        } else {
            self.file = nil
            self.movie = nil
        }
    }

    /// What was wrong with the input but read anyway (damaged packets of MKV, TS and other
    /// containers read through libavformat, and what FFmpeg said of them); set when reading ends.
    public var warnings: [String] { lock.withLock { _warnings } }

    public var outputs: [AssetReaderTrackOutput] { lock.withLock { _outputs } }
    public var status: Status { lock.withLock { _status } }
    /// Why reading failed, when `status` is `.failed`.
    public var error: MediaError? { lock.withLock { _error } }

    /// The span of the movie timeline to read; set before `startReading()`. Reading starts at the
    /// sync sample at or before the start, so that what is read can be decoded.
    public var timeRange: TimeRange {
        get { lock.withLock { _timeRange } }
        set { lock.withLock { if _status == .unknown { _timeRange = newValue } } }
    }

    /// Whether `output` can be added: a track of this asset, not yet added, before reading starts.
    public func canAdd(_ output: AssetReaderTrackOutput) -> Bool {
        lock.withLock {
            _status == .unknown && output.reader == nil && output.outputSettings == nil
                && asset.tracks.contains { $0 === output.track }
        }
    }

    /// Adds `output`; see `canAdd(_:)`.
    public func add(_ output: AssetReaderTrackOutput) {
        guard canAdd(output) else { return }
        lock.withLock {
            output.reader = self
            _outputs.append(output)
        }
    }

    /// Starts reading. Returns `false` (with `status` `.failed` and `error` set) when reading cannot start.
    @discardableResult
    public func startReading() -> Bool {
        let (outputs, range): ([AssetReaderTrackOutput], TimeRange) = lock.withLock {
            guard _status == .unknown else { return ([], .zero) }
            _status = .reading
            return (_outputs, _timeRange)
        }
        guard status == .reading else { return false }
        do {
            if movie == nil {
                guard range == .everything else {
                    throw MediaError(.unsupported, "reading a time range of \(asset.format) files is not supported; read all of it")
                }
                _ = FFmpegLog.takeMessages()
                let demuxer = try PacketDemuxer(path: asset.url.path, streams: Set(outputs.compactMap(\.track.streamIndex)))
                lock.withLock { self.demuxer = demuxer }
            }
            for output in outputs { try output.prepare(range: range) }
        } catch {
            fail(error as? MediaError ?? MediaError(.io, "\(error)"))
            return false
        }
        return true
    }

    /// Stops reading; outputs return `nil` from then on.
    public func cancelReading() {
        let outputs = lock.withLock { () -> [AssetReaderTrackOutput] in
            if _status == .reading || _status == .unknown { _status = .cancelled }
            return _outputs
        }
        for o in outputs { o.stop() }
    }

    func fail(_ error: MediaError) {
        let outputs = lock.withLock { () -> [AssetReaderTrackOutput] in
            guard _status == .reading else { return [] }
            _status = .failed
            _error = error.inFile(asset.url.path)
            return _outputs
        }
        for o in outputs { o.stop() }
    }

    func outputDidFinish() {
        lock.withLock {
            if _status == .reading && _outputs.allSatisfy({ $0.isFinished }) {
                _status = .completed
                if let demuxer {
                    for o in _outputs where o.droppedPackets > 0 {
                        _warnings.append("track \(o.track.trackID): \(o.droppedPackets) packet\(o.droppedPackets == 1 ? "" : "s") whose decode time went back \(o.droppedPackets == 1 ? "was" : "were") left out")
                    }
                    let damaged = demuxer.corruptPacketCount
                    if damaged > 0 { _warnings.append("\(damaged) damaged packet\(damaged == 1 ? " was" : "s were") copied as read") }
                    // Repeated messages once, with a count; at most 20 in all.
                    var lines: [(String, Int)] = []
                    for m in FFmpegLog.takeMessages() {
                        if let i = lines.firstIndex(where: { $0.0 == m }) { lines[i].1 += 1 } else { lines.append((m, 1)) }
                    }
                    _warnings += lines.prefix(20).map { "ffmpeg: \($0.0)" + ($0.1 > 1 ? " (\($0.1) times)" : "") }
                    if lines.count > 20 { _warnings.append("ffmpeg: … and \(lines.count - 20) other messages") }
                }
            }
        }
    }
}

/// Hands out the samples of one track, in decode order.
public final class AssetReaderTrackOutput: @unchecked Sendable {
    public let track: AssetTrack
    /// `nil`: samples pass through as stored (the only mode so far).
    public let outputSettings: [String: String]?
    /// `true` (the default): each sample's bytes are read into memory. `false`: samples refer to
    /// their bytes in the file, read only when `data` is asked for — a writer copies them file
    /// to file without reading them (what `SamplePipe.mirroring` uses). Set before reading.
    public var alwaysCopiesSampleData = true
    weak var reader: AssetReader?

    private let lock = NSLock()
    private var iterator: SampleIterator?
    /// The source file, once reading has started.
    private var file: ReadOnlyFile?
    private var endDecodeTime: Int64 = .max
    /// Where a one-segment edit list ends the media (audio only): samples past it are trimmed.
    private var editEnd: Int64?
    private var finished = false
    private var window = Data()
    private var windowStart: UInt64 = 0
    private var formats: [FormatDescription] = []
    /// Samples of a libavformat stream.
    private var timeline: PacketTimeline?
    private var demuxer: PacketDemuxer?
    /// Largest single read: chunks bigger than this are read in pieces.
    static let maximumRead: UInt64 = 4 << 20

    public init(track: AssetTrack, outputSettings: [String: String]? = nil) {
        self.track = track
        self.outputSettings = outputSettings
    }

    var isFinished: Bool { lock.withLock { finished } }
    /// Packets of a libavformat stream left out because their decode time went back.
    var droppedPackets: Int { lock.withLock { timeline?.droppedPackets ?? 0 } }

    /// Ends this output's samples (the reader was cancelled or failed).
    func stop() {
        let d: PacketDemuxer? = lock.withLock {
            finished = true
            return demuxer
        }
        if let d, let s = track.streamIndex { d.close(stream: s) }
    }

    /// Positions the iterator at the first sample needed for `range`.
    func prepare(range: TimeRange) throws {
        guard let reader else { return }
        if let stream = track.streamIndex, let details = track.stream, let demuxer = reader.demuxer {
            var t = PacketTimeline(stream: stream, timeBase: details.timeBase, conversion: details.conversion,
                                   format: track.formatDescriptions[0])
            t.initialPadding = details.initialPadding
            t.reordersFrames = details.reordersFrames
            lock.withLock {
                timeline = t
                self.demuxer = demuxer
            }
            return
        }
        guard let iso = track.isoTrack, let movie = reader.movie, let file = reader.file else { return }
        let trex = movie.trackExtends[iso.trackID]
        var it = SampleIterator(track: iso, trackExtends: trex)
        formats = track.formatDescriptions
        let edits = track.segments.filter { !$0.isEmpty }
        if track.mediaType == .audio, edits.count == 1, let source = edits[0].source, source.end.isNumeric {
            editEnd = source.end.converted(to: track.naturalTimeScale, rounding: .up).value
        }
        if range != .everything {
            let scale = track.naturalTimeScale
            // Movie time → media time through the first non-empty edit.
            var shift = MediaTime.zero
            if let first = track.segments.first(where: { !$0.isEmpty }), let source = first.source {
                shift = source.start - first.target.start
            }
            let start = (range.start + shift).converted(to: scale, rounding: .down)
            let end = range.end.isNumeric ? (range.end + shift).converted(to: scale, rounding: .up).value : .max
            // Start at the last sync sample at or before the first sample that ends after `start`.
            var probe = it
            var index = 0, syncIndex = 0
            while let s = probe.next() {
                if s.isSync { syncIndex = index }
                if s.presentationTime + Int64(s.duration) > start.value { break }
                index += 1
            }
            for _ in 0..<syncIndex { _ = it.next() }
            endDecodeTime = end
        }
        lock.withLock {
            iterator = it
            self.file = file
        }
    }

    /// The next sample in decode order, or `nil` at the end, after `cancelReading()`, or on failure
    /// (then the reader's `status` is `.failed` and its `error` says why).
    public func copyNextSampleBuffer() -> SampleBuffer? {
        lock.lock()
        defer { lock.unlock() }
        if timeline != nil { return nextDemuxedSample() }
        guard !finished, iterator != nil, let file else { return nil }
        guard let s = iterator!.next(), s.decodeTime < endDecodeTime else {
            end()
            return nil
        }
        do {
            guard s.offset <= file.size, UInt64(s.size) <= file.size - s.offset else {
                throw MediaError(.invalidData, "sample at offset \(s.offset) (\(s.size) bytes) lies past the end of the file",
                                 location: "track \(track.trackID)")
            }
            guard s.descriptionIndex >= 1, Int(s.descriptionIndex) <= formats.count else {
                throw MediaError(.invalidData, "sample description index \(s.descriptionIndex) does not exist",
                                 location: "track \(track.trackID)")
            }
            let storage: SampleBuffer.Storage = alwaysCopiesSampleData
                ? .bytes(try read(s, file: file))
                : .file(SampleBuffer.FileRange(file: file, offset: s.offset, length: Int(s.size)))
            let scale = track.naturalTimeScale
            var sample = SampleBuffer(
                data: Data(),
                decodeTime: MediaTime(value: s.decodeTime, timescale: scale),
                presentationTime: MediaTime(value: s.presentationTime, timescale: scale),
                duration: MediaTime(value: Int64(s.duration), timescale: scale),
                isSync: s.isSync, dependency: s.dependency.map(SampleBuffer.Dependency.init(rawValue:)),
                formatDescription: formats[Int(s.descriptionIndex) - 1])
            sample.storage = storage
            if let end = editEnd, s.presentationTime < end, s.presentationTime + Int64(s.duration) > end {
                sample.trimDurationAtEnd = MediaTime(value: s.presentationTime + Int64(s.duration) - end, timescale: scale)
            }
            return sample
        } catch {
            end(error)
            return nil
        }
    }

    /// The next sample of a libavformat stream (called with the lock held).
    private func nextDemuxedSample() -> SampleBuffer? {
        guard !finished, let demuxer else { return nil }
        do {
            if let sample = try timeline!.next(from: demuxer) { return sample }
            end()
        } catch {
            end(error)
        }
        return nil
    }

    /// Ends this output's samples (called with the lock held, which is let go meanwhile): the
    /// reader hears that this output finished, or that reading failed with `error`.
    private func end(_ error: Error? = nil) {
        finished = true
        lock.unlock()
        if let error {
            reader?.fail(error as? MediaError ?? MediaError(.io, "\(error)"))
        } else {
            reader?.outputDidFinish()
        }
        lock.lock()
    }

    /// The sample's bytes, from a window of up to 4 MiB read at once along its chunk.
    private func read(_ s: SampleInfo, file: ReadOnlyFile) throws -> Data {
        let size = UInt64(s.size)
        if s.offset < windowStart || s.offset + size > windowStart + UInt64(window.count) {
            let want = max(size, min(s.contiguousBytes, AssetReaderTrackOutput.maximumRead))
            let length = min(want, file.size - s.offset)
            window = try file.readData(at: s.offset, count: Int(length))
            windowStart = s.offset
        }
        let from = Int(s.offset - windowStart)
        return window.subdata(in: from..<(from + Int(size)))
    }
}
