// background-music <video> <music> <volume> <start seconds> <output.mov>: the background-music
// article's job in AVFoundation's Swift spelling (SpliceAVFoundation): the video's picture and
// sound, and the music from <start>, mixed at <volume> and 1 − <volume>, exported as QuickTime.
import Dispatch
import Foundation
import SpliceAVFoundation

let arguments = CommandLine.arguments
guard arguments.count == 6, let volume = Float(arguments[3]), let startTime = Double(arguments[4]) else {
    fatalError("usage: background-music <video> <music> <volume> <start seconds> <output.mov>")
}
let composition = AVMutableComposition()
let videoAsset = AVURLAsset(url: URL(fileURLWithPath: arguments[1]))
let videoTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: videoAsset.duration)
let videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!
try videoTrack.insertTimeRange(videoTimeRange, of: videoAsset.tracks(withMediaType: .video).first!, at: kCMTimeZero)
let originalAudioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
try originalAudioTrack.insertTimeRange(videoTimeRange, of: videoAsset.tracks(withMediaType: .audio).first!, at: kCMTimeZero)

// The music from <start>, for as long as the video lasts after it.
let audioAsset = AVURLAsset(url: URL(fileURLWithPath: arguments[2]))
let start = CMTimeMakeWithSeconds(startTime, preferredTimescale: 600)
let audioTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: CMTimeMinimum(audioAsset.duration, CMTimeSubtract(videoAsset.duration, start)))
let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
try audioTrack.insertTimeRange(audioTimeRange, of: audioAsset.tracks(withMediaType: .audio).first!, at: start)

let videoAudioMixTools = AVMutableAudioMix.audioMix()
let musicAudioParam = AVMutableAudioMixInputParameters(track: audioTrack)
musicAudioParam.setVolumeRamp(fromStartVolume: volume, toEndVolume: volume, timeRange: CMTimeRangeMake(start: kCMTimeZero, duration: audioAsset.duration))
musicAudioParam.trackID = audioTrack.trackID
let originalAudioParam = AVMutableAudioMixInputParameters(track: originalAudioTrack)
originalAudioParam.setVolumeRamp(fromStartVolume: 1 - volume, toEndVolume: 1 - volume, timeRange: videoTimeRange)
originalAudioParam.trackID = originalAudioTrack.trackID
videoAudioMixTools.inputParameters = [musicAudioParam, originalAudioParam]

let assetExport = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetMediumQuality)!
assetExport.outputFileType = .mov
assetExport.outputURL = URL(fileURLWithPath: arguments[5])
assetExport.shouldOptimizeForNetworkUse = true
assetExport.audioMix = videoAudioMixTools
let done = DispatchSemaphore(value: 0)
assetExport.exportAsynchronously { done.signal() }
done.wait()
guard assetExport.status == .completed else { fatalError("export failed: \(assetExport.error.map { "\($0)" } ?? "")") }
print("exported \(arguments[5])")
