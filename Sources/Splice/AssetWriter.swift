import Dispatch
import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge
import Subtitles

/// Writes sample buffers into a new MP4, MOV, M4A or M4V file, natively, or into a Matroska,
/// WebM, MPEG-TS or AVI file through libavformat.
///
/// The file is written to a temporary file beside `outputURL` and renamed into place by
/// `finishWriting`; a failed or cancelled writer leaves nothing behind. Tracks are
/// interleaved in chunks of about `preferredMediaChunkDuration` by decode time: an input
/// that gets ahead of the others is not ready until they catch up, which keeps memory
/// bounded whatever the file size, and the layout depends only on the samples.
///
/// ```swift
/// let writer = try AssetWriter(outputURL: url, fileType: .mp4)
/// let input = AssetWriterInput(mediaType: .audio, sourceFormatHint: track.formatDescriptions[0])
/// writer.add(input)
/// writer.startWriting()
/// writer.startSession(atSourceTime: .zero)
/// … input.append(sample) … input.markAsFinished()
/// try await writer.finishWriting()
/// ```
public final class AssetWriter: @unchecked Sendable {
    public enum Status: Sendable, Equatable {
        case unknown, writing, completed, failed, cancelled
    }

    public let outputURL: URL
    public let fileType: FileType
    /// The movie timescale (`mvhd`, edit lists, track durations). Set before `startWriting()`.
    public var movieTimeScale: Int32 = 1000
    /// Put `moov` before `mdat` so that players can start before the whole file is read.
    public var shouldOptimizeForNetworkUse = false
    /// Whether an existing file at `outputURL` may be replaced (atomically, on success).
    public var replacesExistingFile = false

    /// Carried from a mirrored source: `ftyp`, `mvhd` fields, and `udta`/`meta` of the movie.
    var passthroughFileType: FileTypeBox?
    var passthroughMovieHeader: MovieHeader?
    var passthroughMovieBoxes: [RawBox] = []
    /// Chapters for containers that have them (Matroska, WebM): from a mirrored chapter track.
    var chapters: [(title: String, start: MediaTime, duration: MediaTime)] = []

    let lock = NSLock()
    private var _status: Status = .unknown
    private var _error: MediaError?
    private var _inputs: [AssetWriterInput] = []
    private var _groups: [AssetWriterInputGroup] = []
    private var file: OutputFile?
    private var muxer: MuxerOutput?
    private var mdatStart: UInt64 = 0
    private var sessionStart: MediaTime?
    private var sessionEnd: MediaTime?
    private var window = MediaTime(value: 1, timescale: 2)
    /// The lowest frontier among unfinished inputs (`Int64.max` when all are finished).
    private var slowestFrontier: Int64 = -1
    /// Most bytes an input may hold before its chunk is written regardless of the others.
    static let maximumPendingBytes = 16 << 20

    /// Makes a writer for `outputURL`; `fileType` defaults to the one its extension names.
    /// - Throws: `.unsupported` when no file type is given and the extension names none Splice writes.
    public init(outputURL: URL, fileType: FileType? = nil) throws {
        self.outputURL = outputURL
        guard let type = fileType ?? FileType(pathExtension: outputURL.pathExtension) else {
            throw MediaError(.unsupported, "cannot write '.\(outputURL.pathExtension)' files; Splice writes \(FileType.allCases.map { "." + $0.rawValue }.joined(separator: ", "))",
                             file: outputURL.path)
        }
        if !type.isISO { try FFmpegLibraries.load() }
        self.fileType = type
    }

    public var status: Status { lock.withLock { _status } }
    /// Why writing failed, when `status` is `.failed`.
    public var error: MediaError? { lock.withLock { _error } }
    public var inputs: [AssetWriterInput] { lock.withLock { _inputs } }
    public var inputGroups: [AssetWriterInputGroup] { lock.withLock { _groups } }

    /// The text subtitle packets of the libavformat container being written, if it takes any.
    var muxerTextFormat: SubtitlePacketFormat? { muxer?.textFormat }

    // MARK: Inputs and groups

