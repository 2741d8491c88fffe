// rotate-video <movie> <output.mp4>
// A movie turned a quarter turn clockwise with a video composition: the render size swapped,
// one instruction over the whole movie, a layer instruction with the rotation (the classic
// AVMutableVideoComposition form), exported at the highest quality.
import AVFoundation

let args = CommandLine.arguments
let asset = AVAsset(url: URL(fileURLWithPath: args[1]))
let outputURL = URL(fileURLWithPath: args[2])
guard let videoTrack = asset.tracks(withMediaType: .video).first else {
    print("no video")
    exit(1)
}
let size = videoTrack.naturalSize

let videoComposition = AVMutableVideoComposition()
videoComposition.renderSize = CGSize(width: size.height, height: size.width)
videoComposition.frameDuration = CMTimeMake(value: 1, timescale: Int32(videoTrack.nominalFrameRate.rounded()))

let instruction = AVMutableVideoCompositionInstruction()
instruction.timeRange = CMTimeRange(start: .zero, duration: asset.duration)
let layerInstruction = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTrack)
let transform = CGAffineTransform(translationX: size.height, y: 0).rotated(by: .pi / 2)
layerInstruction.setTransform(transform, at: .zero)
instruction.layerInstructions = [layerInstruction]
videoComposition.instructions = [instruction]

try? FileManager.default.removeItem(at: outputURL)
guard let exporter = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality) else { exit(1) }
exporter.videoComposition = videoComposition
exporter.outputURL = outputURL
exporter.outputFileType = .mp4
let done = DispatchSemaphore(value: 0)
exporter.exportAsynchronously { done.signal() }
done.wait()
if exporter.status == .completed {
    print("rotated: \(Int(videoComposition.renderSize.width))x\(Int(videoComposition.renderSize.height))")
} else {
    print("failed: \(exporter.error?.localizedDescription ?? "?")")
    exit(1)
}
