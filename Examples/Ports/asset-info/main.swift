// asset-info <movie>
// What a movie holds, with the async loading API (macOS 13): its duration, and per track the
// codec, picture size and frame rate, or sample rate and channels, and the language.
import AVFoundation

func fourCC(_ code: FourCharCode) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8((code >> $0) & 0xff) }
    return String(decoding: bytes, as: UTF8.self)
}

func describe(_ url: URL) async throws {
    let asset = AVURLAsset(url: url)
    let (duration, tracks) = try await asset.load(.duration, .tracks)
    print(String(format: "duration %.3f", CMTimeGetSeconds(duration)))
    for track in tracks {
        let formats = try await track.load(.formatDescriptions)
        guard let format = formats.first else { continue }
        let language = try await track.load(.languageCode) ?? "und"
        let codec = fourCC(CMFormatDescriptionGetMediaSubType(format))
        switch CMFormatDescriptionGetMediaType(format) {
        case kCMMediaType_Video:
            let dimensions = CMVideoFormatDescriptionGetDimensions(format)
            let rate = try await track.load(.nominalFrameRate)
            print("track \(track.trackID) video \(codec) \(dimensions.width)x\(dimensions.height) \(String(format: "%.2f", rate)) fps \(language)")
        case kCMMediaType_Audio:
            if let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee {
                print("track \(track.trackID) audio \(codec) \(Int(asbd.mSampleRate)) Hz \(asbd.mChannelsPerFrame) ch \(language)")
            }
        default:
            print("track \(track.trackID) \(track.mediaType.rawValue) \(codec) \(language)")
        }
    }
}

do {
    try await describe(URL(fileURLWithPath: CommandLine.arguments[1]))
} catch {
    print("cannot read: \(error.localizedDescription)")
    exit(1)
}
