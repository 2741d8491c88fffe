import MediaCore

/// The clusters' blocks, indexed: each frame's place in the file and its time, read from the
/// block headers (the Matroska specification, "Block Structure" and "Block Lacing").
extension MatroskaFile {
    /// What a `BlockGroup` says beside its block.
    private struct GroupFields {
        var duration: UInt64?
        var hasReference = false
        var discardPadding: Int64 = 0
    }

    mutating func readCluster(_ cluster: EBMLElement, with reader: inout EBMLReader, tracks byNumber: [UInt64: Int]) throws {
        let end = cluster.end(within: reader.size)
        var clusterTime: Int64?
        var at = cluster.dataOffset
        while at < end {
            let e = try reader.element(at: at, limit: end)
            guard let size = e.size else { throw MediaError(.unsupported, "an element of unknown size in a cluster", location: location(e)) }
            switch e.id {
            case 0xE7:
                guard let t = Int64(exactly: try reader.unsigned(e)) else { throw MediaError(.invalidData, "cluster timestamp out of range", location: location(e)) }
                clusterTime = t
            case 0xA3:
                try readBlock(e, clusterTime: clusterTime, group: nil, with: &reader, tracks: byNumber)
            case 0xA0:
                var block: EBMLElement?
                var group = GroupFields()
                for c in try reader.children(of: e) {
                    switch c.id {
                    case 0xA1: block = c
                    case 0x9B: group.duration = try reader.unsigned(c)
                    case 0xFB: group.hasReference = true
                    case 0x75A2: group.discardPadding = try reader.signed(c)
                    case 0x75A1: throw MediaError(.unsupported, "block additions", location: location(c))
                    default: break
                    }
                }
                if let block { try readBlock(block, clusterTime: clusterTime, group: group, with: &reader, tracks: byNumber) }
            case 0xAF: throw MediaError(.unsupported, "encrypted blocks", location: location(e))
            default: break   // Position, PrevSize, SilentTracks, Void, CRC-32
            }
            at = e.dataOffset + size
        }
    }

    private func location(_ e: EBMLElement) -> String { "Segment/Cluster at offset \(e.offset)" }

    /// Indexes the frames of one `SimpleBlock` (`group` nil) or `Block`.
    private mutating func readBlock(_ block: EBMLElement, clusterTime: Int64?, group: GroupFields?, with reader: inout EBMLReader,
                                    tracks byNumber: [UInt64: Int]) throws {
        let size = block.size ?? 0
        let head = try reader.bytes(at: block.dataOffset, count: Int(clamping: min(size, 16)))
        let (number, numberLength) = try EBMLReader.variableInteger(head, at: block.dataOffset)
        guard let number, let index = byNumber[number] else { return }   // a track not listed: skipped, as players do
        guard let clusterTime else { throw MediaError(.invalidData, "a block before its cluster's timestamp", location: location(block)) }
        guard head.count >= numberLength + 3 else { throw MediaError(.truncated, "block header cut short", location: location(block)) }
        let h = head.startIndex + numberLength
        let relative = Int16(bitPattern: UInt16(widening: head[h]) << 8 | UInt16(widening: head[h + 1]))
        let flags = head[h + 2]
        let (time, overflow) = clusterTime.addingReportingOverflow(Int64(widening: relative))
        guard !overflow else { throw MediaError(.invalidData, "block timestamp out of range", location: location(block)) }
        let payload = block.dataOffset + UInt64(clamping: numberLength + 3)
        let sizes = try laceSizes(flags: flags, from: payload, end: block.dataOffset + size, with: &reader, at: block)
        let laces = UInt64(clamping: sizes.frames.count)
        // The block's duration, spread over its laces as libavformat spreads it (in whole ticks).
        var blockDuration = group?.duration ?? 0
        if group?.duration == nil, let d = tracks[index].defaultDuration {
            let (total, over) = d.multipliedReportingOverflow(by: laces)
            blockDuration = over ? 0 : total / timestampScale
        }
        guard blockDuration <= UInt64(clamping: Int64.max) / max(laces, 1) else {
            throw MediaError(.invalidData, "block duration out of range", location: location(block))
        }
        if laces > 1, blockDuration == 0 {
            throw MediaError(.unsupported, "laced frames without a duration", location: location(block))
        }
        if group != nil, group?.discardPadding != 0, laces > 1 {
            throw MediaError(.unsupported, "discard padding on a laced block", location: location(block))
        }
        var offset = sizes.firstOffset
        var frameTime = time
        for (n, frameSize) in sizes.frames.enumerated() {
            let k = UInt64(clamping: n)
            let laceDuration = Int64(clamping: blockDuration * (k + 1) / laces - blockDuration * k / laces)
            let isKey = group.map { !$0.hasReference } ?? (flags & 0x80 != 0)
            tracks[index].frames.append(offset: offset, size: frameSize, time: frameTime, duration: laceDuration, isKey: isKey)
            offset += UInt64(widening: frameSize)
            frameTime = frameTime.addingReportingOverflow(laceDuration).partialValue
        }
        if let padding = group?.discardPadding, padding != 0 { tracks[index].frames.discardPadding[tracks[index].frames.count - 1] = padding }
    }

