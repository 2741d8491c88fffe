import Foundation
import Splice

/// `--fragment [<seconds>]`, `--cmaf`, `--sidx` and `--mfra`: fragmented MP4 and CMAF from every
/// subcommand that writes MP4 (`AssetWriter.movieFragmentInterval` and its neighbours).
enum FragmentOptions {
    static let flags: Set<String> = ["--cmaf", "--sidx", "--mfra"]
    static let options: Set<String> = ["--fragment"]
    static let usage = "[--fragment [<seconds>]] [--cmaf] [--sidx] [--mfra]"
    static let help = """
          --fragment [<s>]        Write fragmented MP4: the movie header first, then a fragment (moof,
                                  mdat) every <s> seconds (default 2), each starting at a sync sample.
          --cmaf                  Write CMAF: fragmented, one track per fragment, cmfc/cmf2 brands.
          --sidx                  Add a segment index (sidx) after the movie header (DASH).
          --mfra                  Add a fragment random access box (mfra) at the end.
        """

    /// What the arguments ask for; nil when no fragment option is given.
    struct Choice {
        var interval: MediaTime?
        var cmaf: Bool
        var segmentIndex: Bool
        var randomAccess: Bool
    }

    /// - Throws: a usage error for an index without fragments, a bad interval, or an output that
    ///   is not MP4/MOV (CMAF: not MP4).
    static func parse(_ args: ParsedArguments, output: FileType) throws -> Choice? {
        let cmaf = args.has("--cmaf"), sidx = args.has("--sidx"), mfra = args.has("--mfra")
        guard let text = args.options["--fragment"] else {
            if cmaf { return try check(Choice(interval: nil, cmaf: true, segmentIndex: sidx, randomAccess: mfra), output) }
            if sidx || mfra { throw UsageError(message: "\(sidx ? "--sidx" : "--mfra") indexes fragments: add --fragment or --cmaf") }
            return nil
        }
        var interval = MediaTime(value: 2, timescale: 1)
        if !text.isEmpty {
            guard let s = Double(text), s >= 0.1, s <= 3600 else {
                throw UsageError(message: "--fragment takes a number of seconds from 0.1 to 3600, not '\(text)'")
            }
            interval = MediaTime(seconds: s, preferredTimescale: 90_000)
        }
        return try check(Choice(interval: interval, cmaf: cmaf, segmentIndex: sidx, randomAccess: mfra), output)
    }

    private static func check(_ choice: Choice, _ output: FileType) throws -> Choice {
        let fragmented = FileType.allCases.filter(\.movesIndexToFront)
        guard output.movesIndexToFront else {
            throw UsageError(message: "--fragment and --cmaf write \(fragmented.map { "." + $0.rawValue }.joined(separator: ", ")) files, not .\(output.rawValue)")
        }
        if choice.cmaf, output == .mov { throw UsageError(message: "--cmaf writes .mp4, .m4v or .m4a files, not .mov") }
        return choice
    }

    static func apply(_ choice: Choice?, to writer: AssetWriter) {
        guard let choice else { return }
        if let interval = choice.interval { writer.movieFragmentInterval = interval }
        if choice.cmaf { writer.outputFileTypeProfile = .mpeg4CMAFCompliant }
        writer.writesSegmentIndex = choice.segmentIndex
        writer.writesMovieFragmentRandomAccess = choice.randomAccess
    }

    static func apply(_ choice: Choice?, to session: ExportSession) {
        guard let choice else { return }
        if let interval = choice.interval { session.movieFragmentInterval = interval }
        if choice.cmaf { session.outputFileTypeProfile = .mpeg4CMAFCompliant }
        session.writesSegmentIndex = choice.segmentIndex
        session.writesMovieFragmentRandomAccess = choice.randomAccess
    }
}
