import Dispatch
import Foundation
import MediaCore

/// One output track of an `AssetWriter`: takes sample buffers and says when it is ready for more.
///
/// Set its properties before `AssetWriter.startWriting()`. Feed it from a serial queue, with
/// this loop; it ends at the end of the samples and when writing fails or is cancelled (the
/// block then runs once more, `isReadyForMoreMediaData` is `true` and `append(_:)` returns
/// `false`), so a `DispatchGroup` left there is always left exactly once:
///
/// ```swift
/// group.enter()
/// input.requestMediaDataWhenReady(on: queue) {
///     while input.isReadyForMoreMediaData {
///         guard let sample = output.copyNextSampleBuffer(), input.append(sample) else {
///             input.markAsFinished()
///             group.leave()
///             return
///         }
///     }
/// }
/// ```
public final class AssetWriterInput: Sendable {
    /// What the track written carries.
    public let mediaType: MediaType
    /// `nil`: samples are written as they are. `.video(…)`/`.audio(…)`: the input takes decoded
    /// samples (pictures, PCM) and encodes them.
    public let outputSettings: EncodingSettings?
    /// The format of the samples to come; its ISO sample entry is written byte-exact.
    public let sourceFormatHint: FormatDescription?

    /// The input's settings, as its properties set them; one lock for all.
    private struct Settings {
        var languageCode: String? = nil
        var extendedLanguageTag: String? = nil
        var marksOutputTrackAsEnabled: Bool = true
        var name: String? = nil
        var mediaTimeScale: Int32 = 0
        var naturalSize: Dimensions? = nil
        var transform: AffineTransform2D? = nil
        var preferredVolume: Float? = nil
        var preferredMediaChunkDuration: MediaTime = MediaTime(value: 1, timescale: 2)
        var isForced: Bool = false
        var mediaCharacteristics: Set<MediaCharacteristic> = []
        var segments: [TrackSegment]? = nil
        var cut: TrackCut? = nil
        weak var writer: AssetWriter?
        /// Its position among the writer's inputs (its state is `WriterCore.states[index]`).
        var index = 0
        /// Stages added by hand (`add(stage:)`), beyond those its settings make.
        var addedStages = false
        var sharesEquivalentDescriptions: Bool = false
        var passthrough: TrackPassthrough? = nil
        var frameRateHint: (num: Int32, den: Int32)? = nil
        var timecodeTag: String? = nil
        var presentationLead: MediaTime = .zero
        var sourceTrackID: Int? = nil
        var expectsMediaDataInRealTime = false
        var performsMultiPassEncodingIfSupported = false
    }

    private let settings = Mutex(Settings())

    /// ISO 639-2/T language for `mdhd` (`und` when nil).
    public var languageCode: String? {
        get { settings.withLock { $0.languageCode } }
        set { settings.withLock { $0.languageCode = newValue } }
    }
    /// BCP 47 tag for `elng`.
    public var extendedLanguageTag: String? {
        get { settings.withLock { $0.extendedLanguageTag } }
        set { settings.withLock { $0.extendedLanguageTag = newValue } }
    }
    /// Whether the track is enabled when it is in no group (groups decide for their members).
    public var marksOutputTrackAsEnabled: Bool {
        get { settings.withLock { $0.marksOutputTrackAsEnabled } }
        set { settings.withLock { $0.marksOutputTrackAsEnabled = newValue } }
    }
    /// The handler name (`hdlr`).
    public var name: String? {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }
    /// The media timescale; 0 takes the timescale of the first sample's decode time.
    public var mediaTimeScale: Int32 {
        get { settings.withLock { $0.mediaTimeScale } }
        set { settings.withLock { $0.mediaTimeScale = newValue } }
    }
    /// The track's visual size (`tkhd` width/height); defaults to the format's dimensions.
    public var naturalSize: Dimensions? {
        get { settings.withLock { $0.naturalSize } }
        set { settings.withLock { $0.naturalSize = newValue } }
    }
    /// The track's display transform (`tkhd` matrix): a copied track's, or identity, when nil.
    public var transform: AffineTransform2D? {
        get { settings.withLock { $0.transform } }
        set { settings.withLock { $0.transform = newValue } }
    }
    /// Audio volume, 0…1 (`tkhd`); 1 for audio tracks when nil.
    public var preferredVolume: Float? {
        get { settings.withLock { $0.preferredVolume } }
        set { settings.withLock { $0.preferredVolume = newValue } }
    }
    /// How much media to gather per chunk before interleaving with other tracks.
    public var preferredMediaChunkDuration: MediaTime {
        get { settings.withLock { $0.preferredMediaChunkDuration } }
        set { settings.withLock { $0.preferredMediaChunkDuration = newValue } }
    }
    /// Forced subtitles: Matroska's forced flag; a text track converted to tx3g for MP4/MOV gets
    /// the all-samples-forced display flag.
    public var isForced: Bool {
        get { settings.withLock { $0.isForced } }
        set { settings.withLock { $0.isForced = newValue } }
    }
    /// `.describesMusicAndSoundForAccessibility` and `.describesVideoForAccessibility` become
    /// Matroska's hearing- and visual-impaired flags and Apple's tagged characteristics in MP4/MOV.
    public var mediaCharacteristics: Set<MediaCharacteristic> {
        get { settings.withLock { $0.mediaCharacteristics } }
        set { settings.withLock { $0.mediaCharacteristics = newValue } }
    }
    /// Whether samples arrive as they are captured (AVFoundation's live-capture hint). Splice
    /// writes files from files: it is kept for code written for AVFoundation and changes nothing.
    public var expectsMediaDataInRealTime: Bool {
        get { settings.withLock { $0.expectsMediaDataInRealTime } }
        set { settings.withLock { $0.expectsMediaDataInRealTime = newValue } }
    }
    /// AVFoundation's request for two-pass encoding. Splice's encoders make one pass (at the
    /// settings' CRF or bit rate): it is kept for code written for AVFoundation and changes nothing.
    public var performsMultiPassEncodingIfSupported: Bool {
        get { settings.withLock { $0.performsMultiPassEncodingIfSupported } }
        set { settings.withLock { $0.performsMultiPassEncodingIfSupported = newValue } }
    }
    /// The edit list to write, in movie time; `nil` for none (or one derived from the session times).
    public var segments: [TrackSegment]? {
        get { settings.withLock { $0.segments } }
        set { settings.withLock { $0.segments = newValue } }
    }
    /// The cut this input shows (a ranged copy's, with no `segments`): video is kept from the
    /// sync sample it reads from, and the edit list ends where it ends; nil: the session's times.
    var cut: TrackCut? {
        get { settings.withLock { $0.cut } }
        set { settings.withLock { $0.cut = newValue } }
    }

