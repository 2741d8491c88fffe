// audio-levels <movie>
// The loudness of a movie's first audio track: its samples decoded by AVAssetReader to 16-bit
// interleaved PCM (an outputSettings dictionary), copied out of each CMBlockBuffer, and the
// peak and RMS levels printed in dBFS (the waveform reader of many Stack Overflow answers).
import AVFoundation
import CoreMedia

let url = URL(fileURLWithPath: CommandLine.arguments[1])
let asset = AVURLAsset(url: url)
guard let track = asset.tracks(withMediaType: .audio).first else {
    print("no audio in \(url.lastPathComponent)")
    exit(1)
}
let reader: AVAssetReader
do {
    reader = try AVAssetReader(asset: asset)
} catch {
    print("cannot read: \(error.localizedDescription)")
    exit(1)
}
let outputSettings: [String: Any] = [
    AVFormatIDKey: kAudioFormatLinearPCM,
    AVLinearPCMBitDepthKey: 16,
    AVLinearPCMIsBigEndianKey: false,
    AVLinearPCMIsFloatKey: false,
    AVLinearPCMIsNonInterleaved: false,
]
let output = AVAssetReaderTrackOutput(track: track, outputSettings: outputSettings)
reader.add(output)
reader.startReading()

var peak: Int32 = 0
var sumOfSquares = 0.0
var count = 0
while let sampleBuffer = output.copyNextSampleBuffer() {
    guard let blockBuffer = CMSampleBufferGetDataBuffer(sampleBuffer) else { continue }
    let length = CMBlockBufferGetDataLength(blockBuffer)
    var samples = [Int16](repeating: 0, count: length / MemoryLayout<Int16>.size)
    let status = samples.withUnsafeMutableBytes { bytes in
        CMBlockBufferCopyDataBytes(blockBuffer, atOffset: 0, dataLength: length, destination: bytes.baseAddress!)
    }
    guard status == kCMBlockBufferNoErr else { continue }
    for sample in samples {
        peak = max(peak, abs(Int32(sample)))
        sumOfSquares += Double(sample) * Double(sample)
    }
    count += samples.count
}
guard reader.status == .completed, count > 0 else {
    print("reading failed: \(reader.error?.localizedDescription ?? "no samples")")
    exit(1)
}
let rms = (sumOfSquares / Double(count)).squareRoot() / 32768
print(String(format: "peak %.2f dBFS, rms %.2f dBFS, %d samples", 20 * log10(Double(peak) / 32768), 20 * log10(rms), count))
