// composition-demo <type> <output> <input>[#t=start,end]... [--watermark <image>]: the composition
// demo article's `VideoAudioComposition` class in AVFoundation's Swift spelling
// (SpliceAVFoundation) — its four composition types, a time range per input (an empty range
// meaning the whole file), an output file type, a progress block, and the watermark its
// introduction shows (an overlay: Splice's way to do what a CALayer does there).
//
//   composition-demo videoAudioToVideo out.mp4 video.mp4#t=1,4 music.m4a#t=2,9
//   composition-demo videoAudioToAudio out.m4a video.mp4 voice.m4a
//   composition-demo videoToVideo out.mp4 a.mp4#t=1,3 b.mp4 --watermark logo.png
//   composition-demo videoToAudio out.m4a a.mp4 b.mp4
import Dispatch
import Foundation
import SpliceAVFoundation

final class VideoAudioComposition: @unchecked Sendable {
    enum CompositionType: String {
        /// The video's picture with the audio file's sound (cut to the video's length).
        case videoAudioToVideo
        /// The audio file's sound, then the video's sound.
        case videoAudioToAudio
        /// Videos one after the other, picture and sound.
        case videoToVideo
        /// The sound of videos one after the other.
        case videoToAudio
    }
    typealias CompositionProgress = @Sendable (Float) -> Void
    typealias SuccessBlock = @Sendable (URL) -> Void

    /// Where the result goes.
    var compositionName: URL?
    var compositionType = CompositionType.videoToVideo
    /// The container of the result.
    var outputFileType = AVFileType.mp4
    var progressBlock: CompositionProgress?
    /// An image drawn in the top right corner of the picture, if any.
    var watermark: URL?
    /// Why the last composition failed.
    private(set) var error: Error?

    /// A video with an audio file.
    func composition(videoUrl: URL, videoTimeRange: CMTimeRange, audioUrl: URL, audioTimeRange: CMTimeRange,
                     success: @escaping SuccessBlock) throws {
        let composition = AVMutableComposition()
        let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
        var videoTrack: AVMutableCompositionTrack?

        let videoAsset = AVURLAsset(url: videoUrl)
        let videoTimeRange = fitTimeRange(videoTimeRange, avUrlAsset: videoAsset)
        let audioAsset = AVURLAsset(url: audioUrl)
        var audioTimeRange = fitTimeRange(audioTimeRange, avUrlAsset: audioAsset)

        if compositionType == .videoAudioToVideo {
            // The video's length rules: the sound is cut to it when it is longer.
            if CMTimeCompare(videoTimeRange.duration, audioTimeRange.duration) < 0 {
                audioTimeRange.duration = videoTimeRange.duration
            }
            // A video track only when the result has a picture.
            videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)
        }
        let audioAssetTrack = audioAsset.tracks(withMediaType: .audio).first!
        try audioTrack.insertTimeRange(audioTimeRange, of: audioAssetTrack, at: kCMTimeZero)