    // Set when the input is added (`writer`) or while the writer is configured (the rest).
    var writer: AssetWriter? {
        get { settings.withLock { $0.writer } }
        set { settings.withLock { $0.writer = newValue } }
    }
    /// Its `tref`s, under a lock of their own (`addTrackAssociation` may run on any thread).
    var associations: [(type: TrackAssociationType, input: AssetWriterInput)] { trackAssociations.withLock { $0 } }
    private let trackAssociations = Locked([(type: TrackAssociationType, input: AssetWriterInput)]())
    /// Samples from several files (a composition): sample descriptions that differ only in what a
    /// decoder ignores share one entry.
    var sharesEquivalentDescriptions: Bool {
        get { settings.withLock { $0.sharesEquivalentDescriptions } }
        set { settings.withLock { $0.sharesEquivalentDescriptions = newValue } }
    }
    /// Boxes and fields carried over from a source MP4/MOV track (see `init(copying:)`).
    var passthrough: TrackPassthrough? {
        get { settings.withLock { $0.passthrough } }
        set { settings.withLock { $0.passthrough = newValue } }
    }
    /// The source's stated frame rate, for containers that store one (Matroska's `DefaultDuration`).
    var frameRateHint: (num: Int32, den: Int32)? {
        get { settings.withLock { $0.frameRateHint } }
        set { settings.withLock { $0.frameRateHint = newValue } }
    }
    /// A start timecode to store as the track's TIMECODE tag (Matroska), for a timecode track
    /// the container cannot hold.
    var timecodeTag: String? {
        get { settings.withLock { $0.timecodeTag } }
        set { settings.withLock { $0.timecodeTag = newValue } }
    }
    /// How far presentation may come before decode in the source (negative composition
    /// offsets): containers that store both times, or check them, get decode times that much earlier.
    var presentationLead: MediaTime {
        get { settings.withLock { $0.presentationLead } }
        set { settings.withLock { $0.presentationLead = newValue } }
    }
    /// The ID of the track this input copies or re-encodes, which messages name it by.
    var sourceTrackID: Int? {
        get { settings.withLock { $0.sourceTrackID } }
        set { settings.withLock { $0.sourceTrackID = newValue } }
    }
    /// Its position among its writer's inputs (set when it is added).
    var index: Int {
        get { settings.withLock { $0.index } }
        set { settings.withLock { $0.index = newValue } }
    }
    /// The writer it was added to, and its position there, read at once.
    var link: (writer: AssetWriter, index: Int)? {
        settings.withLock { s in s.writer.map { ($0, s.index) } }
    }
    /// Its stages (an encoder, a text conversion), under a lock taken before the writer's.
    let stages = Mutex(InputStages())
    /// Whether samples go through stages before they are queued: an encoder, a text
    /// conversion, or stages added by hand.
    var hasStages: Bool {
        outputSettings != nil || mediaType == .text || mediaType == .subtitle || settings.withLock { $0.addedStages }
    }

    /// Adds `stage` after the input's own, before the first sample (a stage shared with its
    /// maker, which is `Sendable` for that).
    func add(stage: any SampleStage & Sendable) {
        settings.withLock { $0.addedStages = true }
        stages.withLock { $0.added.append(stage) }
    }

