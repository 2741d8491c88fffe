import Foundation
import MediaCore
import ISOBMFF

/// Writes MP4/MOV/M4A/M4V natively: `ftyp`, one `mdat` that grows as chunks are written, then
/// the `moov` built from each track's sample table — after `mdat`, or (fast start) inserted in
/// front of it without a second pass over the media. Its tables are values: a sample costs one
/// exclusivity check (on `tables`), not one per field.
final class MovieMuxer: Muxer {
    private let file: OutputFile
    private let fileType: FileType
    /// The `ftyp` written: the mirrored source's, or the file type's.
    private let ftyp: FileTypeBox
    private let template: MovieTemplate
    private let groups: [AssetWriterInputGroup]
    private let movieTimeScale: Int32
    private let fastStart: Bool
    private var mdatStart: UInt64 = 0
    /// One per input.
    private var tables: [TrackTable]
    /// Writes the chunks; what it holds back (adjacent file ranges, small samples) is written
    /// by a later flush or at the end.
    private var out: ChunkWriter

    /// Starts the file: `ftyp` (unless fast start puts it in front later), then a `free` box and a
    /// 32-bit `mdat` header, which together become a 64-bit `mdat` header if the media needs it.
    init(file: OutputFile, fileType: FileType, ftyp: FileTypeBox, template: MovieTemplate, groups: [AssetWriterInputGroup],
         inputCount: Int, movieTimeScale: Int32, fastStart: Bool) throws {
        self.file = file
        self.fileType = fileType
        self.ftyp = ftyp
        self.template = template
        self.groups = groups
        self.movieTimeScale = movieTimeScale > 0 ? movieTimeScale : 1000
        self.fastStart = fastStart
        tables = (0..<inputCount).map { _ in TrackTable(quickTimeSound: fileType.usesQuickTimeConventions) }
        out = ChunkWriter(file: file)
        var w = BoxWriter()
        if !fastStart { ftyp.write(to: &w) }
        w.box("free") { _ in }
        mdatStart = UInt64(clamping: w.count)
        w.header("mdat", size: 0)
        try file.write(w.bytes)
    }

    func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput, index: Int, label: String) throws -> UInt32 {
        try tables[index].descriptionIndex(for: sample, input: input, label: label)
    }

    func write(_ counts: [Int], of inputs: [AssetWriterInput], states: inout [InputState], session: WriterSession) throws {
        for (i, slice) in ChunkWriter.layout(counts, of: states) {
            try out.chunk(states[i].pending[slice], into: &tables[i], firstDecodeTime: states[i].firstDecodeTime ?? 0)
        }
    }

    func finish(_ inputs: [AssetWriterInput], states: [InputState], session: WriterSession) throws {
        try out.finish()
        try patchMediaDataSize()
        let builder = MovieBoxBuilder(inputs: inputs, states: states, tables: tables, groups: groups, session: session,
                                      movieTimeScale: movieTimeScale, fileType: fileType, template: template)
        guard fastStart else {
            var moov = builder.movieBox(chunkShift: 0)
            MovieWriter.patchAuxiliaryInformationOffsets(&moov, moovOffset: file.size)
            try file.write(moov)
            return
        }
        // ftyp + moov (+ free padding to whole blocks) go in front of what was written. Moving the
        // chunks changes their offsets, which can change the size of `moov` (stco → co64): settle.
        let block = file.blockSize
        var shift: UInt64 = 0
        for _ in 0..<3 {
            var w = BoxWriter()
            ftyp.write(to: &w)
            var moov = builder.movieBox(chunkShift: shift)
            MovieWriter.patchAuxiliaryInformationOffsets(&moov, moovOffset: UInt64(clamping: w.count))
            w.append(moov)
            let padded = (UInt64(clamping: w.count) + 8 + block - 1) / block * block
            if padded == shift {
                w.u32(UInt32(clamping: padded) - UInt32(clamping: w.count)); w.fourCC("free")
                w.zeros(Int(clamping: padded) - w.count)
                try file.prepend(w.bytes)
                return
            }
            shift = padded
        }
        throw MediaError(.io, "cannot size the movie header")
    }

    /// Writes the `mdat` size, as a 64-bit size over the `free` box when it needs one.
    private func patchMediaDataSize() throws {
        var w = BoxWriter()
        w.header("mdat", size: file.size - mdatStart)
        // (a 16-byte header starts 8 bytes early, over the `free` box)
        try file.write(w.bytes, at: mdatStart - UInt64(clamping: w.count - 8))
    }
}

