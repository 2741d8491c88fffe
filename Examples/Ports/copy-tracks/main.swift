// copy-tracks <movie> <output.mp4>
// Every track of a movie copied sample by sample through AVAssetReader and AVAssetWriter, each
// input fed from its own serial queue with requestMediaDataWhenReady, a DispatchGroup waiting
// for all (the reader/writer loop of Apple's subtitle-writer sample).
import AVFoundation
import CoreMedia

let args = CommandLine.arguments
let asset = AVAsset(url: URL(fileURLWithPath: args[1]))
let outputURL = URL(fileURLWithPath: args[2])
try? FileManager.default.removeItem(at: outputURL)

let reader: AVAssetReader
let writer: AVAssetWriter
do {
    reader = try AVAssetReader(asset: asset)
    writer = try AVAssetWriter(outputURL: outputURL, fileType: .mp4)
} catch {
    print("cannot start: \(error)")
    exit(1)
}

var pairs: [(AVAssetReaderTrackOutput, AVAssetWriterInput)] = []
for track in asset.tracks {
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
    output.alwaysCopiesSampleData = false
    guard reader.canAdd(output) else { continue }
    reader.add(output)

    let formatDescription = track.formatDescriptions.first as! CMFormatDescription
    let input = AVAssetWriterInput(mediaType: track.mediaType, outputSettings: nil, sourceFormatHint: formatDescription)
    input.expectsMediaDataInRealTime = false
    input.languageCode = track.languageCode
    input.extendedLanguageTag = track.extendedLanguageTag
    input.marksOutputTrackAsEnabled = track.isEnabled
    input.transform = track.preferredTransform
    guard writer.canAdd(input) else { continue }
    writer.add(input)
    pairs.append((output, input))
}

guard reader.startReading() else {
    print("reader: \(reader.error?.localizedDescription ?? "failed")")
    exit(1)
}
guard writer.startWriting() else {
    print("writer: \(writer.error?.localizedDescription ?? "failed")")
    exit(1)
}
writer.startSession(atSourceTime: .zero)

let group = DispatchGroup()
for (index, (output, input)) in pairs.enumerated() {
    group.enter()
    let queue = DispatchQueue(label: "copy.track.\(index)")
    input.requestMediaDataWhenReady(on: queue) {
        while input.isReadyForMoreMediaData {
            if let sampleBuffer = output.copyNextSampleBuffer() {
                if !input.append(sampleBuffer) {
                    print("append failed: \(writer.error?.localizedDescription ?? "")")
                    input.markAsFinished()
                    group.leave()
                    return
                }
            } else {
                input.markAsFinished()
                group.leave()
                return
            }
        }
    }
}
group.wait()

if reader.status == .failed {
    writer.cancelWriting()
    print("reading failed: \(reader.error?.localizedDescription ?? "")")
    exit(1)
}
let finished = DispatchSemaphore(value: 0)
writer.finishWriting {
    finished.signal()
}
finished.wait()
if writer.status == .completed {
    print("copied \(pairs.count) tracks")
} else {
    print("writing failed: \(writer.error?.localizedDescription ?? "")")
    exit(1)
}
