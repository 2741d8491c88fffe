// Sample descriptions alone: one `stsd` entry (byte 0 picks the handler) parsed, described as
// a format, mapped to codec parameters and, where Splice knows the codec, built back into an
// entry that must parse and map to the same codec. Seeds: every entry of the real files in
// Fuzz/corpus/boxes (Fuzz/seed.sh).
import Foundation
import FuzzSupport
import ISOBMFF
import MediaCore

let handlers: [FourCC] = ["vide", "soun", "text", "sbtl", "subt", "tmcd", "meta", "hint"]

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let handler = handlers[Int(widening: data[0]) % handlers.count]
    guard let entry = try? SampleEntry(bytes: bytes, handler: handler) else { return 0 }
    let type = MediaType(handlerType: handler)
    let format = entry.formatDescription(mediaType: type)
    _ = (format.codecName, format.dimensions, format.sampleRate, format.channelCount, format.codecConfiguration)
    guard let p = CodecMapping.codecParameters(sampleEntry: bytes, mediaType: type), !p.codecName.isEmpty else { return 0 }
    guard let made = try? CodecMapping.sampleEntry(for: p, firstPacket: nil) else { return 0 }
    guard let again = try? SampleEntry(bytes: made.entry, handler: handler) else {
        fatalError("\(p.codecName): the sample entry built from \(entry.type) does not parse")
    }
    if let back = CodecMapping.codecParameters(sampleEntry: again.bytes, mediaType: type), back.codecName != p.codecName {
        fatalError("\(entry.type) → \(p.codecName) → \(again.type) → \(back.codecName)")
    }
    return 0
}

runFuzzer(fuzz)
