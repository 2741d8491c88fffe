import Dispatch
import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// The feeding loop of `AssetWriterInput`'s documentation, as a user writes it: one serial
/// queue per pair, a `DispatchGroup` left once per input (at the end of the samples, or when
/// `append(_:)` fails because writing ended). Returns whether every loop ended within 60 s.
@discardableResult
func feed(_ pairs: [(any SampleBufferSource, AssetWriterInput)]) -> Bool {
    let group = DispatchGroup()
    for (i, (output, input)) in pairs.enumerated() {
        group.enter()
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "feed.\(i)")) {
            while input.isReadyForMoreMediaData {
                guard let sample = output.copyNextSampleBuffer(), input.append(sample) else {
                    input.markAsFinished()
                    group.leave()
                    return
                }
            }
        }
    }
    return group.wait(timeout: .now() + 60) == .success
}

/// Every sample one output hands out for `track` (with `settings`, over `range`), checking that
/// the reader completes.
func readAll(_ track: AssetTrack, settings: OutputSettings?, range: TimeRange = .everything, mediaTimes: Bool = false) throws -> [SampleBuffer] {
    let reader = try AssetReader(asset: track.asset!)
    reader.timeRange = range
    let output = AssetReaderTrackOutput(track: track, outputSettings: settings)
    output.presentsMediaTimeline = mediaTimes
    try reader.add(output)
    #expect(reader.startReading())
    var samples: [SampleBuffer] = []
    while let s = output.copyNextSampleBuffer() { samples.append(s) }
    #expect(reader.status == .completed, "\(String(describing: reader.error))")
    return samples
}

/// A reader and a writer with one passthrough pair per track of `tracks`, added the documented way.
func passthroughPairs(_ asset: Asset, tracks: [Int], reader: AssetReader, writer: AssetWriter) throws
    -> [(AssetReaderTrackOutput, AssetWriterInput)] {
    try tracks.map { index in
        let track = asset.tracks[index]
        let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
        try reader.add(output)
        let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                     sourceFormatHint: track.formatDescriptions.first)
        input.languageCode = track.languageCode
        try writer.add(input)
        return (output, input)
    }
}

/// ffprobe's start time and duration of each stream, in seconds.
func streamTimes(_ url: URL) throws -> [(start: Double, duration: Double)] {
    let r = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=start_time,duration", "-of", "csv=p=0", url.path])
    return r.stdout.split(separator: "\n").map { line in
        let f = line.split(separator: ",").map { Double($0) ?? .nan }
        return (f.first ?? .nan, f.count > 1 ? f[1] : .nan)
    }
}

/// The decoded frames of a file's first video stream as (presentation time in seconds, md5).
func frameHashes(_ url: URL) throws -> [(time: Double, md5: String)] {
    let r = try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-f", "framemd5", "-"])
    var timeBase = 1.0
    var frames: [(Double, String)] = []
    for line in r.stdout.split(separator: "\n") {
        if line.hasPrefix("#tb 0:") {
            let parts = line.dropFirst(6).split(separator: "/").map { Double($0.trimmingCharacters(in: .whitespaces)) ?? 1 }
            if parts.count == 2 { timeBase = parts[0] / parts[1] }
        }
        guard !line.hasPrefix("#") else { continue }
        let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard f.count == 6, let pts = Double(f[2]) else { continue }
        frames.append((pts * timeBase, f[5]))
    }
    return frames
}
