// The writer fed fuzzed but valid sample streams: the output must parse again and hand back
// the same samples.
import Foundation
import FuzzSupport
import ISOBMFF
import MediaCore
import Splice

// tmpfs when there is one: the writer fsyncs every output, which is free there.
let directory = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("fuzz-writer-\(getpid())")
func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var w = BoxWriter()
    w.box("mp4a") { w in w.zeros(6); w.u16(1); w.zeros(8); w.u16(2); w.u16(16); w.zeros(4); w.u32(48000 << 16) }
    let format = FormatDescription(mediaType: .audio, codec: "mp4a", sampleEntry: Data(w.bytes))
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("out.mp4")
    try? FileManager.default.removeItem(at: url)
    guard size >= 2, let writer = try? AssetWriter(outputURL: url) else { return 0 }
    // Byte 0: track count (1…3) and faststart; then per sample: track, size, duration, offset, flags.
    let tracks = Int(data[0] % 3) + 1
    writer.shouldOptimizeForNetworkUse = data[0] & 0x80 != 0
    let inputs = (0..<tracks).map { _ in AssetWriterInput(mediaType: .audio, sourceFormatHint: format) }
    for i in inputs { guard (try? writer.add(i)) != nil else { fatalError("cannot add an input") } }
    if tracks > 1 { guard (try? writer.add(AssetWriterInputGroup(inputs: inputs, defaultInput: inputs[Int(data[1]) % tracks]))) != nil else { fatalError("cannot add the group") } }
    guard writer.startWriting() else { return 0 }
    writer.startSession(atSourceTime: .zero)
    var clocks = [Int64](repeating: 0, count: tracks)
    var written: [[SampleBuffer]] = Array(repeating: [], count: tracks)
    var p = 2
    while p + 5 <= size {
        let t = Int(data[p]) % tracks
        let length = Int(data[p + 1]) + 1
        let duration = Int64(data[p + 2])
        let offset = Int64(Int8(bitPattern: data[p + 3]))
        let sync = data[p + 4] & 1 != 0
        p += 5
        let sample = SampleBuffer(data: Data(repeating: data[p - 1], count: length),
                                  decodeTimeStamp: MediaTime(value: clocks[t], timescale: 1000),
                                  presentationTimeStamp: MediaTime(value: clocks[t] + offset, timescale: 1000),
                                  duration: MediaTime(value: duration, timescale: 1000), isSync: sync,
                                  formatDescription: format)
        clocks[t] += duration
        // Feed only ready inputs; others wait their turn, as a pipe would.
        if !inputs[t].isReadyForMoreMediaData {
            if inputs.allSatisfy({ !$0.isReadyForMoreMediaData }) { fatalError("no input is ready: the writer would stall") }
            clocks[t] -= duration
            continue
        }
        guard inputs[t].append(sample) else { fatalError("append failed: \(String(describing: writer.error))") }
        written[t].append(sample)
    }
    for i in inputs { i.markAsFinished() }
    writer.finish()
    guard writer.status == .completed else { fatalError("writer failed: \(String(describing: writer.error))") }
    guard let asset = try? Asset(url: url), let reader = try? AssetReader(asset: asset) else {
        fatalError("the output does not parse")
    }
    let outputs = asset.tracks.map { AssetReaderTrackOutput(track: $0) }
    for o in outputs {
        o.presentsMediaTimeline = true     // compared as stored
        guard (try? reader.add(o)) != nil else { fatalError("cannot add an output") }
    }
    guard reader.startReading() else { fatalError("cannot read the output") }
    for (t, o) in outputs.enumerated() {
        var n = 0
        while let s = o.copyNextSampleBuffer() {
            let w = written[t][n]
            if (try? s.data) != (try? w.data) || s.decodeTimeStamp != w.decodeTimeStamp || s.presentationTimeStamp != w.presentationTimeStamp || s.isSync != w.isSync {
                fatalError("track \(t) sample \(n) differs")
            }
            n += 1
        }
        if n != written[t].count { fatalError("track \(t): \(n) samples read, \(written[t].count) written") }
    }
    return 0
}

runFuzzer(fuzz)