    public func canAdd(_ input: AssetWriterInput) -> Bool {
        lock.withLock { _status == .unknown && input.writer == nil && input.outputSettings == nil }
    }

    public func add(_ input: AssetWriterInput) {
        guard canAdd(input) else { return }
        lock.withLock {
            input.writer = self
            input.index = _inputs.count
            _inputs.append(input)
        }
    }

    /// Whether `group` can be added: its inputs are this writer's, in no other group, and its
    /// default input (if any) is one of them.
    public func canAdd(_ group: AssetWriterInputGroup) -> Bool {
        lock.withLock {
            guard _status == .unknown, !group.inputs.isEmpty else { return false }
            guard group.inputs.allSatisfy({ i in _inputs.contains { $0 === i } }) else { return false }
            if let d = group.defaultInput, !group.inputs.contains(where: { $0 === d }) { return false }
            let grouped = _groups.flatMap(\.inputs)
            return !group.inputs.contains { i in grouped.contains { $0 === i } }
        }
    }

    public func add(_ group: AssetWriterInputGroup) {
        guard canAdd(group) else { return }
        lock.withLock { _groups.append(group) }
    }

    // MARK: Writing

    /// Creates the temporary output file and starts accepting samples. Returns `false` (with
    /// `status` `.failed` and `error` set) when the file cannot be created.
    @discardableResult
    public func startWriting() -> Bool {
        lock.lock()
        guard _status == .unknown else { lock.unlock(); return false }
        do {
            let file = try OutputFile(destination: outputURL.path, replacing: replacesExistingFile)
            self.file = file
            if let name = fileType.muxerName {
                muxer = try MuxerOutput(formatName: name, file: file)
            } else {
            var w = BoxWriter()
            if !shouldOptimizeForNetworkUse {
                (passthroughFileType ?? fileType.fileTypeBox).write(to: &w)
            }
            // `free` + 32-bit `mdat` header; the pair becomes a 64-bit `mdat` header if needed.
            w.u32(8); w.fourCC("free")
            mdatStart = UInt64(w.count)
            w.u32(0); w.fourCC("mdat")
            try file.write(w.bytes)
            }
            let durations = _inputs.map(\.preferredMediaChunkDuration).filter { $0.isNumeric && $0 > .zero }
            window = durations.min() ?? MediaTime(value: 1, timescale: 2)
            _ = updateSlowestFrontier()
            _status = .writing
            lock.unlock()
            return true
        } catch {
            _status = .failed
            _error = (error as? MediaError) ?? MediaError(.io, "\(error)", file: outputURL.path)
            lock.unlock()
            return false
        }
    }

    /// Starts the session: samples are written relative to `time` (0 for a plain copy).
    public func startSession(atSourceTime time: MediaTime) {
        lock.withLock { if sessionStart == nil { sessionStart = time } }
        pumpAll()
    }

    /// Ends the session at `time`: tracks are cut there (through their edit lists).
    public func endSession(atSourceTime time: MediaTime) {
        lock.withLock { sessionEnd = time }
    }

    func isReady(_ input: AssetWriterInput) -> Bool {
        lock.withLock { isReadyLocked(input) }
    }

    private func isReadyLocked(_ input: AssetWriterInput) -> Bool {
        guard _status == .writing, sessionStart != nil, !input.isFinished,
              input.pendingBytes < AssetWriter.maximumPendingBytes else { return false }
        return input.frontier <= slowestFrontier + 1
    }

    /// Recomputes `slowestFrontier`; returns whether it moved (other inputs may have become ready).
    private func updateSlowestFrontier() -> Bool {
        var slowest = Int64.max
        for input in _inputs where !input.isFinished && input.frontier < slowest { slowest = input.frontier }
        defer { slowestFrontier = slowest }
        return slowest != slowestFrontier
    }

    func setRequest(_ input: AssetWriterInput, queue: DispatchQueue, block: @escaping @Sendable () -> Void) {
        lock.withLock {
            input.requestQueue = queue
            input.requestBlock = block
        }
        pump(input)
    }

