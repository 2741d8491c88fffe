// AVFoundation's settings dictionaries (`[AVVideoCodecKey: AVVideoCodecType.h264, …]`,
// `[AVFormatIDKey: kAudioFormatLinearPCM, …]`, `[kCVPixelBufferPixelFormatTypeKey: …]`) read
// into Splice's `OutputSettings` and `EncodingSettings`. A key Splice does not know, or a value it
// cannot honour, stops the program with a message naming it — what AVFoundation's
// `NSInvalidArgumentException` does for the same dictionary (settings are the program's own
// constants, not input).
import Foundation
@_exported import Splice

/// A four-character code as a number (CoreFoundation's `OSType`).
public typealias OSType = UInt32
/// An audio format's code (Core Audio's `AudioFormatID`).
public typealias AudioFormatID = UInt32

/// The settings key of an output's pixel format.
public let kCVPixelBufferPixelFormatTypeKey = "PixelFormatType"
/// The settings key of an output's width.
public let kCVPixelBufferWidthKey = "Width"
/// The settings key of an output's height.
public let kCVPixelBufferHeightKey = "Height"
/// 8-bit 4:2:0, luma and interleaved chroma planes, video range (`420v`): Splice's `.nv12`.
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = 0x3432_3076
/// 8-bit 4:2:0, three planes (`y420`): Splice's `.yuv420p`.
public let kCVPixelFormatType_420YpCbCr8Planar: OSType = 0x7934_3230
/// 10-bit 4:2:0, video range (`x420`): Splice's `.yuv420p10le`.
public let kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: OSType = 0x7834_3230

/// The settings key of an audio format.
public let AVFormatIDKey = "AVFormatIDKey"
/// The settings key of a sample rate.
public let AVSampleRateKey = "AVSampleRateKey"
/// The settings key of a channel count.
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
/// The settings key of linear PCM's bits per sample (16, 32).
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
/// The settings key of linear PCM's float samples.
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
/// The settings key of linear PCM's planar layout.
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"
/// The settings key of linear PCM's byte order (little-endian only).
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
/// The settings key of an encoder's bit rate.
public let AVEncoderBitRateKey = "AVEncoderBitRateKey"
/// The settings key of a channel layout: accepted, the channel count decides the layout.
public let AVChannelLayoutKey = "AVChannelLayoutKey"
/// Linear PCM (`lpcm`).
public let kAudioFormatLinearPCM: AudioFormatID = 0x6C70_636D
/// AAC (`aac `).
public let kAudioFormatMPEG4AAC: AudioFormatID = 0x6161_6320
/// Apple Lossless (`alac`).
public let kAudioFormatAppleLossless: AudioFormatID = 0x616C_6163
/// FLAC (`flac`).
public let kAudioFormatFLAC: AudioFormatID = 0x666C_6163
/// Opus (`opus`).
public let kAudioFormatOpus: AudioFormatID = 0x6F70_7573

/// The settings key of a video codec.
public let AVVideoCodecKey = "AVVideoCodecKey"
/// The settings key of a picture width.
public let AVVideoWidthKey = "AVVideoWidthKey"
/// The settings key of a picture height.
public let AVVideoHeightKey = "AVVideoHeightKey"
/// The settings key of the encoder's properties (a dictionary).
public let AVVideoCompressionPropertiesKey = "AVVideoCompressionPropertiesKey"
/// The encoder property of an average bit rate (bits per second).
public let AVVideoAverageBitRateKey = "AverageBitRate"
/// The encoder property of the most frames between two key frames.
public let AVVideoMaxKeyFrameIntervalKey = "MaxKeyFrameInterval"
/// The encoder property of the frame rate expected.
public let AVVideoExpectedSourceFrameRateKey = "ExpectedFrameRate"
/// The encoder property of a profile (`AVVideoProfileLevelH264HighAutoLevel`, …).
public let AVVideoProfileLevelKey = "ProfileLevel"
/// The encoder property of B-frames: accepted, the encoder's preset decides.
public let AVVideoAllowFrameReorderingKey = "AllowFrameReordering"
/// H.264 Baseline, the level chosen by the encoder.
public let AVVideoProfileLevelH264BaselineAutoLevel = "H264_Baseline_AutoLevel"
/// H.264 Main, the level chosen by the encoder.
public let AVVideoProfileLevelH264MainAutoLevel = "H264_Main_AutoLevel"
/// H.264 High, the level chosen by the encoder.
public let AVVideoProfileLevelH264HighAutoLevel = "H264_High_AutoLevel"

