// copy <movie> <output>: every track copied by hand, the way AVFoundation's sample code wires a
// reader to a writer. Reader output is on the asset's timeline, so the writer rebuilds each
// track's start (its edit list) from the session.
import Dispatch
import Foundation
import Splice

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fatalError("usage: copy <movie> <output>") }
let asset = try Asset(url: URL(fileURLWithPath: arguments[1]))
let reader = try AssetReader(asset: asset)
let writer = try AssetWriter(outputURL: URL(fileURLWithPath: arguments[2]))

var pairs: [(AssetReaderTrackOutput, AssetWriterInput)] = []
var inputs: [Int: AssetWriterInput] = [:]
for track in asset.tracks {
    let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
    try reader.add(output)
    let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                 sourceFormatHint: track.formatDescriptions.first)
    input.languageCode = track.languageCode
    input.name = track.name
    input.marksOutputTrackAsEnabled = track.isEnabled
    input.naturalSize = track.naturalSize
    input.transform = track.preferredTransform
    input.preferredVolume = track.preferredVolume
    try writer.add(input)
    pairs.append((output, input))
    inputs[track.trackID] = input
}
for group in asset.trackGroups {
    try writer.add(AssetWriterInputGroup(inputs: group.trackIDs.compactMap { inputs[$0] },
                                         defaultInput: group.defaultTrack.flatMap { inputs[$0.trackID] }))
}

guard reader.startReading() else { throw reader.error! }
guard writer.startWriting() else { throw writer.error! }
writer.startSession(atSourceTime: .zero)
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
try await writer.finishWriting()
print("copied \(pairs.count) tracks")