    /// The lengths of a block's frames (one without lacing), and where the first one starts.
    private func laceSizes(flags: UInt8, from start: UInt64, end: UInt64, with reader: inout EBMLReader,
                           at block: EBMLElement) throws -> (frames: [UInt32], firstOffset: UInt64) {
        guard start <= end else { throw MediaError(.truncated, "block header cut short", location: location(block)) }
        let lacing = (flags >> 1) & 3
        func fits(_ n: UInt64) throws -> UInt32 {
            guard let v = UInt32(exactly: n) else { throw MediaError(.unsupported, "a frame of \(n) bytes", location: location(block)) }
            return v
        }
        if lacing == 0 { return ([try fits(end - start)], start) }
        guard start < end else { throw MediaError(.truncated, "lace count missing", location: location(block)) }
        let count = Int(widening: try reader.bytes(at: start, count: 1).first!) + 1
        var at = start + 1
        var sizes: [UInt64] = []
        sizes.reserveCapacity(count)
        switch lacing {
        case 2:   // fixed-size lacing
            guard (end - at) % UInt64(clamping: count) == 0 else {
                throw MediaError(.invalidData, "\(end - at) bytes do not split into \(count) equal frames", location: location(block))
            }
            return (try Array(repeating: fits((end - at) / UInt64(clamping: count)), count: count), at)
        case 1:   // Xiph lacing: each size a run of 255s and a last byte below 255
            for _ in 0..<(count - 1) {
                var v: UInt64 = 0
                while true {
                    guard at < end else { throw MediaError(.truncated, "lace sizes cut short", location: location(block)) }
                    let b = try reader.bytes(at: at, count: 1).first!
                    at += 1
                    v += UInt64(widening: b)
                    if b != 255 { break }
                }
                sizes.append(v)
            }
        default:   // 3, EBML lacing: the first size, then signed differences
            var previous: Int64 = 0
            for i in 0..<(count - 1) {
                let bytes = try reader.bytes(at: at, count: Int(clamping: min(8, end - at)))
                let (raw, length) = try EBMLReader.variableInteger(bytes, at: at)
                guard let raw else { throw MediaError(.invalidData, "lace size unknown", location: location(block)) }
                at += UInt64(clamping: length)
                // A difference of n bytes is stored biased by 2^(7n-1) - 1.
                let value = i == 0 ? Int64(clamping: raw) : previous + (Int64(clamping: raw) - (Int64(1) << (7 * length - 1) - 1))
                guard value >= 0, value <= Int64(clamping: end - at) else {
                    throw MediaError(.invalidData, "lace size \(value) does not fit the block", location: location(block))
                }
                sizes.append(UInt64(clamping: value))
                previous = value
            }
        }
        let listed = sizes.reduce(UInt64(0)) { $0 &+ $1 }
        guard at <= end, listed <= end - at, !sizes.contains(where: { $0 > end - at }) else {
            throw MediaError(.invalidData, "lace sizes add up to more than the block", location: location(block))
        }
        sizes.append(end - at - listed)
        return (try sizes.map(fits), at)
    }
}
