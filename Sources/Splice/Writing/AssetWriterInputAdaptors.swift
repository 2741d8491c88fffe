import MediaCore

/// Appends pictures made in code to an input with video encoding settings, each with its
/// presentation time (AVFoundation's pixel-buffer adaptor).
///
/// ```swift
/// let input = AssetWriterInput(mediaType: .video, outputSettings: .video(VideoEncodingSettings(codec: .h264)))
/// let adaptor = AssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
/// adaptor.append(picture, withPresentationTime: MediaTime(value: Int64(i), timescale: 25))
/// ```
public final class AssetWriterInputPixelBufferAdaptor: Sendable {
    /// The input the pictures go to.
    public let assetWriterInput: AssetWriterInput

    /// An adaptor appending to `assetWriterInput`, which has video encoding settings.
    public init(assetWriterInput: AssetWriterInput) {
        self.assetWriterInput = assetWriterInput
    }

    /// Appends `pixelBuffer`, shown from `time` (until the next picture's time).
    @discardableResult
    public func append(_ pixelBuffer: PixelBuffer, withPresentationTime time: MediaTime) -> Bool {
        let format = FormatDescription(mediaType: .video, codec: FourCC(pixelBuffer.pixelFormat.rawValue), codecName: "rawvideo",
                                       dimensions: Dimensions(width: pixelBuffer.width, height: pixelBuffer.height))
        return assetWriterInput.append(SampleBuffer(pixels: pixelBuffer, presentationTimeStamp: time, duration: .invalid, formatDescription: format))
    }
}

/// Appends PCM made in code to an input with audio encoding settings, each buffer with its
/// presentation time.
public final class AssetWriterInputPCMBufferAdaptor: Sendable {
    /// The input the sound goes to.
    public let assetWriterInput: AssetWriterInput

    /// An adaptor appending to `assetWriterInput`, which has audio encoding settings.
    public init(assetWriterInput: AssetWriterInput) {
        self.assetWriterInput = assetWriterInput
    }

    /// Appends `pcm`, heard from `time`; false when the input does not take it (see the writer's `error`).
    @discardableResult
    public func append(_ pcm: PCMBuffer, withPresentationTime time: MediaTime) -> Bool {
        let format = FormatDescription(mediaType: .audio, codec: "lpcm", sampleRate: Double(pcm.format.sampleRate),
                                       channelCount: pcm.format.channelCount)
        return assetWriterInput.append(SampleBuffer(pcm: pcm, presentationTimeStamp: time, formatDescription: format))
    }
}