    /// Runs an input's request block on its queue if it is ready (or must see a terminal status).
    private func pump(_ input: AssetWriterInput) {
        lock.lock()
        guard let block = input.requestBlock, let queue = input.requestQueue, !input.isScheduled else { lock.unlock(); return }
        let terminal = _status != .writing && _status != .unknown
        let run: Bool
        if terminal {
            run = !input.sawTerminalStatus && !input.isFinished
            input.sawTerminalStatus = true
        } else {
            run = isReadyLocked(input)
        }
        guard run else { lock.unlock(); return }
        input.isScheduled = true
        lock.unlock()
        queue.async { [self] in
            block()
            lock.withLock {
                input.isScheduled = false
                // The block is released once the input is done (it often holds its feeder), or once
                // it has run after writing ended — if writing ended while it ran, it runs once more.
                let terminal = _status != .writing && _status != .unknown
                if input.isFinished || (terminal && input.sawTerminalStatus) { input.requestBlock = nil }
            }
            pump(input)
        }
    }

    private func pumpAll() {
        for input in inputs { pump(input) }
    }

    func append(_ sample: SampleBuffer, to input: AssetWriterInput) -> Bool {
        lock.lock()
        do {
            guard _status == .writing else { lock.unlock(); return false }
            guard sessionStart != nil else {
                throw MediaError(.invalidOperation, "append before startSession(atSourceTime:)")
            }
            guard !input.isFinished else { throw MediaError(.invalidOperation, "append after markAsFinished()") }
            let frontier = input.frontier
            for s in try convertText(sample, for: input) { try enqueue(s, to: input) }
            // Only a move of the slowest input can make another one ready.
            let moved = input.frontier != frontier && updateSlowestFrontier()
            if moved || input.pendingBytes >= AssetWriter.maximumPendingBytes { try flush(all: false) }
            lock.unlock()
            if moved { pumpAll() }
        } catch {
            failLocked(error)
            lock.unlock()
            pumpAll()
            return false
        }
        return true
    }

    private func enqueue(_ sample: SampleBuffer, to input: AssetWriterInput) throws {
        if input.timescale == 0 {
            input.timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTime.timescale
            guard input.timescale > 0 else { throw MediaError(.invalidData, "sample has an invalid decode time") }
        }
        let ts = input.timescale
        guard sample.decodeTime.isNumeric, sample.presentationTime.isNumeric else {
            throw MediaError(.invalidData, "track \(input.index + 1): sample without a numeric decode or presentation time")
        }
        let dts = sample.decodeTime.converted(to: ts).value
        let pts = sample.presentationTime.converted(to: ts).value
        let duration = sample.duration.isNumeric ? sample.duration.converted(to: ts).value : 0
        if let last = input.lastDecodeTime, dts < last {
            throw MediaError(.invalidData, "track \(input.index + 1): decode time \(sample.decodeTime) goes back before the previous sample's")
        }
        if input.firstDecodeTime == nil { input.firstDecodeTime = dts }
        input.lastDecodeTime = dts
        let trimEnd = sample.trimDurationAtEnd > .zero ? sample.trimDurationAtEnd.converted(to: ts).value : 0
        input.presentationEnd = max(input.presentationEnd ?? .min, pts + duration - trimEnd)
        input.earliestPresentation = min(input.earliestPresentation ?? .max, pts)
        if input.firstFormat == nil { input.firstFormat = sample.formatDescription }
        let descriptionIndex = muxer == nil ? try sampleDescriptionIndex(for: sample.formatDescription, input: input) : 1
        let window = windowIndex(dts, timescale: ts)
        input.pending.append(PendingSample(
            storage: sample.storage, length: sample.dataLength, decodeTime: dts, compositionOffset: pts - dts, duration: duration,
            isSync: sample.isSync, dependency: sample.dependency?.rawValue, descriptionIndex: descriptionIndex,
            window: window, trimDurationAtEnd: sample.trimDurationAtEnd))
        if case .bytes = sample.storage { input.pendingBytes += sample.dataLength }
        input.frontier = max(input.frontier, window)
    }

