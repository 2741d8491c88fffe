import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// The timeline rule: reader output is on the asset's timeline (edit lists applied), so a copy
/// or a trim wired by hand the AVFoundation way keeps every track in sync.
@Suite("The asset timeline")
struct TimelineTests {
    static func read(_ track: AssetTrack, range: TimeRange = .everything, mediaTimes: Bool = false) throws -> [SampleBuffer] {
        try readAll(track, settings: nil, range: range, mediaTimes: mediaTimes)
    }

    static func seconds(_ s: Double) -> MediaTime { MediaTime(seconds: s, preferredTimescale: 1000) }

    @Test func samplesAreMappedThroughTheEditList() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        // Video: one edit showing media from 0.08 s (the B-frame delay) at 0.
        let video = try TimelineTests.read(asset.tracks[0])
        let media = try TimelineTests.read(asset.tracks[0], mediaTimes: true)
        #expect(video.count == media.count)
        #expect(video.map(\.presentationTimeStamp).min() == .zero)
        #expect(zip(video, media).allSatisfy { abs($0.presentationTimeStamp.seconds - ($1.presentationTimeStamp.seconds - 0.08)) < 1e-9 })
        #expect(try zip(video, media).allSatisfy { try $0.data == $1.data })
        // Track 6: empty 1 s, media 0–1 s at 1 s, media 1.5–2 s at 2 s: a gap, then the two pieces.
        let forced = try TimelineTests.read(asset.tracks[5])
        let stored = try TimelineTests.read(asset.tracks[5], mediaTimes: true)
        #expect(forced.first.map { $0.presentationTimeStamp.seconds } == 1.0)
        #expect(stored.first.map { $0.presentationTimeStamp.seconds } == 0.0)
        #expect(zip(forced, forced.dropFirst()).allSatisfy { $0.decodeTimeStamp < $1.decodeTimeStamp })
    }

    @Test func aTimeRangeOfAMatroskaFileIsOnTheSameTimeline() throws {
        let asset = try Asset(url: try Fixtures.matroska.get())
        // 2 s of video with one sync sample, at 0.
        let range = TimeRange(start: TimelineTests.seconds(0.5), duration: TimelineTests.seconds(0.5))
        let video = try TimelineTests.read(asset.tracks[0], range: range)
        let all = try TimelineTests.read(asset.tracks[0])
        #expect(video.first?.isSync == true)
        #expect(video.count < all.count - 20)
        // From the sync sample before 0.5 s to the frames shown up to 1 s.
        #expect(video.first!.presentationTimeStamp == all.first!.presentationTimeStamp)
        let inRange: (SampleBuffer) -> Bool = { $0.presentationTimeStamp.seconds >= 0.5 && $0.presentationTimeStamp.seconds < 1 }
        let shown = video.filter(inRange).count
        #expect(shown == all.filter(inRange).count)
    }

    /// A hand-wired copy keeps where each track starts: the edit lists come back from the
    /// session (ffprobe's start times equal the source's).
    @Test func aHandWiredCopyKeepsEveryTracksStart() throws {
        let source = try Fixtures.grouped.get()
        let asset = try Asset(url: source)
        let url = Fixtures.path("timeline-copy.mp4")
        try? FileManager.default.removeItem(at: url)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let pairs = try passthroughPairs(asset, tracks: [0, 1, 3, 4, 5], reader: reader, writer: writer)
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        feed(pairs.map { ($0.0 as any SampleBufferSource, $0.1) })
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let theirs = try streamTimes(source), ours = try streamTimes(url)
        for (i, j) in [(0, 0), (1, 1), (3, 2), (4, 3), (5, 4)] {
            #expect(abs(ours[j].start - theirs[i].start) < 0.001, "stream \(j): starts at \(ours[j].start), source at \(theirs[i].start)")
        }
        // The forced track's 1 s empty edit is kept.
        #expect(abs(ours[4].start - 1.0) < 0.001)
        #expect(try frameHashes(url).map(\.md5) == (try frameHashes(source)).map(\.md5))
    }

    /// A trim the AVFoundation way: `timeRange` on the reader, the session from its start to its
    /// end, samples appended as handed out. Every stream starts at 0, lasts the range, and the
    /// decoded frames are exactly the source's frames of the range.
    @Test func aTrimWrittenTheAVFoundationWay() throws {
        let source = try Fixtures.grouped.get()
        let asset = try Asset(url: source)
        let url = Fixtures.path("timeline-trim.mp4")
        try? FileManager.default.removeItem(at: url)
        let range = TimeRange(start: TimelineTests.seconds(1.2), duration: TimelineTests.seconds(1))
        let reader = try AssetReader(asset: asset)
        reader.timeRange = range
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let pairs = try passthroughPairs(asset, tracks: [0, 1, 3], reader: reader, writer: writer)
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: range.start)
        feed(pairs.map { ($0.0 as any SampleBufferSource, $0.1) })
        writer.endSession(atSourceTime: range.end)
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        for (i, t) in try streamTimes(url).enumerated() {
            #expect(abs(t.start) < 0.001, "stream \(i) starts at \(t.start)")
            #expect(abs(t.duration - 1.0) < 0.001, "stream \(i) lasts \(t.duration)")
        }
        let expected = try frameHashes(source).filter { $0.time >= 1.2 - 1e-6 && $0.time < 2.2 - 1e-6 }.map(\.md5)
        #expect(expected.count == 25)
        #expect(try frameHashes(url).map(\.md5) == expected)
    }

    /// Samples appended from the start with a session that starts later: video before the session
    /// is kept only from the last sync sample before it.
    @Test func videoBeforeTheSessionIsKeptOnlyForDecoding() throws {
        let source = try Fixtures.grouped.get()
        let asset = try Asset(url: source)
        let url = Fixtures.path("timeline-late-session.mp4")
        try? FileManager.default.removeItem(at: url)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let pairs = try passthroughPairs(asset, tracks: [0], reader: reader, writer: writer)
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: TimelineTests.seconds(1.2))
        feed(pairs.map { ($0.0 as any SampleBufferSource, $0.1) })
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let copy = try Asset(url: url)
        // The source has a sync sample every second: the copy's media starts at the one at 1 s.
        #expect(copy.tracks[0].sampleCount == asset.tracks[0].sampleCount! - 25)
        let expected = try frameHashes(source).filter { $0.time >= 1.2 - 1e-6 }.map(\.md5)
        #expect(try frameHashes(url).map(\.md5) == expected)
    }

    /// Edits that repeat media and dwell: the first second, a half-second still of its first
    /// frame, the first second again.
    @Test func repeatsAndDwellsAreHandedOutInOrder() throws {
        let url = Fixtures.path("dwell.mp4")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try Fixtures.grouped.get(), to: url)
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(1) { trak in
                let first = Int64(trak.mediaTimescale) * 2 / 25      // the first frame is shown at 0.08 s
                trak.setEditList([(1000, first, 1), (500, first, 0), (1000, first, 1)])
            }
        }
        let asset = try Asset(url: url)
        let source = try Asset(url: try Fixtures.grouped.get())
        let once = try TimelineTests.read(source.tracks[0], range: TimeRange(start: .zero, duration: TimelineTests.seconds(1)))
        let video = try TimelineTests.read(asset.tracks[0])
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.decodeTimeStamp < $1.decodeTimeStamp })
        // The dwell: the first frame (a sync sample), shown at 1 s for 0.5 s.
        let still = try #require(video.first { abs($0.presentationTimeStamp.seconds - 1) < 1e-9 && $0.duration.seconds == 0.5 })
        #expect(still.isSync)
        #expect(try still.data == once[0].data)
        // The repeat: the first second's samples again, from 1.5 s.
        let repeated = video.filter { $0.decodeTimeStamp.seconds >= 1.4 }
        #expect(try repeated.map { try $0.data } == once.map { try $0.data })
        #expect(abs(repeated.map(\.presentationTimeStamp.seconds).min()! - 1.5) < 1e-9)
    }
}