/// A video codec of AVFoundation's settings (`.h264`, `.hevc`).
public struct AVVideoCodecType: RawRepresentable, Hashable, Sendable {
    /// The codec's four-character name.
    public let rawValue: String
    /// A codec by its four-character name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// H.264 (`avc1`).
    public static let h264 = AVVideoCodecType(rawValue: "avc1")
    /// HEVC (`hvc1`).
    public static let hevc = AVVideoCodecType(rawValue: "hvc1")
}

/// H.264, in the older spelling.
public let AVVideoCodecH264 = AVVideoCodecType.h264.rawValue

/// Stops the program on settings Splice cannot honour (as AVFoundation's exception does).
func invalidSettings(_ what: String, _ settings: [String: Any]) -> Never {
    preconditionFailure("output settings: \(what) (in \(settings.keys.sorted()))")
}

/// A number of a settings dictionary (`Int`, `Double`, `Float`, `UInt32`, `NSNumber`, …).
func settingsNumber(_ value: Any?) -> Double? {
    switch value {
    case let v as Int: Double(v)
    case let v as Int32: Double(v)
    case let v as UInt32: Double(v)
    case let v as Double: v
    case let v as Float: Double(v)
    case let v as NSNumber: v.doubleValue
    default: nil
    }
}

/// A whole, positive number of a settings dictionary, if it is one.
func settingsCount(_ value: Any?) -> Int? {
    guard let d = settingsNumber(value), d.isFinite, d >= 1, d <= 1e9, d == d.rounded() else { return nil }
    return Int(exactly: d)
}

extension OutputSettings {
    /// AVFoundation's reader output settings for a track of `mediaType`: for sound
    /// `AVFormatIDKey: kAudioFormatLinearPCM` with `AVLinearPCMBitDepthKey` (16, 32),
    /// `AVLinearPCMIsFloatKey`, `AVLinearPCMIsNonInterleaved`, `AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`; for pictures `kCVPixelBufferPixelFormatTypeKey` (`420v`, `y420`,
    /// `x420`), `kCVPixelBufferWidthKey` and `kCVPixelBufferHeightKey`.
    public init(dictionary settings: [String: Any], for mediaType: AVMediaType) {
        if mediaType == .audio {
            var audio = AudioOutputSettings()
            var bits: Int?, isFloat: Bool?
            for (key, value) in settings {
                switch key {
                case AVFormatIDKey:
                    guard settingsNumber(value) == Double(kAudioFormatLinearPCM) else { invalidSettings("a reader decodes sound to kAudioFormatLinearPCM only", settings) }
                case AVLinearPCMBitDepthKey:
                    guard let n = settingsCount(value), n == 16 || n == 32 else { invalidSettings("AVLinearPCMBitDepthKey is 16 or 32", settings) }
                    bits = n
                case AVLinearPCMIsFloatKey: isFloat = (value as? Bool) == true
                case AVLinearPCMIsNonInterleaved: audio.isInterleaved = (value as? Bool) != true
                case AVLinearPCMIsBigEndianKey:
                    guard (value as? Bool) != true else { invalidSettings("samples are little-endian", settings) }
                case AVSampleRateKey:
                    guard let rate = settingsCount(value) else { invalidSettings("AVSampleRateKey is a positive number", settings) }
                    audio.sampleRate = rate
                case AVNumberOfChannelsKey:
                    guard let n = settingsCount(value) else { invalidSettings("AVNumberOfChannelsKey is a positive number", settings) }
                    audio.channelCount = n
                case AVChannelLayoutKey: break
                default: invalidSettings("\(key) is not an audio output setting Splice knows", settings)
                }
            }
            // Float is 32-bit; integers 16-bit unless 32 is asked for; neither said: 32-bit float.
            if isFloat == true {
                if bits == 16 { invalidSettings("float samples are 32-bit", settings) }
                audio.sampleFormat = .f32
            } else if let bits {
                audio.sampleFormat = bits == 32 ? .s32 : .s16
            } else {
                audio.sampleFormat = isFloat == false ? .s16 : .f32
            }
            self = .audio(audio)
            return
        }
        var video = VideoOutputSettings()
        for (key, value) in settings {
            switch key {
            case kCVPixelBufferPixelFormatTypeKey:
                switch settingsNumber(value).map(UInt32.init(exactly:)) {
                case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: video.pixelFormat = .nv12
                case kCVPixelFormatType_420YpCbCr8Planar: video.pixelFormat = .yuv420p
                case kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: video.pixelFormat = .yuv420p10le
                default: invalidSettings("the pixel formats Splice decodes to are 420v, y420 and x420 (no RGB: libswscale converts)", settings)
                }
            case kCVPixelBufferWidthKey, kCVPixelBufferHeightKey:
                guard let n = settingsCount(value) else { invalidSettings("\(key) is a positive number", settings) }
                if key == kCVPixelBufferWidthKey { video.maximumWidth = n } else { video.maximumHeight = n }
            default: invalidSettings("\(key) is not a video output setting Splice knows", settings)
            }
        }
        self = .video(video)
    }
}

