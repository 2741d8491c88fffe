import Foundation
import MediaCore
import ISOBMFF

/// Lays out and writes the chunks into `mdat`: in-memory bytes written from their own storage
/// (up to 1 MiB held, so that they are written while still in the processor's cache), file-backed
/// bytes copied file to file with adjacent ranges merged (across chunks, tracks and the writer's
/// flushes, up to 16 MiB a copy), each chunk recorded in its track's sample table at the offset
/// it will have. Small file-backed samples a few bytes apart (Matroska's unlaced audio, a block
/// header between each) are read in one piece of up to 1 MiB and written without the gaps,
/// rather than copied one call each.
struct ChunkWriter {
    let file: OutputFile
    /// In-memory samples waiting to be written, in order: large ones as they are (written
    /// from their own storage), runs of small ones gathered into one piece.
    private var pieces: [Data] = []
    private var small = Data()
    private var buffered = 0
    private var range: SampleBuffer.FileRange?
    /// When `range` spans small samples with gaps between them: the samples' places in it.
    private var parts: [(offset: UInt64, length: Int)] = []
    private var queued: UInt64 = 0
    /// The largest gap, sample and span gathered that way.
    static let maximumGap: UInt64 = 256, maximumGatheredSample = 64 << 10, maximumGathered = 1 << 20

    init(file: OutputFile) { self.file = file }

    /// The chunks to write for the first `counts[i]` pending samples of each input, in order.
    ///
    /// Window by window (each laid out on its own, so that the layout never depends on how many
    /// windows a flush happens to hold — on thread timing), inputs in order within a window, one
    /// chunk per run of samples sharing a sample description. When every sample of a window
    /// refers to the same source file in increasing offsets per track (a passthrough copy), they
    /// go in source order instead: the output keeps the source's interleaving, and adjacent
    /// ranges are copied file to file in one go (`queue` merges them across chunks).
    static func layout(_ counts: [Int], of inputs: [InputState]) -> [(Int, Range<Int>)] {
        var runs: [(input: Int, range: Range<Int>)] = []
        var cursor = [Int](repeating: 0, count: inputs.count)
        while true {
            var w = Int64.max
            for (i, input) in inputs.enumerated() where cursor[i] < counts[i] { w = min(w, input.pending[cursor[i]].window) }
            guard w != Int64.max else { break }
            let ranges = inputs.indices.map { i in
                var end = cursor[i]
                while end < counts[i] && inputs[i].pending[end].window <= w { end += 1 }
                return cursor[i]..<end
            }
            // (One input: source order is its own order.)
            runs += inputs.count == 1 ? runsByInput(ranges, inputs)
                : sourceOrder(ranges, inputs).map { runsInSourceOrder($0, inputs) } ?? runsByInput(ranges, inputs)
            cursor = ranges.map(\.upperBound)
        }
        return runs.map { ($0.input, $0.range) }
    }

    /// One window: inputs in order, one run per stretch of samples sharing a description.
    private static func runsByInput(_ ranges: [Range<Int>], _ inputs: [InputState]) -> [(input: Int, range: Range<Int>)] {
        var runs: [(Int, Range<Int>)] = []
        for (i, input) in inputs.enumerated() {
            let pending = input.pending
            var start = ranges[i].lowerBound
            while start < ranges[i].upperBound {
                var stop = start + 1
                while stop < ranges[i].upperBound && pending[stop].descriptionIndex == pending[start].descriptionIndex { stop += 1 }
                runs.append((i, start..<stop))
                start = stop
            }
        }
        return runs
    }

    private static func runsInSourceOrder(_ order: [(Int, Int)], _ inputs: [InputState]) -> [(input: Int, range: Range<Int>)] {
        var runs: [(input: Int, range: Range<Int>)] = []
        for (i, k) in order {
            if let last = runs.last, last.input == i, last.range.upperBound == k,
               inputs[i].pending[k].descriptionIndex == inputs[i].pending[last.range.lowerBound].descriptionIndex {
                runs[runs.count - 1].range = last.range.lowerBound..<(k + 1)
            } else {
                runs.append((i, k..<(k + 1)))
            }
        }
        return runs
    }

    /// The samples to flush as (input, index) in source-file order, when they all lie in one
    /// file with offsets increasing within each input.
    private static func sourceOrder(_ ranges: [Range<Int>], _ inputs: [InputState]) -> [(Int, Int)]? {
        var file: ReadOnlyFile?
        var offsets: [[UInt64]] = []
        for (i, input) in inputs.enumerated() {
            var list: [UInt64] = []
            list.reserveCapacity(ranges[i].count)
            for s in input.pending[ranges[i]] {
                guard case .file(let r) = s.storage else { return nil }
                if file == nil { file = r.file } else if file !== r.file { return nil }
                if let previous = list.last, r.offset < previous { return nil }
                list.append(r.offset)
            }
            offsets.append(list)
        }
        // Merge the per-input sorted lists.
        var order: [(Int, Int)] = []
        order.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
        var cursor = [Int](repeating: 0, count: ranges.count)
        while true {
            var best: Int?
            var bestOffset = UInt64.max
            for i in ranges.indices where cursor[i] < ranges[i].count && offsets[i][cursor[i]] < bestOffset {
                best = i
                bestOffset = offsets[i][cursor[i]]
            }
            guard let b = best else { break }
            order.append((b, ranges[b].lowerBound + cursor[b]))
            cursor[b] += 1
        }
        return order
    }

