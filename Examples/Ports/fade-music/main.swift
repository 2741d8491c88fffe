// fade-music <video> <music> <output.mov>
// Background music under a video: the video's own sound at half volume, the music fading out
// over the video's length (AVMutableAudioMix with a volume ramp), exported at medium quality.
import AVFoundation
import CoreMedia

func addBackgroundMusic(videoURL: URL, musicURL: URL, outputURL: URL, completion: @escaping (Bool) -> Void) {
    let videoAsset = AVURLAsset(url: videoURL)
    let musicAsset = AVURLAsset(url: musicURL)
    let composition = AVMutableComposition()
    let timeRange = CMTimeRangeMake(start: .zero, duration: videoAsset.duration)

    guard let sourceVideo = videoAsset.tracks(withMediaType: .video).first,
          let sourceAudio = videoAsset.tracks(withMediaType: .audio).first,
          let sourceMusic = musicAsset.tracks(withMediaType: .audio).first,
          let videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid),
          let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid),
          let musicTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) else {
        completion(false)
        return
    }
    do {
        try videoTrack.insertTimeRange(timeRange, of: sourceVideo, at: .zero)
        try audioTrack.insertTimeRange(timeRange, of: sourceAudio, at: .zero)
        try musicTrack.insertTimeRange(timeRange, of: sourceMusic, at: .zero)
    } catch {
        print("insert failed: \(error)")
        completion(false)
        return
    }
    videoTrack.preferredTransform = sourceVideo.preferredTransform

    let voice = AVMutableAudioMixInputParameters(track: audioTrack)
    voice.setVolume(0.5, at: .zero)
    let music = AVMutableAudioMixInputParameters(track: musicTrack)
    music.setVolumeRamp(fromStartVolume: 1.0, toEndVolume: 0.0, timeRange: timeRange)
    let audioMix = AVMutableAudioMix()
    audioMix.inputParameters = [voice, music]

    guard let exporter = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetMediumQuality) else {
        completion(false)
        return
    }
    exporter.outputURL = outputURL
    exporter.outputFileType = .mov
    exporter.audioMix = audioMix
    exporter.exportAsynchronously {
        completion(exporter.status == .completed)
    }
}

let args = CommandLine.arguments
let output = URL(fileURLWithPath: args[3])
if FileManager.default.fileExists(atPath: output.path) {
    try FileManager.default.removeItem(at: output)
}
let group = DispatchGroup()
group.enter()
var succeeded = false
addBackgroundMusic(videoURL: URL(fileURLWithPath: args[1]), musicURL: URL(fileURLWithPath: args[2]), outputURL: output) { ok in
    succeeded = ok
    group.leave()
}
group.wait()
print(succeeded ? "done" : "failed")
exit(succeeded ? 0 : 1)
