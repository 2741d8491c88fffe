// SubtitleWriter: adds an SRT or WebVTT file to a movie as a new subtitle track, keeping every
// original track, group and association — step by step with Splice's reader and writer, the
// way AVFoundation's subtitle-writer sample does it.
//
//   swift run SubtitleWriter movie.mp4 subtitles.fr.srt out.mp4
import Dispatch
import Foundation
import Splice

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: SubtitleWriter <movie> <subtitles.srt|.vtt> <output>\n".utf8))
    exit(64)
}
let movieURL = URL(fileURLWithPath: arguments[1])
let subtitleURL = URL(fileURLWithPath: arguments[2])
let outputURL = URL(fileURLWithPath: arguments[3])

do {
    // 1. The source movie, and a reader with one passthrough output per track.
    let asset = try Asset(url: movieURL)
    let reader = try AssetReader(asset: asset)
    var outputs: [Int: AssetReaderTrackOutput] = [:]
    for track in asset.tracks {
        let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
        output.alwaysCopiesSampleData = false          // copy media file to file, not through memory
        output.presentsMediaTimeline = true            // media times as stored: the edit lists are copied below
        try reader.add(output)
        outputs[track.trackID] = output
    }

    // 2. A writer with one input per source track, carrying language, name and enabled flag.
    let writer = try AssetWriter(outputURL: outputURL)
    writer.movieTimeScale = 1000
    var inputs: [Int: AssetWriterInput] = [:]
    for track in asset.tracks {
        let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                     sourceFormatHint: track.formatDescriptions.first)
        input.languageCode = track.languageCode
        input.extendedLanguageTag = track.extendedLanguageTag
        input.name = track.name
        input.marksOutputTrackAsEnabled = track.isEnabled
        input.segments = track.segments.isEmpty ? nil : track.segments   // the source's edit list, exactly
        try writer.add(input)
        inputs[track.trackID] = input
    }

    // 3. The subtitle file as a reader of tx3g sample buffers, and an input for it.
    let cues = try SubtitleFile.read(subtitleURL)
    let subtitles = SubtitleReader(cues: cues)
    let subtitleInput = AssetWriterInput(mediaType: .subtitle, outputSettings: nil,
                                         sourceFormatHint: subtitles.formatDescription)
    let language = LanguageTag(fileName: subtitleURL.lastPathComponent)
    subtitleInput.languageCode = language?.iso639 ?? "und"
    subtitleInput.extendedLanguageTag = language?.bcp47
    subtitleInput.mediaTimeScale = 1000
    try writer.add(subtitleInput)

    // 4. The source's track groups rebuilt; the new subtitles join the legible group (disabled).
    var joined = false
    for group in asset.trackGroups {
        var members = group.trackIDs.compactMap { inputs[$0] }
        if !joined && group.trackIDs.allSatisfy({ asset.track(withTrackID: $0)?.hasMediaCharacteristic(.legible) == true }) {
            members.append(subtitleInput)
            joined = true
        }
        try writer.add(AssetWriterInputGroup(inputs: members, defaultInput: group.defaultTrack.flatMap { inputs[$0.trackID] },
                                         preferredAlternateGroup: group.alternateGroup))
    }
    if !joined {
        try writer.add(AssetWriterInputGroup(inputs: [subtitleInput], defaultInput: nil))
    }

    // 5. Track associations copied (IDs are remapped by the writer).
    for track in asset.tracks {
        for type in track.availableTrackAssociationTypes {
            for target in track.associatedTracks(ofType: type) {
                inputs[track.trackID]!.addTrackAssociation(withTrackOf: inputs[target.trackID]!, type: type)
            }
        }
    }

    // 6. Start, and pump each (source, input) pair on its own serial queue.
    guard reader.startReading() else { throw reader.error! }
    guard writer.startWriting() else { throw writer.error! }
    writer.startSession(atSourceTime: .zero)
    let group = DispatchGroup()
    func pump(_ next: @escaping @Sendable () -> SampleBuffer?, into input: AssetWriterInput, label: String) {
        group.enter()
        let queue = DispatchQueue(label: label)
        nonisolated(unsafe) var done = false
        input.requestMediaDataWhenReady(on: queue) {
            guard !done else { return }
            while input.isReadyForMoreMediaData {
                guard let sample = next() else {
                    input.markAsFinished()
                    done = true
                    group.leave()
                    return
                }
                if !input.append(sample) { break }
            }
            if writer.status != .writing { done = true; group.leave() }
        }
    }
    for track in asset.tracks {
        let output = outputs[track.trackID]!
        pump({ output.copyNextSampleBuffer() }, into: inputs[track.trackID]!, label: "track.\(track.trackID)")
    }
    pump({ subtitles.copyNextSampleBuffer() }, into: subtitleInput, label: "subtitles")

    // 7. When every queue is done, finish the file (it is renamed into place only on success).
    group.wait()
    if reader.status == .failed { writer.cancelWriting(); throw reader.error! }
    writer.finish()
    guard writer.status == .completed else { throw writer.error! }
    print("wrote \(outputURL.path): \(asset.tracks.count + 1) tracks, \(cues.count) cues")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(65)
}
