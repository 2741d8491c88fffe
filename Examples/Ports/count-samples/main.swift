// count-samples <movie>
// Every sample of every track read with AVAssetReader (as stored, no decoding): per track the
// number of samples, their bytes and the last presentation time.
import AVFoundation
import CoreMedia

let url = URL(fileURLWithPath: CommandLine.arguments[1])
let asset = AVAsset(url: url)
guard let reader = try? AVAssetReader(asset: asset) else {
    print("cannot read \(url.lastPathComponent)")
    exit(1)
}
var outputs: [(CMPersistentTrackID, AVAssetReaderTrackOutput)] = []
for track in asset.tracks {
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
    if reader.canAdd(output) {
        reader.add(output)
        outputs.append((track.trackID, output))
    }
}
reader.startReading()
for (trackID, output) in outputs {
    var count = 0
    var bytes = 0
    var last = CMTime.invalid
    while let sample = output.copyNextSampleBuffer() {
        count += CMSampleBufferGetNumSamples(sample)
        bytes += CMSampleBufferGetTotalSampleSize(sample)
        let pts = CMSampleBufferGetPresentationTimeStamp(sample)
        if !last.isValid || CMTimeCompare(pts, last) > 0 { last = pts }
    }
    print("track \(trackID): \(count) samples, \(bytes) bytes, last at \(String(format: "%.3f", CMTimeGetSeconds(last)))")
}
if reader.status == .failed {
    print("reading failed: \(reader.error!)")
    exit(1)
}