        switch compositionType {
        case .videoAudioToAudio:
            let videoAssetTrack = videoAsset.tracks(withMediaType: .audio).first!
            try audioTrack.insertTimeRange(videoTimeRange, of: videoAssetTrack, at: audioTimeRange.duration)
        case .videoAudioToVideo:
            let videoAssetTrack = videoAsset.tracks(withMediaType: .video).first!
            try videoTrack!.insertTimeRange(videoTimeRange, of: videoAssetTrack, at: kCMTimeZero)
        default:
            break
        }
        try compose(composition, success: success)
    }

    /// Two videos, as pictures and sound (`videoToVideo`) or as sound (`videoToAudio`).
    func composition(videoUrl: URL, videoTimeRange: CMTimeRange, mergeVideoUrl: URL, mergeVideoTimeRange: CMTimeRange,
                     success: @escaping SuccessBlock) throws {
        switch compositionType {
        case .videoToVideo: try compositionVideos([videoUrl, mergeVideoUrl], timeRanges: [videoTimeRange, mergeVideoTimeRange], success: success)
        case .videoToAudio: try compositionAudios([videoUrl, mergeVideoUrl], timeRanges: [videoTimeRange, mergeVideoTimeRange], success: success)
        default: break
        }
    }

    /// Videos one after the other; `timeRanges` empty, or one per video (an empty range: the whole video).
    func compositionVideos(_ videos: [URL], timeRanges: [CMTimeRange], success: @escaping SuccessBlock) throws {
        try compositionMedia(videos, timeRanges: timeRanges, withPicture: true, success: success)
    }

    /// The sound of files one after the other; `timeRanges` as for `compositionVideos`.
    func compositionAudios(_ audios: [URL], timeRanges: [CMTimeRange], success: @escaping SuccessBlock) throws {
        try compositionMedia(audios, timeRanges: timeRanges, withPicture: false, success: success)
    }

    private func compositionMedia(_ media: [URL], timeRanges: [CMTimeRange], withPicture: Bool, success: @escaping SuccessBlock) throws {
        precondition(timeRanges.isEmpty || timeRanges.count == media.count, "one time range per input, or none")
        let composition = AVMutableComposition()
        let videoTrack = withPicture ? composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid) : nil
        let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
        var atTime = kCMTimeZero
        for (i, url) in media.enumerated() {
            let asset = AVURLAsset(url: url)
            let timeRange = fitTimeRange(timeRanges.isEmpty ? CMTimeRangeMake(start: kCMTimeZero, duration: kCMTimeZero) : timeRanges[i],
                                         avUrlAsset: asset)
            if let videoTrack, let videoAssetTrack = asset.tracks(withMediaType: .video).first {
                try videoTrack.insertTimeRange(timeRange, of: videoAssetTrack, at: atTime)
            }
            if let audioAssetTrack = asset.tracks(withMediaType: .audio).first {
                try audioTrack.insertTimeRange(timeRange, of: audioAssetTrack, at: atTime)
            }
            atTime = CMTimeAdd(atTime, timeRange.duration)
        }
        try compose(composition, success: success)
    }

    /// An empty range means the whole file.
    private func fitTimeRange(_ timeRange: CMTimeRange, avUrlAsset: AVURLAsset) -> CMTimeRange {
        CMTimeCompare(timeRange.duration, kCMTimeZero) == 0 ? CMTimeRangeMake(start: kCMTimeZero, duration: avUrlAsset.duration) : timeRange
    }

    /// Exports: sound alone with the M4A preset, a picture copied as it is, or drawn again under
    /// the watermark; `progressBlock` polled from `progress` while the export runs.
    private func compose(_ composition: AVMutableComposition, success: @escaping SuccessBlock) throws {
        guard let outputURL = compositionName else { fatalError("compositionName: where the result goes") }
        if FileManager.default.fileExists(atPath: outputURL.path) { try FileManager.default.removeItem(at: outputURL) }
        let hasPicture = !composition.tracks(withMediaType: .video).isEmpty
        let presetName = !hasPicture ? AVAssetExportPresetAppleM4A
            : watermark != nil ? AVAssetExportPresetHighestQuality : AVAssetExportPresetPassthrough
        let exportSession = AVAssetExportSession(asset: composition, presetName: presetName)!
        exportSession.outputURL = outputURL
        exportSession.outputFileType = outputFileType
        exportSession.shouldOptimizeForNetworkUse = true
        if let watermark, hasPicture {
            let videoComposition = AVMutableVideoComposition(propertiesOf: composition)
            let image = try StillImage(contentsOf: watermark)
            let size = videoComposition.renderSize
            let frame = CGRect(x: size.width - CGFloat(image.width) - 16, y: 16, width: CGFloat(image.width), height: CGFloat(image.height))
            videoComposition.overlays.append(VideoCompositionOverlay(image: image, frame: frame, opacity: 1))
            exportSession.videoComposition = videoComposition
        }

        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "progress"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        let progressBlock = self.progressBlock
        timer.setEventHandler { progressBlock?(exportSession.progress) }
        timer.resume()
        let done = DispatchSemaphore(value: 0)
        exportSession.exportAsynchronously { done.signal() }
        done.wait()
        timer.cancel()
        switch exportSession.status {
        case .completed:
            progressBlock?(1)
            success(outputURL)
        default:
            error = exportSession.error
            throw exportSession.error ?? CocoaError(.fileWriteUnknown)
        }
    }
}

/// `file.mp4#t=1.5,4` → the file and its range (empty: the whole file).
func input(_ text: String) -> (URL, CMTimeRange) {
    guard let hash = text.range(of: "#t=") else { return (URL(fileURLWithPath: text), kCMTimeRangeZero) }
    let times = text[hash.upperBound...].split(separator: ",").compactMap { Double($0) }
    let start = CMTimeMakeWithSeconds(times.first ?? 0, preferredTimescale: 90_000)
    let end = times.count == 2 ? CMTimeMakeWithSeconds(times[1], preferredTimescale: 90_000) : start
    return (URL(fileURLWithPath: String(text[..<hash.lowerBound])), CMTimeRangeFromTimeToTime(start: start, end: end))
}

var arguments = Array(CommandLine.arguments.dropFirst())
var watermark: URL?
if let i = arguments.firstIndex(of: "--watermark"), i + 1 < arguments.count {
    watermark = URL(fileURLWithPath: arguments[i + 1])
    arguments.removeSubrange(i...i + 1)
}
guard arguments.count >= 4, let type = VideoAudioComposition.CompositionType(rawValue: arguments[0]),
      let fileType = AVFileType(pathExtension: URL(fileURLWithPath: arguments[1]).pathExtension) else {
    FileHandle.standardError.write(Data("usage: composition-demo videoAudioToVideo|videoAudioToAudio|videoToVideo|videoToAudio <output> <input>[#t=start,end]... [--watermark <image>]\n".utf8))
    exit(64)
}
let demo = VideoAudioComposition()
demo.compositionName = URL(fileURLWithPath: arguments[1])
demo.compositionType = type
demo.outputFileType = fileType
demo.watermark = watermark
let shown = Locked(-1)
demo.progressBlock = { progress in
    let percent = Int(progress * 100)
    shown.withLock { if percent / 25 > $0 / 25 { $0 = percent; print("progress \(percent)%") } }
}
let success: VideoAudioComposition.SuccessBlock = { url in print("wrote \(url.path)") }
do {
    let inputs = arguments[2...].map(input)
    switch type {
    case .videoAudioToVideo, .videoAudioToAudio:
        try demo.composition(videoUrl: inputs[0].0, videoTimeRange: inputs[0].1, audioUrl: inputs[1].0, audioTimeRange: inputs[1].1, success: success)
    case .videoToVideo where inputs.count == 2, .videoToAudio where inputs.count == 2:
        try demo.composition(videoUrl: inputs[0].0, videoTimeRange: inputs[0].1, mergeVideoUrl: inputs[1].0, mergeVideoTimeRange: inputs[1].1, success: success)
    case .videoToVideo:
        try demo.compositionVideos(inputs.map(\.0), timeRanges: inputs.map(\.1), success: success)
    case .videoToAudio:
        try demo.compositionAudios(inputs.map(\.0), timeRanges: inputs.map(\.1), success: success)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
