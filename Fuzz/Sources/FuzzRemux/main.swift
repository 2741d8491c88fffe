// What users run, on mutated real files: `splice inspect` (the asset loaded), then `splice remux`
// into MP4 and into Matroska in a temporary directory, and each output loaded again. Any input
// must load, copy and read back, or fail with an error — never a crash, a hang or an
// allocation sized by the data. Seeds: real files made by the ffmpeg CLI (Fuzz/seed.sh):
// QuickTime sound v0/v1/v2, in24/lpcm, fragmented, timecode, chapters, subtitles.
import Foundation
import FuzzSupport
import MediaCore
import Splice

// tmpfs when there is one: the writer fsyncs every output, which is free there.
let directory = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("fuzz-remux-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let input = directory.appendingPathComponent("in.mov")

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard (try? Data(bytes: data, count: size).write(to: input)) != nil else { return 0 }
    for salvage in [false, true] {
        guard let asset = try? Asset(url: input, salvage: salvage) else { continue }
        _ = AssetReport(asset: asset)   // what `inspect` prints
        for type in [FileType.mp4, .mkv] {
            let output = directory.appendingPathComponent("out.\(type.rawValue)")
            try? FileManager.default.removeItem(at: output)
            guard let pipe = try? SamplePipe.mirroring(asset, to: output, fileType: type) else { continue }
            pipe.writer.replacesExistingFile = true
            guard (try? pipe.run()) != nil else {
                if FileManager.default.fileExists(atPath: output.path) { fatalError("a failed copy left \(output.lastPathComponent)") }
                continue
            }
            _ = pipe.warnings
            _ = pipe.reader?.warnings
            // The copy must load again (it is our own output).
            guard let copy = try? Asset(url: output) else { fatalError("the \(type.rawValue) copy does not load") }
            _ = AssetReport(asset: copy)
        }
        return 0
    }
    return 0
}

runFuzzer(fuzz)
