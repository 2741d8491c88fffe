import Foundation
import MediaCore

/// A file, or a part of it: what the jobs (`ExportSession.concatenating`, `merging`, `mixing`,
/// `trimming`) take. `start` nil: from the beginning; `end` nil: to the end.
public struct Clip: Sendable, Hashable {
    /// The file.
    public var url: URL
    /// Where the clip starts on the file's timeline; nil: at the beginning.
    public var start: MediaTime?
    /// Where the clip ends on the file's timeline; nil: at the end.
    public var end: MediaTime?

    /// The part of `url` from `start` to `end` (nil: from the beginning, to the end).
    public init(url: URL, start: MediaTime? = nil, end: MediaTime? = nil) {
        self.url = url
        self.start = start
        self.end = end
    }

    /// The clip of `range` of `url` (`.everything`: the whole file).
    public init(url: URL, timeRange range: TimeRange) {
        self.init(url: url, start: range == .everything ? nil : range.start, end: range == .everything || !range.end.isNumeric ? nil : range.end)
    }

    /// The clip's range on `asset`'s timeline.
    /// - Throws: `.invalidData` when it starts at or after the asset's end, ends (by more than
    ///   half a millisecond) after it, or ends before it starts.
    public func timeRange(in asset: Asset) throws -> TimeRange {
        let duration = asset.duration
        let from = start ?? .zero
        let ms = { (t: MediaTime) in String(format: "%.3f", t.seconds) }   // (to the millisecond)
        let shown = ms(duration)
        if let end, end <= from {
            throw MediaError(.invalidData, "the range ends (\(ms(end)) s) before it starts (\(ms(from)) s)", file: url.path)
        }
        guard from < duration else {
            throw MediaError(.invalidData, "the range starts at \(ms(from)) s, past the end (\(shown) s)", file: url.path)
        }
        guard let end else { return TimeRange(start: from, end: duration) }
        guard end <= duration + MediaTime(value: 1, timescale: 2000) else {
            throw MediaError(.invalidData, "the range ends at \(ms(end)) s, past the end (\(shown) s)", file: url.path)
        }
        return TimeRange(start: from, end: min(end, duration))
    }

    /// Opens the clip's file.
    /// - Throws: `.fileNotFound` when there is none; what `Asset(url:)` throws.
    public func open() throws -> Asset {
        guard FileManager.default.fileExists(atPath: url.path) else { throw MediaError(.fileNotFound, "no such file", file: url.path) }
        return try Asset(url: url)
    }
}

extension Clip: CustomStringConvertible {
    /// The file's path, with the range as a media fragment: `a.mp4#t=1.5,4`.
    public var description: String {
        guard start != nil || end != nil else { return url.path }
        func s(_ t: MediaTime?) -> String { t.map { String(format: "%g", $0.seconds) } ?? "" }
        return url.path + "#t=" + s(start) + (end == nil ? "" : "," + s(end))
    }
}
