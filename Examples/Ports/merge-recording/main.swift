// merge-recording <video> <audio> <output.mp4>
// A screen recording and its separately recorded sound put together: both assets loaded
// with loadValuesAsynchronously(forKeys:) and statusOfValue(forKey:error:), a DispatchGroup
// waiting for both, then exported at medium quality.
import AVFoundation
import CoreMedia

let args = CommandLine.arguments
let videoAsset = AVURLAsset(url: URL(fileURLWithPath: args[1]), options: nil)
let audioAsset = AVURLAsset(url: URL(fileURLWithPath: args[2]), options: nil)
let outputURL = URL(fileURLWithPath: args[3])

let keys = ["tracks", "duration"]
let loading = DispatchGroup()
for asset in [videoAsset, audioAsset] {
    loading.enter()
    asset.loadValuesAsynchronously(forKeys: keys) {
        loading.leave()
    }
}
loading.wait()
for asset in [videoAsset, audioAsset] {
    for key in keys {
        var error: NSError? = nil
        let status = asset.statusOfValue(forKey: key, error: &error)
        if status != .loaded {
            print("\(asset.url.lastPathComponent): \(key) did not load: \(error?.localizedDescription ?? "status \(status.rawValue)")")
            exit(1)
        }
    }
}

let mixComposition = AVMutableComposition()
let videoTrack = mixComposition.addMutableTrack(withMediaType: AVMediaType.video, preferredTrackID: kCMPersistentTrackID_Invalid)
let audioTrack = mixComposition.addMutableTrack(withMediaType: AVMediaType.audio, preferredTrackID: kCMPersistentTrackID_Invalid)
let duration = CMTimeMinimum(videoAsset.duration, audioAsset.duration)
do {
    try videoTrack?.insertTimeRange(CMTimeRangeMake(start: CMTime.zero, duration: duration),
                                    of: videoAsset.tracks(withMediaType: AVMediaType.video)[0], at: CMTime.zero)
    try audioTrack?.insertTimeRange(CMTimeRangeMake(start: CMTime.zero, duration: duration),
                                    of: audioAsset.tracks(withMediaType: AVMediaType.audio)[0], at: CMTime.zero)
} catch {
    print(error.localizedDescription)
    exit(1)
}

try? FileManager.default.removeItem(at: outputURL)
let assetExport = AVAssetExportSession(asset: mixComposition, presetName: AVAssetExportPresetMediumQuality)!
assetExport.outputFileType = AVFileType.mp4
assetExport.outputURL = outputURL
assetExport.shouldOptimizeForNetworkUse = true
let exported = DispatchSemaphore(value: 0)
assetExport.exportAsynchronously {
    switch assetExport.status {
    case .completed: print("merged into \(outputURL.lastPathComponent)")
    case .failed: print("failed \(String(describing: assetExport.error))")
    case .cancelled: print("cancelled \(String(describing: assetExport.error))")
    default: print("status \(assetExport.status.rawValue)")
    }
    exported.signal()
}
exported.wait()
exit(assetExport.status == .completed ? 0 : 1)
