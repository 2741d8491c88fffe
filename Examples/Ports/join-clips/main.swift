// join-clips <output.mp4> <movie>@<start>-<end> …
// Ranges of several movies one after another (video and sound), re-encoded with the highest
// quality preset: the async/await form of AVFoundation (macOS 13).
import AVFoundation

struct Clip {
    let url: URL
    let range: CMTimeRange
}

enum JoinError: Error {
    case noVideo(URL)
    case exportFailed(String)
}

func join(_ clips: [Clip], to outputURL: URL) async throws {
    let composition = AVMutableComposition()
    guard let videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid),
          let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) else {
        throw JoinError.exportFailed("no tracks")
    }
    var cursor = CMTime.zero
    for clip in clips {
        let asset = AVURLAsset(url: clip.url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        guard let video = try await asset.loadTracks(withMediaType: .video).first else { throw JoinError.noVideo(clip.url) }
        try videoTrack.insertTimeRange(clip.range, of: video, at: cursor)
        if let audio = try await asset.loadTracks(withMediaType: .audio).first {
            try audioTrack.insertTimeRange(clip.range, of: audio, at: cursor)
        }
        cursor = CMTimeAdd(cursor, clip.range.duration)
    }

    guard let session = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetHighestQuality) else {
        throw JoinError.exportFailed("no session")
    }
    session.outputURL = outputURL
    session.outputFileType = .mp4
    session.shouldOptimizeForNetworkUse = true
    await session.export()
    if session.status != .completed {
        throw JoinError.exportFailed(session.error?.localizedDescription ?? "status \(session.status.rawValue)")
    }
}

let args = CommandLine.arguments
let output = URL(fileURLWithPath: args[1])
try? FileManager.default.removeItem(at: output)
var clips: [Clip] = []
for spec in args.dropFirst(2) {
    let parts = spec.split(separator: "@")
    let bounds = parts[1].split(separator: "-").compactMap { Double($0) }
    let start = CMTime(seconds: bounds[0], preferredTimescale: 600)
    let end = CMTime(seconds: bounds[1], preferredTimescale: 600)
    clips.append(Clip(url: URL(fileURLWithPath: String(parts[0])), range: CMTimeRange(start: start, end: end)))
}
do {
    try await join(clips, to: output)
    print("joined \(clips.count) clips into \(output.lastPathComponent)")
} catch {
    print("join failed: \(error)")
    exit(1)
}