    private func sampleDescriptionIndex(for format: FormatDescription, input: AssetWriterInput) throws -> UInt32 {
        if let last = input.lastFormat, last.format == format { return last.index }
        guard let entry = format.sampleEntry else {
            throw MediaError(.unsupported, "track \(input.index + 1): \(format.codecName ?? format.codec.description) samples carry no ISO sample description; writing them to MP4/MOV is not supported yet")
        }
        let i: UInt32
        if let known = input.entryIndex[entry] {
            i = known
        } else {
            input.builder.addSampleEntry(try SampleEntry(bytes: [UInt8](entry), handler: input.mediaType.handlerType))
            i = UInt32(input.entryIndex.count + 1)
            input.entryIndex[entry] = i
        }
        input.lastFormat = (format, i)
        return i
    }

    /// The interleaving window a decode time (`value` in `timescale` units) falls in.
    private func windowIndex(_ value: Int64, timescale: Int32) -> Int64 {
        guard value > 0 else { return 0 }
        let n = Int128(value) * Int128(window.timescale)
        let d = Int128(timescale) * Int128(window.value)
        return Int64(clamping: n / d)
    }

    func markAsFinished(_ input: AssetWriterInput) {
        lock.lock()
        // A running block keeps itself alive; dropping it here breaks the cycle block → feeder → writer.
        input.requestBlock = nil
        if !input.isFinished {
            if _status == .writing {
                do { for s in finishText(for: input) { try enqueue(s, to: input) } } catch { failLocked(error) }
            }
            input.isFinished = true
            _ = updateSlowestFrontier()
            if _status == .writing {
                do { try flush(all: false) } catch { failLocked(error) }
            }
        }
        lock.unlock()
        pumpAll()
    }

    /// Writes every chunk whose window all unfinished inputs have passed (everything with `all`).
    ///
    /// Chunks go window by window, inputs in order within a window. When every sample to write
    /// refers to the same source file in increasing offsets per track (a passthrough copy), they
    /// go in source order instead: the output keeps the source's interleaving and long runs of
    /// bytes are copied file to file in one go.
    private func flush(all: Bool) throws {
        guard let file else { return }
        var limit = all ? Int64.max : slowestFrontier
        // An input holding too much data has its chunk written now, so that it never blocks.
        if !all, let heavy = _inputs.first(where: { !$0.isFinished && $0.pendingBytes >= AssetWriter.maximumPendingBytes && $0.frontier <= limit }) {
            limit = heavy.frontier + 1
        }
        var counts: [Int] = []
        var any = false
        for input in _inputs {
            var n = 0
            while n < input.pending.count && input.pending[n].window < limit { n += 1 }
            counts.append(n)
            any = any || n > 0
        }
        guard any else { return }
        if let muxer {
            if !muxer.headerWritten {
                try startMuxer(muxer, inputs: _inputs, groups: _groups, sessionStart: sessionStart ?? .zero)
            }
            try writePackets(muxer, inputs: _inputs, counts: counts)
            for (i, input) in _inputs.enumerated() where counts[i] > 0 {
                for s in input.pending[..<counts[i]] { if case .bytes = s.storage { input.pendingBytes -= s.length } }
                input.pending.removeFirst(counts[i])
            }
            return
        }
        var out = ChunkOutput(file: file)
        if let order = sourceOrder(counts) {
            var current: (input: Int, start: Int, end: Int)?
            for (i, k) in order {
                if let c = current, c.input == i, c.end == k,
                   _inputs[i].pending[k].descriptionIndex == _inputs[i].pending[c.start].descriptionIndex {
                    current!.end = k + 1
                    continue
                }
                if let c = current { try out.chunk(_inputs[c.input], _inputs[c.input].pending[c.start..<c.end]) }
                current = (i, k, k + 1)
            }
            if let c = current { try out.chunk(_inputs[c.input], _inputs[c.input].pending[c.start..<c.end]) }
        } else {
            var cursor = [Int](repeating: 0, count: _inputs.count)
            while true {
                var w = Int64.max
                for (i, input) in _inputs.enumerated() where cursor[i] < counts[i] { w = min(w, input.pending[cursor[i]].window) }
                guard w != Int64.max else { break }
                for (i, input) in _inputs.enumerated() {
                    var start = cursor[i]
                    var end = start
                    while end < counts[i] && input.pending[end].window <= w { end += 1 }
                    cursor[i] = end
                    while start < end {
                        // One chunk per run of samples sharing a sample description.
                        var stop = start + 1
                        while stop < end && input.pending[stop].descriptionIndex == input.pending[start].descriptionIndex { stop += 1 }
                        try out.chunk(input, input.pending[start..<stop])
                        start = stop
                    }
                }
            }
        }
        try out.finish()
        for (i, input) in _inputs.enumerated() where counts[i] > 0 {
            for s in input.pending[..<counts[i]] { if case .bytes = s.storage { input.pendingBytes -= s.length } }
            input.pending.removeFirst(counts[i])
        }
    }

