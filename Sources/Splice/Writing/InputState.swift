import Foundation
import Dispatch
import MediaCore
import ISOBMFF
import Subtitles

/// What an `AssetWriter` keeps of one input while it writes, part of the writer's one state
/// (`WriterCore`, behind its `Mutex`): the request plumbing, the timing of what was appended,
/// the samples waiting for their chunk. A value: its fields are checked statically, and a
/// sample costs no run-time exclusivity check on them.
struct InputState {
    /// The input's position among the writer's inputs (its track is `index + 1`).
    let index: Int
    /// How messages name the input's track: its source track's ID when it copies one, else its
    /// position in the output ("track 3").
    let label: String
    var isFinished = false

    // The request block and the queue it runs on (see `AssetWriter.pump`).
    var requestQueue: DispatchQueue?
    var requestBlock: (@Sendable () -> Void)?
    var isScheduled = false
    var sawTerminalStatus = false

    /// The timescale the samples are stored in: the input's `mediaTimeScale`, else the first
    /// sample's (0 until then).
    var timescale: Int32 = 0
    var firstDecodeTime: Int64?
    var lastDecodeTime: Int64?
    /// The latest presentation end (time + duration − trimmed end) of the samples so far.
    var presentationEnd: Int64?
    var earliestPresentation: Int64?
    /// The first sample's format (what a libavformat stream is declared with when there is no hint).
    var firstFormat: FormatDescription?

    /// Samples waiting for their chunk, in decode order.
    var pending: [PendingSample] = []
    /// Bytes held in memory by `pending`.
    var pendingBytes = 0
    /// The latest interleaving window a sample of this input fell in.
    var frontier: Int64 = -1

    /// Video samples before the session start, held until a sample shown after it arrives:
    /// only those from the last sync sample before the start are kept (nil once one has).
    var preroll: RangeFilter?
    var prerollDecided = false

    /// What the text stage saw, as of the samples it handed on (the muxer declares the stream from it).
    var text: TextFacts?

    init(index: Int, sourceTrackID: Int? = nil) {
        self.index = index
        label = "track \(sourceTrackID ?? index + 1)"
    }

    /// The timescale the track is written in: its samples', else the input's `mediaTimeScale`, else `fallback`.
    func writtenTimescale(_ input: AssetWriterInput, fallback: Int32) -> Int32 {
        timescale > 0 ? timescale : (input.mediaTimeScale > 0 ? input.mediaTimeScale : fallback)
    }

    /// Drops the pending samples (the writer failed or was cancelled).
    mutating func discardPending() {
        pending = []
        pendingBytes = 0
    }

    /// Removes the first `count` pending samples (written).
    mutating func removePending(_ count: Int) {
        guard count > 0 else { return }
        for s in pending[..<count] { if case .bytes = s.storage { pendingBytes -= s.length } }
        pending.removeFirst(count)
    }
}

/// What a text input's conversion stage saw, copied into the writer's state with the samples it
/// hands on, so that the muxer never reaches into a stage (stages are locked before the writer).
struct TextFacts {
    var sawForcedText: Bool
    var header: [UInt8]
    var streamFormat: SubtitlePacketFormat?
}

/// An input's stages and what they run with, behind the input's stage lock (`AssetWriterInput.stages`),
/// which is always taken before the writer's: a stage never runs holding the writer's lock.
struct InputStages {
    /// The stages samples go through before they are queued, in order (`SampleStage`); made
    /// on the first sample.
    var list: [any SampleStage]?
    /// Stages added by hand (`AssetWriterInput.add(stage:)`), run after the input's own.
    var added: [any SampleStage] = []
    /// The timescale stages make new samples in: the input's `mediaTimeScale`, else the first
    /// appended sample's (0 until then).
    var timescale: Int32 = 0
    /// Whether the stages have been asked for what they hold (once, at the input's end).
    var finished = false
    /// The text stage among them: tx3g ↔ the container's text packets (passes other samples).
    var text: TextConversion?

    /// What the text stage saw so far.
    var textFacts: TextFacts? {
        text.map { TextFacts(sawForcedText: $0.sawForcedText, header: $0.header, streamFormat: $0.streamFormat()) }
    }

    /// The stages of `input` written into `fileType`: the encoder of an input with output
    /// settings; the text conversion of text and subtitle inputs.
    mutating func install(for input: AssetWriterInput, fileType: FileType, label: String) {
        guard list == nil else { return }
        var stages: [any SampleStage] = []
        if let settings = input.outputSettings { stages.append(EncodingStage(settings: settings, label: label)) }
        if input.mediaType == .text || input.mediaType == .subtitle {
            let text = TextConversion(fileType: fileType, isForced: input.isForced, size: input.naturalSize, label: label)
            self.text = text
            stages.append(text)
        }
        list = stages + added
    }

    /// Runs `samples` through the stages in order — with `finishing`, each stage's held samples too.
    mutating func run(_ samples: [SampleBuffer], finishing: Bool) throws -> [SampleBuffer] {
        var out = samples
        for stage in list ?? [] {
            out = try out.flatMap { try stage.process($0, timescale: timescale) } + (finishing ? stage.finish(timescale: timescale) : [])
        }
        return out
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
