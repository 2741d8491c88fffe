// The codec-configuration parsers that read bytes from other containers (extradata and first
// packets: SPS/VPS/PPS, AV1 sequence headers, VP9 frame headers, AC-3/E-AC-3 and ADTS headers,
// OpusHead, FLAC STREAMINFO), the packet conversions and the HEVC SEI scan (HDR10+, HDR10
// metadata), on arbitrary bytes. A sample entry that is built must parse as one and map back to
// the same codec; an HDR10+ SEI written of the bytes must be found again.
import Foundation
import FuzzSupport
import ISOBMFF
import MediaCore
import Subtitles

let codecs: [(String, MediaType)] = [
    ("h264", .video), ("hevc", .video), ("av1", .video), ("vp9", .video), ("mpeg4", .video),
    ("aac", .audio), ("opus", .audio), ("flac", .audio), ("ac3", .audio), ("eac3", .audio), ("alac", .audio), ("mp3", .audio),
]

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (name, type) = codecs[Int(bytes[0]) % codecs.count]
    // The second byte says how the rest splits into extradata and a first packet.
    let split = min(bytes.count - 2, Int(bytes[1]) * (bytes.count - 2) / 255)
    var p = CodecParameters(mediaType: type, codecName: name)
    p.extradata = Array(bytes[2..<(2 + split)])
    p.width = 320; p.height = 240; p.sampleRate = 48000; p.channelCount = 2
    let packet = Array(bytes[(2 + split)...])
    if let made = try? CodecMapping.sampleEntry(for: p, firstPacket: packet) {
        guard let entry = try? SampleEntry(bytes: made.entry, handler: type.handlerType) else {
            fatalError("\(name): the sample entry built does not parse")
        }
        if let back = CodecMapping.codecParameters(sampleEntry: entry.bytes, mediaType: type), back.codecName != name {
            fatalError("\(name): the sample entry maps back to \(back.codecName)")
        }
        _ = made.conversion.apply(packet)
    }
    _ = PacketConversion.annexBToLengthPrefixed.apply(bytes)
    _ = PacketConversion.stripADTS.apply(bytes)
    _ = HEVCSEIMetadata(sample: bytes, lengthSize: Int(bytes[0] % 4) + 1)
    let t35 = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04] + bytes.prefix(600)
    if let sei = HDR10Plus.hevcSEI(t35, lengthSize: 4), !HEVCSEIMetadata(sample: sei, lengthSize: 4).hasHDR10Plus {
        fatalError("an HDR10+ SEI written is not found again")
    }
    for format in SubtitlePacketFormat.allCases { _ = SubtitlePacketReader(format: format, codecPrivate: []).cue(Data(bytes)) }
    return 0
}

runFuzzer(fuzz)