extension EncodingSettings {
    /// AVFoundation's writer input settings for `mediaType`, or nil when Splice cannot honour
    /// them: for pictures `AVVideoCodecKey` (`.h264`, `.hevc`), `AVVideoWidthKey`,
    /// `AVVideoHeightKey`, `AVVideoCompressionPropertiesKey` (`AVVideoAverageBitRateKey`,
    /// `AVVideoMaxKeyFrameIntervalKey`, `AVVideoExpectedSourceFrameRateKey`,
    /// `AVVideoProfileLevelKey`); for sound `AVFormatIDKey` (`kAudioFormatMPEG4AAC`,
    /// `kAudioFormatAppleLossless`, `kAudioFormatFLAC`, `kAudioFormatOpus`), `AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`, `AVEncoderBitRateKey`.
    public init?(dictionary settings: [String: Any], for mediaType: AVMediaType) {
        if mediaType == .audio {
            var audio = AudioEncodingSettings()
            for (key, value) in settings {
                switch key {
                case AVFormatIDKey:
                    switch settingsNumber(value).map(UInt32.init(exactly:)) {
                    case kAudioFormatMPEG4AAC: audio.codec = .aac
                    case kAudioFormatAppleLossless: audio.codec = .alac
                    case kAudioFormatFLAC: audio.codec = .flac
                    case kAudioFormatOpus: audio.codec = .opus
                    default: return nil
                    }
                case AVSampleRateKey: guard let n = settingsCount(value) else { return nil }; audio.sampleRate = n
                case AVNumberOfChannelsKey: guard let n = settingsCount(value) else { return nil }; audio.channelCount = n
                case AVEncoderBitRateKey: guard let n = settingsCount(value) else { return nil }; audio.bitRate = n
                case AVChannelLayoutKey: break
                default: return nil
                }
            }
            self = .audio(audio)
            return
        }
        guard mediaType == .video else { return nil }
        var video = VideoEncodingSettings()
        for (key, value) in settings {
            switch key {
            case AVVideoCodecKey:
                let name = (value as? AVVideoCodecType)?.rawValue ?? (value as? String)
                switch name {
                case AVVideoCodecType.h264.rawValue: video.codec = .h264
                case AVVideoCodecType.hevc.rawValue: video.codec = .hevc
                default: return nil
                }
            case AVVideoWidthKey: guard let n = settingsCount(value) else { return nil }; video.width = n
            case AVVideoHeightKey: guard let n = settingsCount(value) else { return nil }; video.height = n
            case AVVideoCompressionPropertiesKey:
                guard let properties = value as? [String: Any] else { return nil }
                for (property, v) in properties {
                    switch property {
                    case AVVideoAverageBitRateKey: guard let n = settingsCount(v) else { return nil }; video.quality = .bitRate(n)
                    case AVVideoMaxKeyFrameIntervalKey: guard let n = settingsCount(v) else { return nil }; video.keyFrameInterval = n
                    case AVVideoExpectedSourceFrameRateKey: guard let r = settingsNumber(v), r > 0, r.isFinite else { return nil }; video.frameRate = r
                    case AVVideoProfileLevelKey:
                        switch v as? String {
                        case AVVideoProfileLevelH264BaselineAutoLevel: video.profile = "baseline"
                        case AVVideoProfileLevelH264MainAutoLevel: video.profile = "main"
                        case AVVideoProfileLevelH264HighAutoLevel: video.profile = "high"
                        default: return nil
                        }
                    case AVVideoAllowFrameReorderingKey: break
                    default: return nil
                    }
                }
            default: return nil
            }
        }
        self = .video(video)
    }
}

extension AssetWriterInput {
    /// An input of `mediaType` encoding with AVFoundation's settings dictionary (see
    /// `EncodingSettings(dictionary:for:)`), or passing samples through (nil).
    @_disfavoredOverload
    public convenience init(mediaType: AVMediaType, outputSettings: [String: Any]?, sourceFormatHint: CMFormatDescription? = nil) {
        var settings: EncodingSettings?
        if let outputSettings {
            guard let s = EncodingSettings(dictionary: outputSettings, for: mediaType) else {
                invalidSettings("not settings Splice can encode \(mediaType) with", outputSettings)
            }
            settings = s
        }
        self.init(mediaType: mediaType, outputSettings: settings, sourceFormatHint: sourceFormatHint)
    }
}
