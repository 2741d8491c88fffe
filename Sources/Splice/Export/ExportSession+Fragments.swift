import MediaCore

/// An export into fragmented MP4 or CMAF: the `AssetWriter` settings of the same names, passed
/// to the session's writer.
extension ExportSession {
    /// See `AssetWriter.movieFragmentInterval`: `.invalid` (the default) writes a plain movie.
    public var movieFragmentInterval: MediaTime {
        get { setting(\.fragments.movieFragmentInterval) }
        set { set(\.fragments.movieFragmentInterval, newValue) }
    }
    /// See `AssetWriter.outputFileTypeProfile`.
    public var outputFileTypeProfile: AssetWriter.FileTypeProfile? {
        get { setting(\.fragments.outputFileTypeProfile) }
        set { set(\.fragments.outputFileTypeProfile, newValue) }
    }
    /// See `AssetWriter.preferredOutputSegmentInterval`.
    public var preferredOutputSegmentInterval: MediaTime {
        get { setting(\.fragments.preferredOutputSegmentInterval) }
        set { set(\.fragments.preferredOutputSegmentInterval, newValue) }
    }
    /// See `AssetWriter.initialSegmentStartTime`.
    public var initialSegmentStartTime: MediaTime {
        get { setting(\.fragments.initialSegmentStartTime) }
        set { set(\.fragments.initialSegmentStartTime, newValue) }
    }
    /// See `AssetWriter.writesSegmentIndex`.
    public var writesSegmentIndex: Bool {
        get { setting(\.fragments.writesSegmentIndex) }
        set { set(\.fragments.writesSegmentIndex, newValue) }
    }
    /// See `AssetWriter.writesMovieFragmentRandomAccess`.
    public var writesMovieFragmentRandomAccess: Bool {
        get { setting(\.fragments.writesMovieFragmentRandomAccess) }
        set { set(\.fragments.writesMovieFragmentRandomAccess, newValue) }
    }
}
