// reencode <movie> <output.mp4> <bit rate>
// A movie compressed again, the AVAssetReader/AVAssetWriter way: the picture decoded to 4:2:0
// and encoded as H.264 at an average bit rate, the sound decoded to PCM and encoded as AAC —
// each with AVFoundation's settings dictionaries — and each input fed from its own queue.
import AVFoundation

func reencode(_ sourceURL: URL, to outputURL: URL, bitRate: Int, completion: @escaping (Bool, Error?) -> Void) {
    let asset = AVAsset(url: sourceURL)
    guard let videoTrack = asset.tracks(withMediaType: .video).first,
          let audioTrack = asset.tracks(withMediaType: .audio).first else {
        completion(false, nil)
        return
    }
    let reader: AVAssetReader
    let writer: AVAssetWriter
    do {
        reader = try AVAssetReader(asset: asset)
        writer = try AVAssetWriter(outputURL: outputURL, fileType: .mp4)
    } catch {
        completion(false, error)
        return
    }

    let videoOutput = AVAssetReaderTrackOutput(track: videoTrack, outputSettings: [
        kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
    ])
    let audioOutput = AVAssetReaderTrackOutput(track: audioTrack, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM])
    reader.add(videoOutput)
    reader.add(audioOutput)

    let size = videoTrack.naturalSize
    let videoSettings: [String: Any] = [
        AVVideoCodecKey: AVVideoCodecType.h264,
        AVVideoWidthKey: Int(size.width),
        AVVideoHeightKey: Int(size.height),
        AVVideoCompressionPropertiesKey: [
            AVVideoAverageBitRateKey: bitRate,
            AVVideoMaxKeyFrameIntervalKey: 25,
            AVVideoProfileLevelKey: AVVideoProfileLevelH264HighAutoLevel,
        ],
    ]
    let audioSettings: [String: Any] = [
        AVFormatIDKey: kAudioFormatMPEG4AAC,
        AVNumberOfChannelsKey: 2,
        AVSampleRateKey: 44100,
        AVEncoderBitRateKey: 128_000,
    ]
    let videoInput = AVAssetWriterInput(mediaType: .video, outputSettings: videoSettings)
    videoInput.transform = videoTrack.preferredTransform
    videoInput.expectsMediaDataInRealTime = false
    let audioInput = AVAssetWriterInput(mediaType: .audio, outputSettings: audioSettings)
    guard writer.canAdd(videoInput), writer.canAdd(audioInput) else {
        completion(false, writer.error)
        return
    }
    writer.add(videoInput)
    writer.add(audioInput)

    guard reader.startReading(), writer.startWriting() else {
        completion(false, reader.error ?? writer.error)
        return
    }
    writer.startSession(atSourceTime: .zero)

    let group = DispatchGroup()
    for (input, output, label) in [(videoInput, videoOutput, "video"), (audioInput, audioOutput, "audio")] {
        group.enter()
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "reencode.\(label)")) {
            while input.isReadyForMoreMediaData {
                guard let sample = output.copyNextSampleBuffer(), input.append(sample) else {
                    input.markAsFinished()
                    group.leave()
                    return
                }
            }
        }
    }
    group.notify(queue: .global()) {
        if reader.status == .failed {
            writer.cancelWriting()
            completion(false, reader.error)
            return
        }
        writer.finishWriting {
            completion(writer.status == .completed, writer.error)
        }
    }
}

let args = CommandLine.arguments
let destination = URL(fileURLWithPath: args[2])
try? FileManager.default.removeItem(at: destination)
let semaphore = DispatchSemaphore(value: 0)
var result = (false, nil as Error?)
reencode(URL(fileURLWithPath: args[1]), to: destination, bitRate: Int(args[3]) ?? 1_000_000) { ok, error in
    result = (ok, error)
    semaphore.signal()
}
semaphore.wait()
if result.0 {
    print("re-encoded into \(destination.lastPathComponent)")
} else {
    print("failed: \(result.1?.localizedDescription ?? "unknown error")")
    exit(1)
}
