// subtitle-writer <movie> <subtitles.srt|.vtt> <output>: Apple's subtitle-writer sample
// (`writeSubtitles`) in AVFoundation's Swift spelling (SpliceAVFoundation): every track of the
// movie copied through an asset reader and writer, a subtitle track added from an SRT or WebVTT
// file, the movie's track groups kept with the new track in the legible group, the track
// references kept, and each input fed from its own serial queue under one dispatch group.
//
//   subtitle-writer movie.mp4 subtitles.fr.srt out.mp4
import Dispatch
import Foundation
import SpliceAVFoundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: subtitle-writer <movie> <subtitles.srt|.vtt> <output>\n".utf8))
    exit(64)
}
let subtitlesURL = URL(fileURLWithPath: arguments[2])
let outputURL = URL(fileURLWithPath: arguments[3])

do {
    let asset = AVURLAsset(url: URL(fileURLWithPath: arguments[1]))
    let assetReader = try AVAssetReader(asset: asset)
    let assetWriter = try AVAssetWriter(outputURL: outputURL, fileType: .mp4)
    assetWriter.movieTimeScale = 1000

    // One passthrough output and input per track of the movie.
    var inputsOutputs: [(input: AVAssetWriterInput, output: AVAssetReaderTrackOutput)] = []
    var inputsForTrackIDs: [CMPersistentTrackID: AVAssetWriterInput] = [:]
    for track in asset.tracks {
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        output.alwaysCopiesSampleData = false
        // Splice keeps edit lists, which AVFoundation's writer does not: the samples keep their
        // media times, and the input is given the track's edits.
        output.presentsMediaTimeline = true
        assetReader.add(output)
        let input = AVAssetWriterInput(mediaType: track.mediaType, outputSettings: nil, sourceFormatHint: track.formatDescriptions.first as? CMFormatDescription)
        input.languageCode = track.languageCode
        input.extendedLanguageTag = track.extendedLanguageTag
        input.naturalSize = track.track.naturalSize   // (Splice's input takes whole pixels: Splice's track's)
        input.transform = track.preferredTransform
        input.name = track.name   // (Splice: the handler name)
        input.marksOutputTrackAsEnabled = track.isEnabled
        input.segments = track.segments.isEmpty ? nil : track.segments
        if assetWriter.canAdd(input) { assetWriter.add(input) }
        inputsOutputs.append((input, output))
        inputsForTrackIDs[track.trackID] = input
    }

    // The subtitles, as a reader of tx3g sample buffers (the sample's SubtitlesTextReader) and an input.
    let subtitlesTextReader = SubtitleReader(cues: try SubtitleFile.read(subtitlesURL))
    let subtitlesInput = AVAssetWriterInput(mediaType: .subtitle, outputSettings: nil, sourceFormatHint: subtitlesTextReader.formatDescription)
    let language = LanguageTag(fileName: subtitlesURL.lastPathComponent)
    subtitlesInput.languageCode = language?.iso639 ?? "und"
    subtitlesInput.extendedLanguageTag = language?.bcp47
    subtitlesInput.mediaTimeScale = 1000
    if assetWriter.canAdd(subtitlesInput) { assetWriter.add(subtitlesInput) }
    let newSubtitlesInputs = [subtitlesInput]

    // Preserve track groups from the original asset; the new subtitles join its legible group.
    var groupedSubtitles = false
    for trackGroup in asset.trackGroups {
        var inputs: [AVAssetWriterInput] = []
        var defaultInput: AVAssetWriterInput?
        for trackID in trackGroup.trackIDs {
            guard let input = inputsForTrackIDs[trackID] else { continue }
            inputs.append(input)
            if asset.track(withTrackID: trackID)?.isEnabled == true { defaultInput = input }
        }
        let isLegible = trackGroup.trackIDs.allSatisfy { asset.track(withTrackID: $0)?.hasMediaCharacteristic(.legible) == true }
        if isLegible && !groupedSubtitles {
            inputs += newSubtitlesInputs
            groupedSubtitles = true
        }
        let inputGroup = AVAssetWriterInputGroup(inputs: inputs, defaultInput: defaultInput, preferredAlternateGroup: trackGroup.alternateGroup)
        if assetWriter.canAdd(inputGroup) { assetWriter.add(inputGroup) }
    }
    // If no legible group was found to add the new subtitles to, create a group for them.
    if !groupedSubtitles {
        let inputGroup = AVAssetWriterInputGroup(inputs: newSubtitlesInputs, defaultInput: nil)
        if assetWriter.canAdd(inputGroup) { assetWriter.add(inputGroup) }
    }

    // Preserve track references from the original asset.
    for track in asset.tracks {
        for type in track.availableTrackAssociationTypes {
            for associated in track.associatedTracks(ofType: type) {
                guard let input = inputsForTrackIDs[track.trackID], let other = inputsForTrackIDs[associated.trackID] else { continue }
                if input.canAddTrackAssociation(withTrackOf: other, type: type) {
                    input.addTrackAssociation(withTrackOf: other, type: type)
                }
            }
        }
    }

    // Write the movie: each input fed from its own serial queue, the dispatch group left when it is done.
    guard assetWriter.startWriting() else { throw assetWriter.error! }
    assetWriter.startSession(atSourceTime: kCMTimeZero)
    let dispatchGroup = DispatchGroup()
    guard assetReader.startReading() else { throw assetReader.error! }
    func write(_ input: AVAssetWriterInput, from copyNextSampleBuffer: @escaping @Sendable () -> SampleBuffer?) {
        dispatchGroup.enter()
        let finished = Locked(false)
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "request media data")) {
            if finished.value { return }
            var completedOrFailed = false
            while input.isReadyForMoreMediaData && !completedOrFailed {
                if let sampleBuffer = copyNextSampleBuffer() {
                    completedOrFailed = !input.append(sampleBuffer)
                } else {
                    completedOrFailed = true
                }
            }
            if completedOrFailed {
                input.markAsFinished()
                finished.withLock { $0 = true }
                dispatchGroup.leave()
            }
        }
    }
    for (input, output) in inputsOutputs { write(input) { output.copyNextSampleBuffer() } }
    write(subtitlesInput) { subtitlesTextReader.copyNextSampleBuffer() }

    dispatchGroup.wait()
    if assetReader.status == .failed { assetWriter.cancelWriting(); throw assetReader.error! }
    assetReader.cancelReading()
    let finishing = DispatchSemaphore(value: 0)
    assetWriter.finishWriting { finishing.signal() }
    finishing.wait()
    guard assetWriter.status == .completed else { throw assetWriter.error! }
    print("writing success to \(assetWriter.outputURL.path)")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(65)
}
