import Foundation
import MediaCore
import ISOBMFF

/// What `splice remux --verify` checks beyond the samples: the structure Splice promises to
/// keep. Track by track — sample descriptions (byte for byte), alternate group and enabled
/// flag, every `tref` (by track position, as a copy may renumber), language and `elng`,
/// handler type and name, edit lists (exactly, where both tracks have one) and the clear
/// samples of a protected track — then the movie's chapters and metadata. The first
/// difference is named.
enum StructureComparison {
    static func compare(_ a: Asset, _ b: Asset) throws {
        let positionsA = Dictionary(a.tracks.enumerated().map { ($1.trackID, $0 + 1) }, uniquingKeysWith: { x, _ in x })
        let positionsB = Dictionary(b.tracks.enumerated().map { ($1.trackID, $0 + 1) }, uniquingKeysWith: { x, _ in x })
        for (ta, tb) in zip(a.tracks, b.tracks) {
            let fail = { (what: String) in MediaError(.invalidData, "track \(tb.trackID): \(what)", file: b.url.path) }
            func same<T: Equatable>(_ x: T, _ y: T, _ what: String) throws {
                if x != y { throw fail("\(what) is \(describe(y)), the source's \(describe(x))") }
            }
            try same(ta.mediaType, tb.mediaType, "the media type")
            try same(ta.alternateGroup, tb.alternateGroup, "the alternate group")
            try same(ta.isEnabled, tb.isEnabled, "the enabled flag")
            try same(ta.languageCode ?? "und", tb.languageCode ?? "und", "the language")
            try same(ta.extendedLanguageTag, tb.extendedLanguageTag, "the extended language ('elng')")
            let refsA = ta.associations.mapValues { $0.compactMap { positionsA[$0] } }
            let refsB = tb.associations.mapValues { $0.compactMap { positionsB[$0] } }
            try same(refsA.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value)" },
                     refsB.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value)" }, "its track references (by position)")
            guard let isoA = ta.backing.isoTrack, let isoB = tb.backing.isoTrack else { continue }
            try same(isoA.handler.handlerType.description, isoB.handler.handlerType.description, "the handler type")
            try same(isoA.handler.name, isoB.handler.name, "the handler name")
            let entriesA = isoA.sampleTable.sampleEntries, entriesB = isoB.sampleTable.sampleEntries
            try same(entriesA.count, entriesB.count, "the number of sample descriptions")
            for (k, (ea, eb)) in zip(entriesA, entriesB).enumerated() where ea.bytes != eb.bytes {
                throw fail("sample description \(k + 1) ('\(eb.type)', \(eb.bytes.count) bytes) differs from the source's ('\(ea.type)', \(ea.bytes.count) bytes)")
            }
            try same(isoA.clearSampleCount, isoB.clearSampleCount, "the number of clear samples of its protected track")
            if let la = isoA.editList, let lb = isoB.editList {
                try compareEdits(la, isoA, a, lb, isoB, b, fail: fail)
            }
        }
        let chaptersA = (try? a.loadChapters()) ?? [], chaptersB = (try? b.loadChapters()) ?? []
        if chaptersA != chaptersB {
            throw MediaError(.invalidData, "the chapters differ: \(chaptersB.map(\.title)) against the source's \(chaptersA.map(\.title))", file: b.url.path)
        }
        let metadataA = Set(a.metadata), metadataB = Set(b.metadata)
        if metadataA != metadataB {
            let missing = metadataA.subtracting(metadataB).map(\.commonKey).sorted(), added = metadataB.subtracting(metadataA).map(\.commonKey).sorted()
            throw MediaError(.invalidData, "the movie metadata differs (\(missing.isEmpty ? "" : "lost or changed: \(missing.joined(separator: ", "))")"
                             + "\(added.isEmpty ? "" : " added or changed: \(added.joined(separator: ", "))"))", file: b.url.path)
        }
    }

    /// Edit lists, entry by entry and exactly: durations as fractions of each movie's timescale,
    /// media times from each track's first decode time less its composition lead, as fractions
    /// of each media timescale, rates.
    private static func compareEdits(_ la: EditList, _ ta: Track, _ a: Asset, _ lb: EditList, _ tb: Track, _ b: Asset,
                                     fail: (String) -> MediaError) throws {
        guard la.entries.count == lb.entries.count else {
            throw fail("its edit list has \(lb.entries.count) edits, the source's \(la.entries.count)")
        }
        let movieA = UInt64(widening: a.source.isoMovie?.movieHeader.timescale ?? 0)
        let movieB = UInt64(widening: b.source.isoMovie?.movieHeader.timescale ?? 0)
        let mediaA = UInt64(widening: ta.mediaHeader.timescale), mediaB = UInt64(widening: tb.mediaHeader.timescale)
        // (less each track's composition lead: a fragmented copy raises negative composition
        // offsets to none negative, and its edits' media times as much)
        let firstA = ta.firstDecodeTime.subtractingReportingOverflow(ta.compositionLead).partialValue
        let firstB = tb.firstDecodeTime.subtractingReportingOverflow(tb.compositionLead).partialValue
        for (k, (ea, eb)) in zip(la.entries, lb.entries).enumerated() {
            let what = "edit \(k + 1)"
            guard equalFractions(ea.segmentDuration, movieA, eb.segmentDuration, movieB) else {
                throw fail("\(what) lasts \(eb.segmentDuration)/\(movieB) s, the source's \(ea.segmentDuration)/\(movieA) s")
            }
            guard ea.isEmpty == eb.isEmpty, ea.rateInteger == eb.rateInteger, ea.rateFraction == eb.rateFraction else {
                throw fail("\(what) is \(eb.isEmpty ? "empty" : "at rate \(eb.rate)"), the source's \(ea.isEmpty ? "empty" : "at rate \(ea.rate)")")
            }
            guard !ea.isEmpty else { continue }
            // Media times from the first decode time: exact in 128 bits, whatever their size.
            let (ma, overA) = ea.mediaTime.subtractingReportingOverflow(firstA)
            let (mb, overB) = eb.mediaTime.subtractingReportingOverflow(firstB)
            guard !overA, !overB, ma.signum() == mb.signum(),
                  equalFractions(ma.magnitude, mediaA, mb.magnitude, mediaB) else {
                throw fail("\(what) starts at media time \(eb.mediaTime)/\(mediaB) s, the source's \(ea.mediaTime)/\(mediaA) s")
            }
        }
    }

    /// Whether x/xs == y/ys (both scales non-zero), without overflow.
    private static func equalFractions(_ x: UInt64, _ xs: UInt64, _ y: UInt64, _ ys: UInt64) -> Bool {
        guard xs > 0, ys > 0 else { return x == y && xs == ys }
        let left = x.multipliedFullWidth(by: ys), right = y.multipliedFullWidth(by: xs)
        return left.high == right.high && left.low == right.low
    }

    private static func describe<T>(_ value: T) -> String {
        if let optional = value as? String? { return optional.map { "'\($0)'" } ?? "none" }
        if let b = value as? Bool { return b ? "on" : "off" }
        return "\(value)"
    }
}