    /// Writes one chunk and records it, with its samples, in `table`.
    mutating func chunk(_ samples: ArraySlice<PendingSample>, into table: inout TrackTable, firstDecodeTime: Int64) throws {
        let offset = file.size + queued
        for s in samples {
            guard let size = UInt32(exactly: s.length) else {
                throw MediaError(.unsupported, "a sample of \(s.length) bytes is too large for MP4")
            }
            try queue(s.storage)
            queued += UInt64(clamping: s.length)
            try table.builder.addSample(size: size, decodeTime: s.decodeTime - firstDecodeTime,
                                        compositionOffset: s.compositionOffset, duration: s.duration,
                                        isSync: s.isSync, dependency: s.dependency)
        }
        table.builder.addChunk(offset: offset, sampleCount: samples.count, descriptionIndex: samples.first!.descriptionIndex)
        if buffered >= 1 << 20 || pieces.count >= 256 { try flushBuffer() }
    }

    /// Queues `samples`' bytes (a fragment's `mdat`), recording nothing in a sample table.
    mutating func samples(_ samples: ArraySlice<PendingSample>) throws {
        for s in samples {
            try queue(s.storage)
            queued += UInt64(clamping: s.length)
        }
        if buffered >= 1 << 20 || pieces.count >= 256 { try flushBuffer() }
    }

    private mutating func queue(_ storage: SampleBuffer.Storage) throws {
        switch storage {
        case .bytes(let d):
            try flushRange()
            if d.count >= 16 << 10 {
                if !small.isEmpty { pieces.append(small); small = Data() }
                pieces.append(d)
            } else {
                small.append(d)
            }
            buffered += d.count
        case .pcm, .pixels:
            throw MediaError(.invalidOperation, "decoded samples reached the muxer without an encoder")
        case .file(let r):
            try flushBuffer()
            if !extend(with: r) {
                try flushRange()
                range = r
            }
        }
    }

    /// Adds `r` to the pending range when it follows on (up to 16 MiB a copy), or when it and the
    /// range's samples are small and lie a few bytes apart (up to 1 MiB, gathered).
    private mutating func extend(with r: SampleBuffer.FileRange) -> Bool {
        guard let current = range, current.file === r.file else { return false }
        let end = current.offset + UInt64(clamping: current.length)
        let span = r.offset >= end ? r.offset - end + UInt64(clamping: current.length + r.length) : .max
        if r.offset == end, parts.isEmpty ? current.length < 16 << 20 : span <= ChunkWriter.maximumGathered {
            range = SampleBuffer.FileRange(file: r.file, offset: current.offset, length: current.length + r.length)
            if !parts.isEmpty { parts.append((r.offset, r.length)) }
            return true
        }
        guard r.offset > end, r.offset - end <= ChunkWriter.maximumGap, span <= ChunkWriter.maximumGathered,
              r.length < ChunkWriter.maximumGatheredSample, !parts.isEmpty || current.length < ChunkWriter.maximumGatheredSample else { return false }
        if parts.isEmpty { parts = [(current.offset, current.length)] }
        parts.append((r.offset, r.length))
        range = SampleBuffer.FileRange(file: r.file, offset: current.offset, length: Int(clamping: span))
        return true
    }

    private mutating func flushRange() throws {
        guard let r = range else { return }
        range = nil
        if parts.isEmpty {
            try file.append(from: r.file, offset: r.offset, length: r.length)
            queued -= UInt64(clamping: r.length)
            return
        }
        let span = try r.file.readData(at: r.offset, count: r.length)
        var samples = Data(capacity: parts.reduce(0) { $0 + $1.length })
        for p in parts {
            let from = Int(clamping: p.offset - r.offset)
            samples.append(span[(span.startIndex + from)..<(span.startIndex + from + p.length)])
        }
        parts.removeAll(keepingCapacity: true)
        try file.write(gathering: [samples])
        queued -= UInt64(clamping: samples.count)
    }

    private mutating func flushBuffer() throws {
        if !small.isEmpty { pieces.append(small); small = Data() }
        guard !pieces.isEmpty else { return }
        try file.write(gathering: pieces)
        queued -= UInt64(clamping: buffered)
        pieces.removeAll(keepingCapacity: true)
        buffered = 0
    }

    /// Writes what is still queued.
    mutating func finish() throws {
        try flushRange()
        try flushBuffer()
    }
}
