// CompositionDemo: the composition demo's `VideoAudioComposition` class written with Splice —
// its four composition types, a time range per input (an empty range meaning the whole file),
// an output file type and a progress block — and a command line to run it:
//
//   swift run CompositionDemo videoAudioToVideo out.mp4 video.mp4 music.m4a#t=10,40
//   swift run CompositionDemo videoToVideo out.mp4 a.mp4#t=1,4 b.mp4
//   swift run CompositionDemo videoAudioToAudio out.m4a video.mp4 voice.wav
//   swift run CompositionDemo videosToAudio out.m4a a.mp4 b.mp4
//
// Exports are passthrough (every sample copied, cuts frame-exact through edit lists) when the
// inputs fit one track, else the mediumQuality preset re-encodes them.
import Dispatch
import Foundation
import Splice

final class VideoAudioComposition {
    enum CompositionType: String {
        /// The video's picture with the audio file's sound (trimmed to the video).
        case videoAudioToVideo
        /// The audio file's sound, then the video's sound.
        case videoAudioToAudio
        /// Videos one after the other, picture and sound.
        case videoToVideo
        /// The sound of videos (or audio files) one after the other.
        case videosToAudio
    }

    /// Where the result goes.
    var compositionName: URL
    var compositionType: CompositionType
    var outputFileType: FileType
    var progressBlock: (@Sendable (Double) -> Void)?

    init(compositionName: URL, compositionType: CompositionType, outputFileType: FileType) {
        self.compositionName = compositionName
        self.compositionType = compositionType
        self.outputFileType = outputFileType
    }

    /// A video with an audio file (`videoAudioToVideo`, `videoAudioToAudio`).
    func composition(videoURL: URL, videoTimeRange: TimeRange, audioURL: URL, audioTimeRange: TimeRange) throws {
        let composition = MutableComposition()
        let audioTrack = composition.addMutableTrack(withMediaType: .audio)!
        let videoAsset = try Asset(url: videoURL), audioAsset = try Asset(url: audioURL)
        let videoRange = fit(videoTimeRange, videoAsset)
        var audioRange = fit(audioTimeRange, audioAsset)
        if compositionType == .videoAudioToVideo {
            // The video's length rules: the audio never runs past it.
            audioRange.duration = min(audioRange.duration, videoRange.duration)
            let videoTrack = composition.addMutableTrack(withMediaType: .video)!
            try videoTrack.insertTimeRange(videoRange, of: videoAsset.tracks(withMediaType: .video)[0], at: .zero)
        }
        try audioTrack.insertTimeRange(audioRange, of: audioAsset.tracks(withMediaType: .audio)[0], at: .zero)
        if compositionType == .videoAudioToAudio, let sound = videoAsset.tracks(withMediaType: .audio).first {
            try audioTrack.insertTimeRange(videoRange, of: sound, at: audioRange.duration)
        }
        try export(composition)
    }

    /// Several inputs one after the other (`videoToVideo`, `videosToAudio`); `timeRanges` empty,
    /// or one per input.
    func composition(media: [URL], timeRanges: [TimeRange]) throws {
        precondition(timeRanges.isEmpty || timeRanges.count == media.count, "one time range per input, or none")
        let composition = MutableComposition()
        let video = compositionType == .videoToVideo ? composition.addMutableTrack(withMediaType: .video) : nil
        let audio = composition.addMutableTrack(withMediaType: .audio)!
        var at = MediaTime.zero
        for (i, url) in media.enumerated() {
            let asset = try Asset(url: url)
            let range = fit(timeRanges.isEmpty ? TimeRange(start: .zero, duration: .zero) : timeRanges[i], asset)
            if let video, let track = asset.tracks(withMediaType: .video).first {
                try video.insertTimeRange(range, of: track, at: at)
            }
            if let track = asset.tracks(withMediaType: .audio).first {
                try audio.insertTimeRange(range.intersection(track.timeRange), of: track, at: at)
            } else {
                audio.insertEmptyTimeRange(TimeRange(start: at, duration: range.duration))
            }
            at = at + range.duration
        }
        try export(composition)
    }

    /// An empty range means the whole file.
    private func fit(_ range: TimeRange, _ asset: Asset) -> TimeRange {
        range.duration > .zero ? range : TimeRange(start: .zero, duration: asset.duration)
    }

    private func export(_ composition: MutableComposition) throws {
        let asset = try composition.makeAsset()
        let fits = asset.tracks.allSatisfy { $0.passthroughProblem == nil }
        let session = ExportSession(asset: asset, preset: fits ? .passthrough : .mediumQuality)
        session.outputURL = compositionName
        session.outputFileType = outputFileType
        session.replacesExistingFile = true
        session.encodesAudioTheContainerCannotHold = true    // a WAV's PCM into MP4 becomes AAC
        session.progressHandler = progressBlock
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        done.wait()
        if let error = session.error { throw error }
    }
}

/// `file.mp4#t=1.5,4` → the file and its range (empty: the whole file).
func input(_ text: String) -> (URL, TimeRange) {
    guard let hash = text.range(of: "#t=") else { return (URL(fileURLWithPath: text), TimeRange(start: .zero, duration: .zero)) }
    let times = text[hash.upperBound...].split(separator: ",").compactMap { Double($0) }
    let start = MediaTime(seconds: times.first ?? 0, preferredTimescale: 90_000)
    let range = times.count == 2 ? TimeRange(start: start, end: MediaTime(seconds: times[1], preferredTimescale: 90_000))
                                 : TimeRange(start: start, duration: .zero)
    return (URL(fileURLWithPath: String(text[..<hash.lowerBound])), range)
}

let arguments = CommandLine.arguments
guard arguments.count >= 5, let type = VideoAudioComposition.CompositionType(rawValue: arguments[1]),
      let fileType = FileType(pathExtension: URL(fileURLWithPath: arguments[2]).pathExtension) else {
    FileHandle.standardError.write(Data("usage: CompositionDemo videoAudioToVideo|videoAudioToAudio|videoToVideo|videosToAudio <output> <input>[#t=start,end]...\n".utf8))
    exit(64)
}
let demo = VideoAudioComposition(compositionName: URL(fileURLWithPath: arguments[2]), compositionType: type, outputFileType: fileType)
nonisolated(unsafe) var shown = -1
demo.progressBlock = { p in
    let percent = Int(p * 100)
    if percent / 25 != shown / 25 { shown = percent; print("progress \(percent)%") }
}
do {
    let inputs = arguments[3...].map(input)
    switch type {
    case .videoAudioToVideo, .videoAudioToAudio:
        try demo.composition(videoURL: inputs[0].0, videoTimeRange: inputs[0].1, audioURL: inputs[1].0, audioTimeRange: inputs[1].1)
    case .videoToVideo, .videosToAudio:
        try demo.composition(media: inputs.map(\.0), timeRanges: inputs.map(\.1))
    }
    print("wrote \(arguments[2])")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
