// mute-video <movie> <output.mov>
// A movie without its sound: a composition of the video track alone, its transform kept,
// exported with the passthrough preset (the picture's samples untouched).
import AVFoundation

let args = CommandLine.arguments
let sourceURL = URL(fileURLWithPath: args[1])
let outputURL = URL(fileURLWithPath: args[2])

let asset = AVAsset(url: sourceURL)
let composition = AVMutableComposition()
guard let sourceVideoTrack = asset.tracks(withMediaType: .video).first,
      let compositionVideoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid) else {
    print("no video track in \(sourceURL.lastPathComponent)")
    exit(1)
}
do {
    try compositionVideoTrack.insertTimeRange(CMTimeRange(start: .zero, duration: asset.duration), of: sourceVideoTrack, at: .zero)
} catch {
    print("cannot insert: \(error)")
    exit(1)
}
compositionVideoTrack.preferredTransform = sourceVideoTrack.preferredTransform

if FileManager.default.fileExists(atPath: outputURL.path) {
    try! FileManager.default.removeItem(at: outputURL)
}
let exporter = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetPassthrough)!
exporter.outputURL = outputURL
exporter.outputFileType = .mov
let semaphore = DispatchSemaphore(value: 0)
exporter.exportAsynchronously {
    semaphore.signal()
}
semaphore.wait()
guard exporter.status == .completed else {
    print("export failed: \(String(describing: exporter.error))")
    exit(1)
}
print("muted: \(outputURL.path)")
