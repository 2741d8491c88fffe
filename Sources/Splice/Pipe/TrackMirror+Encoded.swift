import Foundation
import MediaCore

/// Tracks encoded elsewhere (`ExportSession.encodedTracks`), written in their tracks' places.
extension TrackMirror {
    /// The input that writes `encoded` (another file's track, `ExportSession.encodedTracks`) in
    /// `track`'s place: its samples, format, timescale and edit list, with `track`'s language,
    /// name, flags and matrix (its group and associations follow its ID), read by a reader of
    /// its own.
    func connectEncoded(_ encoded: AssetTrack, in track: AssetTrack, to pipe: SamplePipe) throws -> AssetWriterInput {
        guard let asset = encoded.asset else {
            throw MediaError(.invalidOperation, "the encoded track standing for track \(track.trackID) has no asset (it was released)")
        }
        let source = try EncodedTrackSource(encoded, of: asset)
        let input = AssetWriterInput(copying: encoded)
        input.passthrough = nil
        input.copyProperties(of: track)
        try pipe.writer.add(input)
        pipe.connect(source, to: input, duration: encoded.timeRange.duration)
        return input
    }
}

/// The samples of a track of another file, in decode order, from a reader of its own (started
/// at once, cancelled when the source goes); a reading failure is the pipe's failure.
final class EncodedTrackSource: FailableSampleBufferSource {
    private let reader: AssetReader
    private let output: AssetReaderTrackOutput

    init(_ track: AssetTrack, of asset: Asset) throws {
        reader = try AssetReader(asset: asset)
        output = AssetReaderTrackOutput(track: track, outputSettings: nil)
        output.alwaysCopiesSampleData = false
        try reader.add(output)
        guard reader.startReading() else {
            throw reader.error ?? MediaError(.cancelled, "reading was cancelled", file: asset.filePath(of: track))
        }
    }

    deinit { reader.cancelReading() }

    func copyNextSampleBuffer() -> SampleBuffer? { output.copyNextSampleBuffer() }

    var failure: MediaError? { reader.status == .failed ? reader.error : nil }
}
