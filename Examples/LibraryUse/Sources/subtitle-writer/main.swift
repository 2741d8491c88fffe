// subtitle-writer <movie> <subtitles.srt|.vtt> <output>: the movie's tracks copied by hand and
// a subtitle track added from an SRT or WebVTT file, in the movie's subtitle group — the steps
// of AVFoundation's subtitle-writer sample.
import Dispatch
import Foundation
import Splice

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fatalError("usage: subtitle-writer <movie> <subtitles> <output>") }
let asset = try Asset(url: URL(fileURLWithPath: arguments[1]))
let subtitleURL = URL(fileURLWithPath: arguments[2])
let reader = try AssetReader(asset: asset)
let writer = try AssetWriter(outputURL: URL(fileURLWithPath: arguments[3]))

// 1. One passthrough pair per track.
var pairs: [(any SampleBufferSource, AssetWriterInput)] = []
var inputs: [Int: AssetWriterInput] = [:]
for track in asset.tracks {
    let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
    try reader.add(output)
    let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                 sourceFormatHint: track.formatDescriptions.first)
    input.languageCode = track.languageCode
    input.name = track.name
    input.marksOutputTrackAsEnabled = track.isEnabled
    try writer.add(input)
    pairs.append((output, input))
    inputs[track.trackID] = input
}

// 2. The subtitle file as tx3g sample buffers (SubtitleReader), and an input for them.
let subtitles = SubtitleReader(cues: try SubtitleFile.read(subtitleURL))
let subtitleInput = AssetWriterInput(mediaType: .subtitle, outputSettings: nil,
                                     sourceFormatHint: subtitles.formatDescription)
let language = LanguageTag(fileName: subtitleURL.lastPathComponent)
subtitleInput.languageCode = language?.iso639
subtitleInput.extendedLanguageTag = language?.bcp47
subtitleInput.marksOutputTrackAsEnabled = false
try writer.add(subtitleInput)
pairs.append((subtitles, subtitleInput))

// 3. The movie's groups, the new track joining the subtitle group.
var joined = false
for group in asset.trackGroups {
    var members = group.trackIDs.compactMap { inputs[$0] }
    if !joined, members.allSatisfy({ $0.mediaType == .subtitle || $0.mediaType == .text }) {
        members.append(subtitleInput)
        joined = true
    }
    try writer.add(AssetWriterInputGroup(inputs: members, defaultInput: group.defaultTrack.flatMap { inputs[$0.trackID] }))
}
if !joined { try writer.add(AssetWriterInputGroup(inputs: [subtitleInput], defaultInput: nil)) }

// 4. Feed every input from its own serial queue.
guard reader.startReading() else { throw reader.error! }
guard writer.startWriting() else { throw writer.error! }
writer.startSession(atSourceTime: .zero)
let group = DispatchGroup()
for (i, (source, input)) in pairs.enumerated() {
    group.enter()
    input.requestMediaDataWhenReady(on: DispatchQueue(label: "track.\(i)")) {
        while input.isReadyForMoreMediaData {
            guard let sample = source.copyNextSampleBuffer(), input.append(sample) else {
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
print("wrote \(pairs.count) tracks")
