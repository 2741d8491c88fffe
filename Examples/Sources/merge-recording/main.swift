// merge-recording <video> <audio> <output.mp4>: the screen-recording article's job in
// AVFoundation's Swift spelling (SpliceAVFoundation): a video and a separately recorded audio,
// each whole from 0, exported as MP4 with the medium preset.
import Foundation
import SpliceAVFoundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fatalError("usage: merge-recording <video> <audio> <output.mp4>") }
let outputURL = URL(fileURLWithPath: arguments[3])
if FileManager.default.fileExists(atPath: outputURL.path) { try FileManager.default.removeItem(at: outputURL) }

let startTime = kCMTimeZero
let composition = AVMutableComposition()
let videoAsset = AVURLAsset(url: URL(fileURLWithPath: arguments[1]))
let videoTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: videoAsset.duration)
let videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!
let videoAssetTrack = videoAsset.tracks(withMediaType: .video).first!
try videoTrack.insertTimeRange(videoTimeRange, of: videoAssetTrack, at: startTime)

let audioAsset = AVURLAsset(url: URL(fileURLWithPath: arguments[2]))
let audioTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: audioAsset.duration)
let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
let audioAssetTrack = audioAsset.tracks(withMediaType: .audio).first!
try audioTrack.insertTimeRange(audioTimeRange, of: audioAssetTrack, at: startTime)

let assetExport = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetMediumQuality)!
assetExport.outputFileType = .mp4
assetExport.outputURL = outputURL
assetExport.shouldOptimizeForNetworkUse = true
await assetExport.export()
guard assetExport.status == .completed else {
    FileHandle.standardError.write(Data("merge-recording: \(assetExport.error.map { "\($0)" } ?? "the export did not complete")\n".utf8))
    exit(1)
}
print("exported \(outputURL.path): \(assetExport.status)")
