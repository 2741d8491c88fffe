// Matroska parsing on arbitrary bytes (in memory): the EBML structure, the track list, tags and
// every cluster's blocks indexed. Any input must parse or give a MediaError — never a crash, a
// hang or an allocation sized by the data. (FuzzRemux reads Matroska files through `Asset`, the
// native reader first.) Seeds: small files made by mkvmerge and ffmpeg (Fuzz/seed.sh).
import Foundation
import FuzzSupport
import Matroska
import MediaCore

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? MatroskaFile(file: InMemoryBytes(bytes)) else { return 0 }
    for track in file.tracks {
        let f = track.frames
        for i in 0..<f.count where f.offsets[i] > UInt64(size) || UInt64(f.sizes[i]) > UInt64(size) - f.offsets[i] {
            fatalError("frame \(i) of track \(track.number) lies outside the input")
        }
    }
    return 0
}

runFuzzer(fuzz)
