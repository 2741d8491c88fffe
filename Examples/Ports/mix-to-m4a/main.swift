// mix-to-m4a <voice> <music> <output.m4a>
// Two sounds mixed through a reader rather than an export: a composition of both, an
// AVAssetReaderAudioMixOutput with an AVMutableAudioMix (the voice at 0.25, the music at 0.75),
// its PCM encoded as AAC by an AVAssetWriter into an M4A.
import AVFoundation

let args = CommandLine.arguments
let voice = AVURLAsset(url: URL(fileURLWithPath: args[1]))
let music = AVURLAsset(url: URL(fileURLWithPath: args[2]))
let outputURL = URL(fileURLWithPath: args[3])

let composition = AVMutableComposition()
let length = CMTimeMinimum(voice.duration, music.duration)
for asset in [voice, music] {
    guard let source = asset.tracks(withMediaType: .audio).first,
          let track = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) else {
        print("no audio in \(asset.url.lastPathComponent)")
        exit(1)
    }
    do {
        try track.insertTimeRange(CMTimeRange(start: .zero, duration: length), of: source, at: .zero)
    } catch {
        print("cannot insert \(asset.url.lastPathComponent): \(error.localizedDescription)")
        exit(1)
    }
}

let audioTracks = composition.tracks(withMediaType: .audio)
let voiceParameters = AVMutableAudioMixInputParameters(track: audioTracks[0])
voiceParameters.setVolume(0.25, at: .zero)
let musicParameters = AVMutableAudioMixInputParameters(track: audioTracks[1])
musicParameters.setVolume(0.75, at: .zero)
let audioMix = AVMutableAudioMix()
audioMix.inputParameters = [voiceParameters, musicParameters]

let reader: AVAssetReader
let writer: AVAssetWriter
do {
    reader = try AVAssetReader(asset: composition)
    try? FileManager.default.removeItem(at: outputURL)
    writer = try AVAssetWriter(outputURL: outputURL, fileType: .m4a)
} catch {
    print("cannot start: \(error.localizedDescription)")
    exit(1)
}
let mixOutput = AVAssetReaderAudioMixOutput(audioTracks: audioTracks, audioSettings: [
    AVFormatIDKey: kAudioFormatLinearPCM,
    AVLinearPCMIsFloatKey: true,
    AVLinearPCMBitDepthKey: 32,
    AVSampleRateKey: 48000,
    AVNumberOfChannelsKey: 2,
])
mixOutput.audioMix = audioMix
guard reader.canAdd(mixOutput) else {
    print("cannot mix: \(String(describing: reader.error))")
    exit(1)
}
reader.add(mixOutput)

let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [
    AVFormatIDKey: kAudioFormatMPEG4AAC,
    AVSampleRateKey: 48000,
    AVNumberOfChannelsKey: 2,
    AVEncoderBitRateKey: 192_000,
])
writer.add(input)
guard reader.startReading(), writer.startWriting() else {
    print("cannot start: \(String(describing: reader.error ?? writer.error))")
    exit(1)
}
writer.startSession(atSourceTime: .zero)

let done = DispatchSemaphore(value: 0)
input.requestMediaDataWhenReady(on: DispatchQueue(label: "mix")) {
    while input.isReadyForMoreMediaData {
        guard let buffer = mixOutput.copyNextSampleBuffer() else {
            input.markAsFinished()
            done.signal()
            return
        }
        if !input.append(buffer) {
            reader.cancelReading()
            input.markAsFinished()
            done.signal()
            return
        }
    }
}
done.wait()
await writer.finishWriting()
guard writer.status == .completed, reader.status == .completed else {
    print("mixing failed: \(String(describing: reader.error ?? writer.error))")
    exit(1)
}
print("mixed into \(outputURL.lastPathComponent)")
