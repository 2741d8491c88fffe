// The sample-table walk: every sample of every track of a fuzzed file is read
// (copyNextSampleBuffer), in memory and file-backed.
import Foundation
import FuzzSupport
import Splice

let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-tables-\(getpid()).mp4").path

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    guard let asset = try? Asset(url: URL(fileURLWithPath: path)), let reader = try? AssetReader(asset: asset) else { return 0 }
    var outputs: [AssetReaderTrackOutput] = []
    for (i, track) in asset.tracks.enumerated() {
        let output = AssetReaderTrackOutput(track: track)
        output.alwaysCopiesSampleData = i % 2 == 0
        guard (try? reader.add(output)) != nil else { return 0 }
        outputs.append(output)
    }
    guard reader.startReading() else { return 0 }
    for output in outputs {
        var n = 0
        while let sample = output.copyNextSampleBuffer(), n < 100_000 {
            _ = (try? sample.data)?.count   // a read error is thrown, never empty data
            n += 1
        }
    }
    return 0
}

runFuzzer(fuzz)
