// extract-audio <movie> <output.m4a>
// The sound of a movie as an M4A: AVAssetExportPresetAppleM4A, checked for compatibility first.
import Foundation
import AVFoundation

func extractAudio(from sourceURL: URL, to outputURL: URL, completion: @escaping (Error?) -> Void) {
    let asset = AVURLAsset(url: sourceURL)
    guard !asset.tracks(withMediaType: .audio).isEmpty else {
        completion(NSError(domain: "extract-audio", code: 1, userInfo: [NSLocalizedDescriptionKey: "no audio track"]))
        return
    }
    AVAssetExportSession.determineCompatibility(ofExportPreset: AVAssetExportPresetAppleM4A, with: asset, outputFileType: .m4a) { compatible in
        guard compatible, let export = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetAppleM4A) else {
            completion(NSError(domain: "extract-audio", code: 2, userInfo: [NSLocalizedDescriptionKey: "AppleM4A cannot export this asset"]))
            return
        }
        export.outputURL = outputURL
        export.outputFileType = AVFileType.m4a
        export.exportAsynchronously {
            completion(export.status == .completed ? nil : export.error)
        }
    }
}

let args = CommandLine.arguments
let destination = URL(fileURLWithPath: args[2])
try? FileManager.default.removeItem(at: destination)
let done = DispatchSemaphore(value: 0)
var failure: Error?
extractAudio(from: URL(fileURLWithPath: args[1]), to: destination) { error in
    failure = error
    done.signal()
}
done.wait()
if let failure {
    print("extract failed: \(failure.localizedDescription)")
    exit(1)
}
print("wrote \(destination.lastPathComponent)")