    /// Makes an input for `mediaType` samples.
    /// - Parameters:
    ///   - mediaType: what the track carries.
    ///   - outputSettings: `nil` writes samples as they are; encoding settings encode decoded samples.
    ///   - sourceFormatHint: the samples' format; its sample entry is written as is.
    public init(mediaType: MediaType, outputSettings: EncodingSettings? = nil, sourceFormatHint: FormatDescription? = nil) {
        self.mediaType = mediaType
        self.outputSettings = outputSettings
        self.sourceFormatHint = sourceFormatHint
    }

    /// Makes an input that writes `track` as it is: its format, language, `elng`, name, enabled
    /// flag, media timescale, forced flag, accessibility characteristics and edit list, and — for
    /// an MP4/MOV track — its header fields (matrix, volume, layer, dates) and every box Splice
    /// does not interpret. What `SamplePipe.mirroring` uses for each track.
    public convenience init(copying track: AssetTrack) {
        self.init(mediaType: track.mediaType, outputSettings: nil, sourceFormatHint: track.formatDescriptions.first)
        copyProperties(of: track)
        mediaTimeScale = track.naturalTimeScale
        segments = track.segments.isEmpty ? nil : track.segments
        passthrough = track.backing.isoStructure
        frameRateHint = track.backing.frameRate
        presentationLead = track.backing.presentationLead
    }

    /// Takes `track`'s language, `elng`, name, enabled and forced flags, accessibility
    /// characteristics, matrix and volume — what a re-encoded copy of the track keeps.
    public func copyProperties(of track: AssetTrack) {
        sourceTrackID = track.trackID
        languageCode = track.languageCode
        extendedLanguageTag = track.extendedLanguageTag
        name = track.name
        marksOutputTrackAsEnabled = track.isEnabled
        isForced = track.isForced
        mediaCharacteristics = Set([MediaCharacteristic.describesMusicAndSoundForAccessibility, .describesVideoForAccessibility]
            .filter(track.hasMediaCharacteristic))
        if track.mediaType == .video, track.preferredTransform != .identity { transform = track.preferredTransform }
        if track.mediaType == .audio, track.preferredVolume != 1 { preferredVolume = track.preferredVolume }
    }

    /// Whether `append(_:)` would take a sample now: `false` while this track is far enough
    /// ahead of the others (or holds a full chunk), after `markAsFinished()`, and once writing
    /// completes. After writing failed or was cancelled it is `true` until `markAsFinished()`,
    /// so that a feeding loop runs on to `append(_:)`, which returns `false`.
    public var isReadyForMoreMediaData: Bool {
        link.map { $0.writer.isReady(at: $0.index) } ?? false
    }

    /// Calls `block` on `queue` whenever the input is ready for more data, until it is marked
    /// finished or writing ends (then `block` runs once more so it can see the writer's status).
    /// An input not added to a writer (`AssetWriter.add(_:)` threw, or was never called) has no
    /// writer to run it: the block is not kept.
    public func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        if let (writer, i) = link { writer.setRequest(at: i, queue: queue, block: block) }
    }

    /// Appends a sample. Returns `false` when it cannot be written; the writer's `status` and
    /// `error` then say why (and always for an input that was not added to a writer). Before
    /// `startWriting()` it fails the writer, saying so (AVFoundation raises an exception).
    @discardableResult
    public func append(_ sample: SampleBuffer) -> Bool {
        link.map { $0.writer.append(sample, to: self, at: $0.index) } ?? false
    }

    /// Says that no more samples come for this track.
    public func markAsFinished() {
        if let (writer, i) = link { writer.markAsFinished(self, at: i) }
    }

    /// Whether a `tref` of `type` from this input's track to `input`'s can be added.
    public func canAddTrackAssociation(withTrackOf input: AssetWriterInput, type: TrackAssociationType) -> Bool {
        input !== self && writer != nil && input.writer === writer && writer?.status == .unknown
            && !associations.contains { $0.type == type && $0.input === input }
    }

    /// Adds a `tref` of `type` pointing from this input's track to `input`'s (several targets and
    /// several types per track are fine).
    public func addTrackAssociation(withTrackOf input: AssetWriterInput, type: TrackAssociationType) {
        guard input !== self, writer != nil, input.writer === writer, writer?.status == .unknown else { return }
        trackAssociations.withLock { list in
            if !list.contains(where: { $0.type == type && $0.input === input }) { list.append((type, input)) }
        }
    }
}

extension AssetWriterInput {
    /// Appends `samples` in order, as as many calls of `append(_:)` do; a copy takes the
    /// writer's lock once for them all. `false` as `append(_:)` returns it.
    func append(contentsOf samples: [SampleBuffer]) -> Bool {
        link.map { $0.writer.append(contentsOf: samples, to: self, at: $0.index) } ?? false
    }
}