/// The sample table being built for one track, and its sample descriptions.
struct TrackTable {
    var builder = SampleTableBuilder()
    private var entryIndex: [Data: UInt32] = [:]
    /// Entries by what a decoder needs of them (type, configuration, size, rate, channels).
    private var decodingIndex: [String: UInt32] = [:]
    private var entryCount: UInt32 = 0
    private var last: (format: FormatDescription, index: UInt32)?
    /// Whether AAC entries not copied from an MP4/MOV track are written as QuickTime writes them.
    private let quickTimeSound: Bool

    init(quickTimeSound: Bool = false) { self.quickTimeSound = quickTimeSound }

    /// The index of `sample`'s sample description, added on first use. A sample without an ISO
    /// sample entry gets one built from its codec parameters (what an encoder produces).
    mutating func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput, label: String) throws -> UInt32 {
        let format = sample.formatDescription
        if let last, last.format == format { return last.index }
        if entryCount == 0, let copied = input.passthrough?.sampleEntries, !copied.isEmpty {
            // A copy keeps the source's entries in its order, so that each keeps its number.
            for entry in copied where entryIndex[entry] == nil {
                builder.addSampleEntry(try SampleEntry(bytes: [UInt8](entry), handler: input.mediaType.handlerType))
                entryCount += 1
                entryIndex[entry] = entryCount
            }
        }
        var entry = try format.sampleEntry ?? TrackTable.buildEntry(for: sample, track: label)
        if quickTimeSound, input.passthrough == nil, let qt = CodecMapping.quickTimeSoundEntry([UInt8](entry)) { entry = Data(qt) }
        let i: UInt32
        let p = format.parameters
        let decoding = "\(format.codec.rawValue) \(p.extradata) \(p.width)x\(p.height) \(p.sampleRate) \(p.channelCount)"
        if let known = entryIndex[entry] {
            i = known
        } else if input.sharesEquivalentDescriptions, let same = decodingIndex[decoding] {
            // Segments of other files whose entries differ only in what a decoder ignores
            // (`btrt`, the esds bit rates): one entry, which every player handles.
            i = same
            entryIndex[entry] = i
        } else {
            builder.addSampleEntry(try SampleEntry(bytes: [UInt8](entry), handler: input.mediaType.handlerType))
            entryCount += 1
            i = entryCount
            entryIndex[entry] = i
            decodingIndex[decoding] = decodingIndex[decoding] ?? i
        }
        last = (format, i)
        return i
    }

    /// A sample entry from `sample`'s codec parameters, for samples whose bytes are already in
    /// ISO form (length-prefixed NAL units, raw AAC).
    private static func buildEntry(for sample: SampleBuffer, track: String) throws -> Data {
        let format = sample.formatDescription
        let cannot = "\(track): \(format.codecName ?? format.codec.description) samples carry no ISO sample description"
        guard format.codecName != nil else { throw MediaError(.unsupported, cannot + "; writing them to MP4/MOV is not supported yet") }
        let made: (entry: [UInt8], conversion: PacketConversion)
        do { made = try CodecMapping.sampleEntry(for: format.parameters, firstPacket: [UInt8](try sample.loadData())) } catch {
            throw MediaError(.unsupported, cannot + " and none can be made: \((error as? MediaError)?.message ?? "\(error)")")
        }
        guard made.conversion == .none else {
            throw MediaError(.unsupported, cannot + "; its packets are not in ISO form (\(made.conversion))")
        }
        return Data(made.entry)
    }
}
