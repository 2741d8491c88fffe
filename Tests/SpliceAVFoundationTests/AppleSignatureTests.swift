/// AVFoundation's signatures and how failures surface through them (status, error, canAdd),
/// on media made by ffmpeg; the ports in Examples/Ports are built and run by scripts/check-examples.
import Foundation
import SpliceAVFoundation
import Testing
import TestSupport

@Suite("AVFoundation's signatures")
struct AppleSignatureTests {
    /// A 2 s 320x240 H.264 clip with a mono 440 Hz AAC track and English subtitles.
    static let clip: Result<URL, Error> = Result {
        let srt = Fixtures.path("apple-signatures.srt"), clip = Fixtures.path("apple-signatures.mp4")
        try Data("1\n00:00:00,500 --> 00:00:01,500\nHello\n".utf8).write(to: srt)
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                         "-i", srt.path, "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                         "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", clip.path])
        return clip
    }

    @Test func anAssetOfAFileIsReadOnFirstUse() throws {
        let asset = AVURLAsset(url: try Self.clip.get())
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .unknown)
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio, .subtitle])
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .loaded && error == nil)
        #expect(asset.tracks.first === asset.tracks.first, "the same track objects on every call")
        let video = asset.tracks(withMediaType: .video)[0]
        #expect(video.naturalSize == CGSize(width: 320, height: 240) && video.nominalFrameRate == 25)
        #expect(asset.tracks(withMediaType: .subtitle).first?.languageCode == "eng")
        #expect(AVMediaType.video.rawValue == "vide" && AVMediaType(rawValue: "soun") == .audio)
    }

    @Test func anUnreadableAssetSaysWhyAndAnExportOfItFails() async throws {
        let missing = Fixtures.path("apple-signatures-missing.mp4")
        let asset = AVAsset(url: missing)
        #expect(asset.tracks.isEmpty && asset.duration == .zero && !asset.isReadable)
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .failed)
        #expect(error?.localizedDescription.contains("apple-signatures-missing.mp4: no such file") == true, "\(String(describing: error))")
        #expect(throws: MediaError.self) { try AVAssetReader(asset: asset) }
        await #expect(throws: MediaError.self) { try await asset.load(.duration) }

        let export = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
        export.outputURL = Fixtures.path("apple-signatures-never.mp4")
        #expect(export.status == .unknown && export.error == nil)
        await export.export()
        #expect(export.status == .failed)
        #expect(export.error?.localizedDescription.contains("no such file") == true)
        #expect(!FileManager.default.fileExists(atPath: Fixtures.path("apple-signatures-never.mp4").path))
    }

    @Test func anOutputThatCannotBeAddedFailsTheReader() throws {
        let clip = try Self.clip.get()
        let asset = AVURLAsset(url: clip), other = AVURLAsset(url: clip)
        let reader = try AVAssetReader(asset: asset)
        let foreign = AVAssetReaderTrackOutput(track: other.tracks[0], outputSettings: nil)
        #expect(!reader.canAdd(foreign))
        reader.add(foreign)   // does not throw, as AVFoundation's; the reader fails
        #expect(!reader.startReading())
        #expect(reader.status == .failed)
        #expect(reader.error?.localizedDescription.contains("is not a track of this asset") == true, "\(String(describing: reader.error))")
    }

    @Test func anInputAddedAfterWritingStartsFailsTheWriter() throws {
        let out = Fixtures.path("apple-signatures-writer.mp4")
        try? FileManager.default.removeItem(at: out)
        let writer = try AVAssetWriter(outputURL: out, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVNumberOfChannelsKey: 1, AVSampleRateKey: 48000])
        input.expectsMediaDataInRealTime = true
        #expect(input.expectsMediaDataInRealTime && input.outputSettings == .audio(AudioEncodingSettings(codec: .aac, sampleRate: 48000, channelCount: 1)))
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.startWriting())
        let late = AVAssetWriterInput(mediaType: .video, outputSettings: nil)
        #expect(!writer.canAdd(late))
        writer.add(late)
        #expect(writer.status == .failed)
        #expect(writer.error?.localizedDescription.contains("inputs are added before startWriting()") == true, "\(String(describing: writer.error))")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func settingsDictionariesAreSplicesSettings() {
        let video = EncodingSettings(dictionary: [
            AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 640, AVVideoHeightKey: 360.0,
            AVVideoCompressionPropertiesKey: [AVVideoAverageBitRateKey: NSNumber(value: 2_000_000), AVVideoMaxKeyFrameIntervalKey: 50],
        ], for: .video)
        var expected = VideoEncodingSettings(codec: .hevc, width: 640, height: 360, quality: .bitRate(2_000_000))
        expected.keyFrameInterval = 50
        #expect(video == .video(expected))
        #expect(EncodingSettings(dictionary: [AVVideoCodecKey: "ap4h"], for: .video) == nil, "ProRes: no encoder")
        #expect(EncodingSettings(dictionary: [AVVideoWidthKey: -1], for: .video) == nil)
        #expect(EncodingSettings(dictionary: ["AVVideoNoSuchKey": 1], for: .video) == nil)
        #expect(OutputSettings(dictionary: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false], for: .audio)
                == .audio(AudioOutputSettings(sampleFormat: .s16)))
        #expect(OutputSettings(dictionary: [AVLinearPCMBitDepthKey: 32, AVLinearPCMIsNonInterleaved: true, AVSampleRateKey: 22050], for: .audio)
                == .audio(AudioOutputSettings(sampleFormat: .s32, isInterleaved: false, sampleRate: 22050)))
        #expect(OutputSettings(dictionary: [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_420YpCbCr8Planar], for: .video)
                == .video(VideoOutputSettings(pixelFormat: .yuv420p)))
    }

    @Test func formatDescriptionsAndSampleBuffersThroughCoreMediasFunctions() throws {
        let asset = AVURLAsset(url: try Self.clip.get())
        let video = asset.tracks[0].formatDescriptions[0] as! CMFormatDescription
        let audio = asset.tracks[1].formatDescriptions[0] as! CMFormatDescription
        #expect(CMFormatDescriptionGetMediaType(video) == kCMMediaType_Video && CMFormatDescriptionGetMediaSubType(video) == kCMVideoCodecType_H264)
        #expect(CMVideoFormatDescriptionGetDimensions(video) == CMVideoDimensions(width: 320, height: 240))
        #expect(CMFormatDescriptionGetMediaSubType(audio) == kAudioFormatMPEG4AAC)
        let asbd = try #require(CMAudioFormatDescriptionGetStreamBasicDescription(audio)?.pointee)
        #expect(asbd.mSampleRate == 44100 && asbd.mChannelsPerFrame == 1 && asbd.mFormatID == kAudioFormatMPEG4AAC)
        #expect(CMAudioFormatDescriptionGetStreamBasicDescription(video) == nil)

        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: asset.tracks[1], outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16])
        reader.add(output)
        reader.startReading()
        let sample = try #require(output.copyNextSampleBuffer())
        let block = try #require(CMSampleBufferGetDataBuffer(sample))
        #expect(CMBlockBufferGetDataLength(block) == CMSampleBufferGetNumSamples(sample) * 2)
        var first = [UInt8](repeating: 0, count: 4)
        #expect(CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: 4, destination: &first) == kCMBlockBufferNoErr)
        #expect(CMBlockBufferCopyDataBytes(block, atOffset: CMBlockBufferGetDataLength(block) - 2, dataLength: 4, destination: &first)
                == kCMBlockBufferBadOffsetParameterErr)
        reader.cancelReading()
    }

    @Test func aCompositionIsAnAssetAndHandsOutCompositionTracksWhereNeeded() throws {
        let asset = AVURLAsset(url: try Self.clip.get())
        let composition = AVMutableComposition()
        try composition.insertTimeRange(CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1)), of: asset, at: .zero)
        let tracks: [AVAssetTrack] = composition.tracks(withMediaType: .video)
        #expect(tracks.count == 1 && composition.duration == CMTime(value: 1, timescale: 1))
        // An expression that needs a composition track gets one.
        try composition.tracks(withMediaType: .audio).first?.insertTimeRange(CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 2)),
                                                                            of: asset.tracks(withMediaType: .audio)[0], at: CMTime(value: 1, timescale: 1))
        #expect(composition.duration == CMTime(value: 3, timescale: 2))
        #expect(AVAssetExportSession.exportPresets(compatibleWith: composition).contains(AVAssetExportPresetPassthrough))
        #expect(AVMutableVideoComposition(propertiesOf: composition).renderSize == CGSize(width: 320, height: 240))
    }
}
