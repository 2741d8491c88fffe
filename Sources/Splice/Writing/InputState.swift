import Foundation
import Dispatch
import MediaCore
import ISOBMFF

/// What an `AssetWriter` keeps of one input while it writes, guarded by the writer's lock: the
/// request plumbing, the timing of what was appended, the samples waiting for their chunk, and
/// the input's transform stages.
/// Its per-sample state is `@exclusivity(unchecked)`: it is used under the writer's lock; see
/// "Access checks on the sample path" in docs/design-notes.md.
final class InputState {
    /// The input's position among the writer's inputs (its track is `index + 1`).
    let index: Int
    /// How messages name the input's track: its source track's ID when it copies one, else its
    /// position in the output ("track 3").
    let label: String
    @exclusivity(unchecked) var isFinished = false

    // The request block and the queue it runs on (see `AssetWriter.pump`).
    var requestQueue: DispatchQueue?
    var requestBlock: (@Sendable () -> Void)?
    var isScheduled = false
    var sawTerminalStatus = false

    /// The timescale the samples are stored in: the input's `mediaTimeScale`, else the first
    /// sample's (0 until then).
    @exclusivity(unchecked) var timescale: Int32 = 0
    @exclusivity(unchecked) var firstDecodeTime: Int64?
    @exclusivity(unchecked) var lastDecodeTime: Int64?
    /// The latest presentation end (time + duration − trimmed end) of the samples so far.
    @exclusivity(unchecked) var presentationEnd: Int64?
    @exclusivity(unchecked) var earliestPresentation: Int64?
    /// The first sample's format (what a libavformat stream is declared with when there is no hint).
    @exclusivity(unchecked) var firstFormat: FormatDescription?

    /// Samples waiting for their chunk, in decode order.
    @exclusivity(unchecked) var pending: [PendingSample] = []
    /// Bytes held in memory by `pending`.
    @exclusivity(unchecked) var pendingBytes = 0
    /// The latest interleaving window a sample of this input fell in.
    @exclusivity(unchecked) var frontier: Int64 = -1

    /// Video samples before the session start, held until a sample shown after it arrives:
    /// only those from the last sync sample before the start are kept (nil once one has).
    @exclusivity(unchecked) var preroll: RangeFilter?
    @exclusivity(unchecked) var prerollDecided = false

    /// The stages samples go through before they are queued, in order (`SampleStage`).
    @exclusivity(unchecked) var stages: [any SampleStage] = []
    /// Runs this input's stages one at a time (taken before the writer's lock, never inside it).
    let stageLock = NSLock()
    /// The timescale stages make new samples in: the input's `mediaTimeScale`, else the first
    /// appended sample's (0 until then).
    @exclusivity(unchecked) var stageTimescale: Int32 = 0
    /// Whether the stages have been asked for what they hold (once, at the input's end).
    @exclusivity(unchecked) var stagesFinished = false
    /// The text stage among them: tx3g ↔ the container's text packets (passes other samples).
    @exclusivity(unchecked) var text: TextConversion?

    init(index: Int, sourceTrackID: Int? = nil) {
        self.index = index
        label = "track \(sourceTrackID ?? index + 1)"
    }

    /// Drops the pending samples (the writer failed or was cancelled).
    func discardPending() {
        pending = []
        pendingBytes = 0
    }

    /// Removes the first `count` pending samples (written).
    func removePending(_ count: Int) {
        guard count > 0 else { return }
        for s in pending[..<count] { if case .bytes = s.storage { pendingBytes -= s.length } }
        pending.removeFirst(count)
    }
}

/// A sample waiting for its chunk to be written, its times in its input's timescale.
struct PendingSample {
    var storage: SampleBuffer.Storage
    var length: Int
    var decodeTime: Int64
    var compositionOffset: Int64
    var duration: Int64
    var isSync: Bool
    var dependency: UInt8?
    /// The sample description it refers to (MP4/MOV), 1-based.
    var descriptionIndex: UInt32
    /// The interleaving window its decode time falls in.
    var window: Int64
    var trimDurationAtEnd: MediaTime = .zero
}

/// What a copied MP4/MOV track keeps from its source beyond the public properties.
struct TrackPassthrough: Sendable {
    var header: TrackHeader
    var mediaHeader: MediaHeader
    var handler: HandlerBox
    var mediaInformationBoxes: [RawBox]
    var otherTrackBoxes: [RawBox]
    var otherMediaBoxes: [RawBox]
    /// `sgpd`/`sbgp`/`subs`…: they index samples, so they are kept only when every sample is copied.
    var sampleTableBoxes: [RawBox]
    /// The source's sample count: `sampleTableBoxes` are written only when the output has as many.
    var expectedSampleCount: Int
    /// A protected track's auxiliary encryption information (every sample's IV and subsample
    /// map): written again, with the output's offsets, when every sample is copied.
    var encryption: SampleEncryption? = nil
    /// The source's sample entries, in its order: a copy keeps them so (and their numbers),
    /// used or not.
    var sampleEntries: [Data] = []
}
