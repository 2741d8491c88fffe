// trim-passthrough <movie> <start s> <duration s> <output.mp4>
// A range of a movie copied without re-encoding: AVAssetExportSession with the passthrough
// preset and a timeRange, waited for with a semaphore (the classic Stack Overflow form).
import AVFoundation

let args = CommandLine.arguments
guard args.count == 5, let start = Double(args[2]), let length = Double(args[3]) else {
    print("usage: trim-passthrough <movie> <start s> <duration s> <output.mp4>")
    exit(64)
}
let asset = AVURLAsset(url: URL(fileURLWithPath: args[1]))
let outputURL = URL(fileURLWithPath: args[4])
try? FileManager.default.removeItem(at: outputURL)

let compatiblePresets = AVAssetExportSession.exportPresets(compatibleWith: asset)
guard compatiblePresets.contains(AVAssetExportPresetPassthrough),
      let exportSession = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough) else {
    print("cannot export \(args[1]) as it is")
    exit(1)
}
exportSession.outputURL = outputURL
exportSession.outputFileType = .mp4
let startTime = CMTime(seconds: start, preferredTimescale: 600)
let duration = CMTime(seconds: length, preferredTimescale: 600)
exportSession.timeRange = CMTimeRange(start: startTime, duration: duration)

let semaphore = DispatchSemaphore(value: 0)
exportSession.exportAsynchronously {
    switch exportSession.status {
    case .completed:
        print("trimmed to \(outputURL.lastPathComponent)")
    case .failed:
        print("failed: \(exportSession.error?.localizedDescription ?? "unknown error")")
    case .cancelled:
        print("cancelled")
    default:
        break
    }
    semaphore.signal()
}
semaphore.wait()
exit(exportSession.status == .completed ? 0 : 1)
