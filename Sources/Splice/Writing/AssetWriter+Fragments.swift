import MediaCore

/// Fragmented MP4 and CMAF: AVFoundation's `movieFragmentInterval`, `outputFileTypeProfile`,
/// `preferredOutputSegmentInterval` and `initialSegmentStartTime`, and the two indexes.
extension AssetWriter {
    /// What a fragmented file is made to follow (AVFoundation's `AVFileTypeProfile`).
    public enum FileTypeProfile: String, Sendable, Hashable {
        /// CMAF (ISO/IEC 23000-19): one track per fragment, each starting with a sync sample,
        /// the `cmf2` and `cmfc` brands, one sample description and at most an offset edit per
        /// track; a source that cannot meet that is refused by name.
        case mpeg4CMAFCompliant
    }

    /// Write a fragmented movie: `moov` (with `mvex`) first, then a `moof` and `mdat` per
    /// fragment, each starting at a sync sample of the first video track at least this long after
    /// the one before. `.invalid` (the default): a plain movie. Set before `startWriting()`.
    public var movieFragmentInterval: MediaTime {
        get { settings.withLock { $0.fragments.movieFragmentInterval } }
        set { settings.withLock { $0.fragments.movieFragmentInterval = newValue } }
    }
    /// `.mpeg4CMAFCompliant`: write CMAF (fragmented, at `preferredOutputSegmentInterval`, else
    /// `movieFragmentInterval`, else every 2 s). nil (the default): no profile.
    public var outputFileTypeProfile: FileTypeProfile? {
        get { settings.withLock { $0.fragments.outputFileTypeProfile } }
        set { settings.withLock { $0.fragments.outputFileTypeProfile = newValue } }
    }
    /// The CMAF segment (and fragment) duration a profile's output aims at.
    public var preferredOutputSegmentInterval: MediaTime {
        get { settings.withLock { $0.fragments.preferredOutputSegmentInterval } }
        set { settings.withLock { $0.fragments.preferredOutputSegmentInterval = newValue } }
    }
    /// Where the fragments' decode times start (`tfdt`): a segment of a longer stream.
    /// `.invalid` (the default): 0.
    public var initialSegmentStartTime: MediaTime {
        get { settings.withLock { $0.fragments.initialSegmentStartTime } }
        set { settings.withLock { $0.fragments.initialSegmentStartTime = newValue } }
    }
    /// A fragmented file gets a segment index (`sidx`, of the first video track) after its
    /// `moov`: a DASH player's map of the fragments.
    public var writesSegmentIndex: Bool {
        get { settings.withLock { $0.fragments.writesSegmentIndex } }
        set { settings.withLock { $0.fragments.writesSegmentIndex = newValue } }
    }
    /// Fragments start at these decode times (from each track's first) rather than at the
    /// interval: a package's tracks are cut where its lead video track's segments start.
    var fragmentStarts: [MediaTime]? {
        get { settings.withLock { $0.fragments.fragmentStarts } }
        set { settings.withLock { $0.fragments.fragmentStarts = newValue } }
    }
    /// A fragmented file gets a fragment random access box (`mfra`) at its end.
    public var writesMovieFragmentRandomAccess: Bool {
        get { settings.withLock { $0.fragments.writesMovieFragmentRandomAccess } }
        set { settings.withLock { $0.fragments.writesMovieFragmentRandomAccess = newValue } }
    }
}

/// An `AssetWriter`'s fragment settings, part of its `Settings`.
struct FragmentSettings: Sendable {
    var movieFragmentInterval = MediaTime.invalid
    var outputFileTypeProfile: AssetWriter.FileTypeProfile?
    var preferredOutputSegmentInterval = MediaTime.invalid
    var initialSegmentStartTime = MediaTime.invalid
    var writesSegmentIndex = false
    var writesMovieFragmentRandomAccess = false
    /// Where fragments start, when a package plans them (`FragmentPlan.starts`).
    var fragmentStarts: [MediaTime]?

    /// The plan, or nil for a plain movie.
    /// - Throws: `.invalidOperation` for an interval that is not a positive time.
    func plan() throws -> FragmentPlan? {
        let cmaf = outputFileTypeProfile == .mpeg4CMAFCompliant
        var interval = movieFragmentInterval
        if cmaf, preferredOutputSegmentInterval.isNumeric { interval = preferredOutputSegmentInterval }
        if cmaf, !interval.isNumeric { interval = MediaTime(value: 2, timescale: 1) }
        guard interval.isNumeric else { return nil }
        guard interval > .zero else {
            throw MediaError(.invalidOperation, "the movie fragment interval is \(interval.seconds) s; it must be positive")
        }
        return FragmentPlan(interval: interval, cmaf: cmaf, startTime: initialSegmentStartTime,
                            segmentIndex: writesSegmentIndex, randomAccess: writesMovieFragmentRandomAccess, starts: fragmentStarts)
    }
}
