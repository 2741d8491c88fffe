import Foundation
import Splice

/// A command line split into flags (which must be known), options with their values, and
/// positionals; and the one place their values are read: times, ranges, clips, bit rates,
/// presets, sizes, numbers and the output.
struct ParsedArguments {
    var flags: Set<String> = []
    var options: [String: String] = [:]
    var positionals: [String] = []

    init(_ args: [String], flags known: Set<String>, options knownOptions: Set<String> = []) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                positionals.append(a)
            } else if a == "--" {
                onlyPositionals = true
            } else if known.contains(a) {
                flags.insert(a)
            } else if knownOptions.contains(a), ParsedArguments.optionalValues.contains(a) {
                // (its value only when a number follows: `--fragment out.mp4` takes none)
                if i + 1 < args.count, Double(args[i + 1]) != nil {
                    options[a] = args[i + 1]
                    i += 1
                } else {
                    options[a] = ""
                }
            } else if knownOptions.contains(a) {
                guard i + 1 < args.count else { throw UsageError(message: "missing value for '\(a)'") }
                options[a] = args[i + 1]
                i += 1
            } else {
                throw UsageError(message: "unknown option '\(a)'")
            }
            i += 1
        }
    }

    /// Options whose value may be left out (`--fragment [<seconds>]`): given as "" then.
    static let optionalValues: Set<String> = ["--fragment"]

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// `-o <output>`, required; a movie (the default) must name a kind of file Splice writes.
    func output(_ option: String = "-o", movie: Bool = true) throws -> URL {
        guard let path = options[option] else { throw UsageError(message: "missing \(option) <output>") }
        let url = URL(fileURLWithPath: path)
        if movie { _ = try Self.movieType(of: url) }
        return url
    }

    /// The kind of movie `url` names by its extension; an extension Splice does not write is a
    /// usage error (exit 64), like any other wrong argument.
    static func movieType(of url: URL) throws -> FileType {
        guard let type = FileType(pathExtension: url.pathExtension) else {
            throw UsageError(message: "cannot write '.\(url.pathExtension)' files (\(url.path)); Splice writes "
                             + FileType.allCases.map { "." + $0.rawValue }.joined(separator: ", "))
        }
        return type
    }

    /// `--tracks <list>` and `--exclude-tracks <list>`: track IDs and media types (`1,3`,
    /// `audio,subtitle`), every ID one of `asset`'s tracks.
    func trackSelection(of asset: Asset) throws -> TrackSelection {
        do {
            let selection = TrackSelection(including: try options["--tracks"].map(TrackSelection.items),
                                           excluding: try options["--exclude-tracks"].map(TrackSelection.items) ?? [])
            try selection.check(against: asset)
            return selection
        } catch let error as MediaError {
            throw UsageError(message: error.message)
        }
    }

    /// The options of `trackSelection()`, and their help.
    static let trackOptions: Set<String> = ["--tracks", "--exclude-tracks"]
    static let trackHelp = """
          --tracks <list>         Keep only these tracks: IDs and media types, comma-separated
                                  (1,3 or video,audio,subtitle or video,4; see 'splice inspect').
          --exclude-tracks <list> Leave these tracks out (IDs or media types). A reference (tref)
                                  to a track left out is dropped, and a group whose default track
                                  is left out gets a new default, each said in a note.
        """

    /// The positionals, exactly `count` of them (`names` for the message).
    func positionals(_ count: Int, _ names: String) throws -> [String] {
        guard positionals.count == count else { throw UsageError(message: positionals.count < count ? "expected \(names)" : "too many arguments") }
        return positionals
    }

    /// An option's time (seconds or [hh:]mm:ss[.fff]); nil when not given.
    func time(_ option: String) throws -> MediaTime? {
        try options[option].map { try Self.time($0, in: option) }
    }

    /// `<start>,<end>`; nil when not given.
    func range(_ option: String) throws -> TimeRange? {
        guard let text = options[option] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // (START, to the end; ,END from the start)
        guard parts.count == 2, parts.contains(where: { !$0.isEmpty }),
              let start = parts[0].isEmpty ? 0 : Self.seconds(parts[0]), let end = parts[1].isEmpty ? .infinity : Self.seconds(parts[1]) else {
            throw UsageError(message: "\(option) takes <start>,<end> (seconds or [hh:]mm:ss[.fff]; either may be left out)")
        }
        guard end > start else { throw UsageError(message: "\(option) ends (\(parts[1])) before it starts (\(parts[0]))") }
        let from = MediaTime(seconds: start, preferredTimescale: 90_000)
        return TimeRange(start: from, end: end.isInfinite ? .positiveInfinity : MediaTime(seconds: end, preferredTimescale: 90_000))
    }

    /// A number within `range`; `fallback` when not given.
    func number(_ option: String, in range: ClosedRange<Double>, default fallback: Double? = nil) throws -> Double? {
        guard let text = options[option] else { return fallback }
        guard let v = Double(text), range.contains(v) else {
            throw UsageError(message: "\(option) takes a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), not '\(text)'")
        }
        return v
    }

    /// A whole number within `range`; nil when not given.
    func integer(_ option: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = options[option] else { return nil }
        guard let v = Int(text), range.contains(v) else {   // lint: checked (parses text: nil when it is not a number)
            throw UsageError(message: "\(option) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A bit rate: `128k`, `1.5M`, `192000` (8 kb/s to 10 Mb/s); nil when not given.
    func bitRate(_ option: String) throws -> Int? {
        guard let text = options[option] else { return nil }
        let lower = text.lowercased()
        let (digits, scale): (Substring, Double) = lower.hasSuffix("k") ? (lower.dropLast(), 1000) : lower.hasSuffix("m") ? (lower.dropLast(), 1_000_000) : (Substring(lower), 1)
        guard let v = Double(digits), v > 0, let rate = (v * scale).rounded(saturating: Int.self), rate >= 8000, rate <= 10_000_000 else {
            throw UsageError(message: "'\(text)' is not a bit rate (128k, 192000)")
        }
        return rate
    }

    /// One option's help: `name` in the first columns, `text` wrapped beside it — for text that
    /// holds lists made from the `FileType` rows.
    static func optionHelp(_ name: String, _ text: String, column: Int = 26, width: Int = 92) -> String {
        wrapped(text, first: "  " + name + String(repeating: " ", count: max(1, column - 2 - name.count)),
                indent: String(repeating: " ", count: column), width: width)
    }

    /// `text` wrapped to `width` columns, its first line after `first`, the others after `indent`.
    static func wrapped(_ text: String, first: String = "", indent: String = "", width: Int = 84) -> String {
        var lines: [String] = [], line = first
        var empty = true
        for word in text.split(separator: " ") {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// The containers without edit lists that hold video, as help lists them: ".mkv, .webm and .ts".
    static var filesWithoutEditLists: String {
        FileType.listing(FileType.allCases.filter { !$0.hasEditLists && !$0.holdsSoundOnly }, "and")
    }

    /// The help of `--cut`: `what` it decides ("How a cut between sync samples"), and a last
    /// line of the command's own.
    static func cutHelp(_ what: String, last: String? = nil) -> String {
        """
          --cut <mode>            \(what) is written:
                                  smart (default): the frames from the cut to the next
                                  sync sample, and from the last copied one to the cut's end, are
                                  re-encoded (the sound around each join too), the rest copied;
                                  every stored frame is shown, so it plays right in every player
                                  (H.264, HEVC, VP9, AV1; other codecs: a note says what instead).
                                  exact (MP4/MOV only): every packet copied, the rest hidden by
                                  the edit list (AVFoundation's layout, right in QuickTime).
                                  keyframe: cuts move to sync samples, nothing re-encoded (the
                                  times are printed).
                                  Without --cut, what cannot be cut smart falls back (with edit
                                  lists into MP4/MOV, at sync samples elsewhere), saying so; a
                                  mode given is honoured or refused (exit 65, nothing written).
        """ + (last.map { "\n" + optionHelp("", $0) } ?? "")
    }

    /// `--cut smart|exact|keyframe`, when given.
    func cutMode() throws -> CutMode? {
        guard let value = options["--cut"] else { return nil }
        guard let mode = CutMode(rawValue: value) else { throw UsageError(message: "--cut takes smart, exact or keyframe") }
        return mode
    }

    /// `--preset <name>`; `fallback` when not given.
    func preset(default fallback: ExportPreset = .highestQuality) throws -> ExportPreset {
        guard let name = options["--preset"] else { return fallback }
        guard let p = ExportPreset(rawValue: name) else {
            throw UsageError(message: "no preset named '\(name)'; the presets are " + ExportPreset.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return p
    }

    /// `<w>x<h>` within 16…16384 (even with `even`); nil when not given.
    func size(_ option: String, even: Bool = false) throws -> Dimensions? {
        guard let text = options[option] else { return nil }
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }   // lint: checked (parses text: nil when it is not a number)
        guard parts.count == 2, parts.allSatisfy({ (16...16384).contains($0) && (!even || $0 % 2 == 0) }) else {
            throw UsageError(message: "\(option) takes <width>x<height>\(even ? ", even," : ""), 16 to 16384 (1920x1080), not '\(text)'")
        }
        return Dimensions(width: parts[0], height: parts[1])
    }

    /// A codec of `Codec`'s; nil when not given.
    func codec<Codec: RawRepresentable & CaseIterable>(_ option: String, _ type: Codec.Type, except: [Codec] = []) throws -> Codec?
    where Codec.RawValue == String, Codec: Equatable {
        guard let text = options[option] else { return nil }
        guard let codec = Codec(rawValue: text), !except.contains(codec) else {
            throw UsageError(message: "\(option) takes " + Codec.allCases.filter { !except.contains($0) }.map(\.rawValue).joined(separator: ", "))
        }
        return codec
    }

    /// `--progress json`: whether it was given (the only value it takes).
    func jsonProgress() throws -> Bool {
        guard let value = options["--progress"] else { return false }
        guard value == "json" else { throw UsageError(message: "--progress takes 'json'") }
        return true
    }

    /// A clip: `FILE`, or `FILE#t=START,END` (W3C Media Fragments: `#t=10,20`; `#t=10` to the
    /// end; `#t=,20` from the start).
    static func clip(_ text: String) throws -> Clip {
        guard let hash = text.range(of: "#t=", options: .backwards) else { return Clip(url: URL(fileURLWithPath: text)) }
        let url = URL(fileURLWithPath: String(text[..<hash.lowerBound]))
        let times = text[hash.upperBound...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard times.count <= 2, !times.allSatisfy(\.isEmpty) else { throw UsageError(message: "\(text): '#t=' takes START,END, START or ,END") }
        func time(_ s: String) throws -> MediaTime? {
            guard !s.isEmpty else { return nil }
            guard let t = seconds(s) else { throw UsageError(message: "\(text): '\(s)' is not a time (seconds or [hh:]mm:ss[.fff])") }
            return MediaTime(seconds: t, preferredTimescale: 90_000)
        }
        let start = try time(times[0]), end = times.count == 2 ? try time(times[1]) : nil
        if let start, let end, end <= start { throw UsageError(message: "\(text): the range ends before it starts") }
        return Clip(url: url, start: start, end: end)
    }

    static func time(_ text: String, in option: String) throws -> MediaTime {
        guard let s = seconds(text) else { throw UsageError(message: "\(option) takes a time (seconds or [hh:]mm:ss[.fff]), not '\(text)'") }
        return MediaTime(seconds: s, preferredTimescale: 90_000)
    }

    /// Seconds from `1.5`, `01:02.5` or `1:02:03.25`.
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil && $0! >= 0 && $0!.isFinite }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! }
    }
}
