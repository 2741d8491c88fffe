import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// A QuickTime timecode track into Matroska, which has no timecode tracks: its start timecode
/// becomes the TIMECODE tag of the video it belongs to, as `ffmpeg` writes it.
extension TrackMirror {
    /// The start timecode of a `tmcd` track of an MP4/MOV ("01:02:03:04"; ";" before the frames
    /// for drop frame): its first sample's frame number, counted as its description says.
    static func startTimecode(of track: AssetTrack) -> String? {
        let asset = track.owningAsset
        guard let entry = track.formatDescriptions.first?.sampleEntry,
              let description = TimecodeDescription(sampleEntry: [UInt8](entry)),
              description.timescale <= UInt32(clamping: Int32.max), description.frameDuration <= UInt32(clamping: Int32.max),
              let bytes = try? firstSample(of: track, in: asset), bytes.count >= 4 else { return nil }
        let frame = Int32(bitPattern: bytes.prefix(4).reduce(0) { $0 << 8 | UInt32(widening: $1) })
        return Timecode.string(frame: frame, rate: (Int32(truncatingIfNeeded: description.timescale), Int32(truncatingIfNeeded: description.frameDuration)),
                               dropFrame: description.isDropFrame, wrapsAt24Hours: description.wrapsAt24Hours)
    }

    /// The bytes of `track`'s first sample, read as any reader reads it.
    private static func firstSample(of track: AssetTrack, in asset: Asset) throws -> Data? {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        output.presentsMediaTimeline = true
        try reader.add(output)
        guard reader.startReading() else { return nil }
        defer { reader.cancelReading() }
        return try output.copyNextSampleBuffer()?.data
    }

    /// Gives each video input the start timecode of the `tmcd` track it refers to (or, with no
    /// reference, of the first one) as its TIMECODE tag.
    func carryTimecodes(_ timecodes: [(track: AssetTrack, timecode: String)], into inputs: [Int: AssetWriterInput]) {
        guard let first = timecodes.first else { return }
        for track in asset.tracks where track.mediaType == .video {
            guard let input = inputs[track.trackID] else { continue }
            let referred = track.associations[.timecode]?.compactMap { id in timecodes.first { $0.track.trackID == id } }.first
            input.timecodeTag = (referred ?? first).timecode
        }
    }
}