    /// The samples to flush (first `counts[i]` of each input) as (input, index) in source-file
    /// order, when they all lie in one file with offsets increasing within each input.
    private func sourceOrder(_ counts: [Int]) -> [(Int, Int)]? {
        var file: ReadOnlyFile?
        for (i, input) in _inputs.enumerated() {
            var previous: UInt64 = 0
            for k in 0..<counts[i] {
                guard case .file(let r) = input.pending[k].storage else { return nil }
                if file == nil { file = r.file } else if file !== r.file { return nil }
                if k > 0 && r.offset < previous { return nil }
                previous = r.offset
            }
        }
        // Merge the per-input sorted lists.
        var order: [(Int, Int)] = []
        order.reserveCapacity(counts.reduce(0, +))
        var cursor = [Int](repeating: 0, count: counts.count)
        func offset(_ i: Int) -> UInt64? {
            guard cursor[i] < counts[i], case .file(let r) = _inputs[i].pending[cursor[i]].storage else { return nil }
            return r.offset
        }
        while true {
            var best: Int?
            var bestOffset = UInt64.max
            for i in counts.indices { if let o = offset(i), o < bestOffset { best = i; bestOffset = o } }
            guard let b = best else { break }
            order.append((b, cursor[b]))
            cursor[b] += 1
        }
        return order
    }

    /// Writes chunks: in-memory bytes gathered into large writes, file-backed bytes copied
    /// file to file with adjacent ranges merged (across chunks and tracks).
    private struct ChunkOutput {
        let file: OutputFile
        var buffer = Data()
        var range: SampleBuffer.FileRange?
        var queued: UInt64 = 0

        init(file: OutputFile) { self.file = file }

        mutating func chunk(_ input: AssetWriterInput, _ samples: ArraySlice<PendingSample>) throws {
            let offset = file.size + queued
            for s in samples {
                guard let size = UInt32(exactly: s.length) else {
                    throw MediaError(.unsupported, "a sample of \(s.length) bytes is too large for MP4")
                }
                switch s.storage {
                case .bytes(let d):
                    try flushRange()
                    buffer.append(d)
                case .file(let r):
                    try flushBuffer()
                    if let current = range, current.file === r.file, current.offset + UInt64(current.length) == r.offset {
                        range = SampleBuffer.FileRange(file: r.file, offset: current.offset, length: current.length + r.length)
                    } else {
                        try flushRange()
                        range = r
                    }
                }
                queued += UInt64(s.length)
                try input.builder.addSample(size: size, decodeTime: s.decodeTime - (input.firstDecodeTime ?? 0),
                                            compositionOffset: s.compositionOffset, duration: s.duration,
                                            isSync: s.isSync, dependency: s.dependency)
            }
            input.builder.addChunk(offset: offset, sampleCount: samples.count, descriptionIndex: samples.first!.descriptionIndex)
            if buffer.count >= 4 << 20 { try flushBuffer() }
        }

