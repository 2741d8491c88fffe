// trim <movie> <start seconds> <duration seconds> <output>: a clip cut without re-encoding,
// written the AVFoundation way — the reader's timeRange, a session from the range's start to
// its end, and the samples appended as they are handed out. Video is read from the sync
// sample before the start; the writer's edit list hides what comes before it.
import Dispatch
import Foundation
import Splice

let arguments = CommandLine.arguments
guard arguments.count == 5, let start = Double(arguments[2]), let length = Double(arguments[3]) else {
    fatalError("usage: trim <movie> <start seconds> <duration seconds> <output>")
}
let asset = try Asset(url: URL(fileURLWithPath: arguments[1]))
let range = TimeRange(start: MediaTime(seconds: start, preferredTimescale: 90_000),
                      duration: MediaTime(seconds: length, preferredTimescale: 90_000))
let reader = try AssetReader(asset: asset)
reader.timeRange = range
let writer = try AssetWriter(outputURL: URL(fileURLWithPath: arguments[4]))

var pairs: [(AssetReaderTrackOutput, AssetWriterInput)] = []
for track in asset.tracks where track.mediaType == .video || track.mediaType == .audio {
    let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
    try reader.add(output)
    let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                 sourceFormatHint: track.formatDescriptions.first)
    input.languageCode = track.languageCode
    input.marksOutputTrackAsEnabled = track.isEnabled
    input.transform = track.preferredTransform
    try writer.add(input)
    pairs.append((output, input))
}

guard reader.startReading() else { throw reader.error! }
guard writer.startWriting() else { throw writer.error! }
writer.startSession(atSourceTime: range.start)
let group = DispatchGroup()
for (i, (output, input)) in pairs.enumerated() {
    group.enter()
    input.requestMediaDataWhenReady(on: DispatchQueue(label: "track.\(i)")) {
        while input.isReadyForMoreMediaData {
            guard let sample = output.copyNextSampleBuffer(), input.append(sample) else {
                input.markAsFinished()
                group.leave()
                return
            }
        }
    }
}
group.wait()
if reader.status == .failed { writer.cancelWriting(); throw reader.error! }
writer.endSession(atSourceTime: range.end)
try await writer.finishWriting()
print("trimmed \(pairs.count) tracks to \(range)")