        private mutating func flushRange() throws {
            guard let r = range else { return }
            range = nil
            try file.append(from: r.file, offset: r.offset, length: r.length)
            queued -= UInt64(r.length)
        }

        private mutating func flushBuffer() throws {
            guard !buffer.isEmpty else { return }
            try file.write(buffer)
            queued -= UInt64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }

        mutating func finish() throws {
            try flushRange()
            try flushBuffer()
        }
    }

    private func failLocked(_ error: Error) {
        guard _status == .writing || _status == .unknown else { return }
        var e = (error as? MediaError) ?? MediaError(.io, "\(error)")
        if e.file == nil { e.file = outputURL.path }
        _status = .failed
        _error = e
        muxer = nil
        file?.discard()
        for input in _inputs { input.pending = []; input.pendingBytes = 0 }
    }

    /// Stops writing and removes the temporary file; the destination is untouched.
    public func cancelWriting() {
        lock.withLock {
            guard _status == .writing || _status == .unknown else { return }
            _status = .cancelled
            muxer = nil
            file?.discard()
            for input in _inputs { input.pending = []; input.pendingBytes = 0 }
        }
        pumpAll()
    }

    /// Finishes the file: unfinished inputs are marked finished, the remaining chunks and the
    /// `moov` are written, and the file is renamed into place. `handler` runs when done;
    /// then `status` is `.completed`, or `.failed` with `error` set.
    public func finishWriting(completionHandler handler: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { [self] in
            finish()
            handler()
        }
    }

    /// Finishes the file; see `finishWriting(completionHandler:)`.
    /// - Throws: the writer's `error` when it did not complete.
    public func finishWriting() async throws {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            finishWriting { c.resume() }
        }
        if status != .completed {
            throw error ?? MediaError(.cancelled, "writing was cancelled", file: outputURL.path)
        }
    }

    /// Finishes the file on the calling thread; see `finishWriting(completionHandler:)`.
    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard _status == .writing, let file else { return }
        do {
            for input in _inputs {
                if !input.isFinished { for s in finishText(for: input) { try enqueue(s, to: input) } }
                input.isFinished = true
                input.requestBlock = nil
            }
            try flush(all: true)
            if let muxer {
                if !muxer.headerWritten {
                    try startMuxer(muxer, inputs: _inputs, groups: _groups, sessionStart: sessionStart ?? .zero)
                }
                try muxer.context.writeTrailer()
                self.muxer = nil
                try file.commit()
                _status = .completed
                return
            }
            let mdatSize = file.size - mdatStart
            if mdatSize > UInt64(UInt32.max) {
                var w = BoxWriter()
                w.u32(1); w.fourCC("mdat"); w.u64(mdatSize + 8)
                try file.write(w.bytes, at: mdatStart - 8)
            } else {
                var w = BoxWriter()
                w.u32(UInt32(mdatSize))
                try file.write(w.bytes, at: mdatStart)
            }
            if shouldOptimizeForNetworkUse {
                // ftyp + moov (+ free padding to whole blocks) go in front of what was written.
                let block = file.blockSize
                var shift: UInt64 = 0
                var header: [UInt8] = []
                for _ in 0..<3 {
                    var w = BoxWriter()
                    (passthroughFileType ?? fileType.fileTypeBox).write(to: &w)
                    w.append(movieBox(chunkShift: shift, inputs: _inputs, groups: _groups, session: (sessionStart, sessionEnd)))
                    let padded = (UInt64(w.count) + 8 + block - 1) / block * block
                    if padded == shift {
                        w.u32(UInt32(padded) - UInt32(w.count)); w.fourCC("free")
                        w.zeros(Int(padded) - w.count)
                        header = w.bytes
                        break
                    }
                    shift = padded
                }
                guard !header.isEmpty else { throw MediaError(.io, "cannot size the movie header") }
                try file.prepend(header)
            } else {
                try file.write(movieBox(chunkShift: 0, inputs: _inputs, groups: _groups, session: (sessionStart, sessionEnd)))
            }
            try file.commit()
            _status = .completed
        } catch {
            failLocked(error)
        }
    }
}
