import Dispatch
import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// `AssetReader` and `AssetWriter` driven directly, the way the subtitle-writer sample does it.
@Suite("Reader and writer sessions")
struct WriterSessionTests {
    /// Reads all samples of one track.
    static func samples(_ asset: Asset, track: Int) throws -> [SampleBuffer] {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[track], outputSettings: nil)
        try reader.add(output)
        #expect(reader.startReading())
        var result: [SampleBuffer] = []
        while let s = output.copyNextSampleBuffer() { result.append(s) }
        #expect(reader.status == .completed)
        return result
    }

    @Test func readerHandsOutSamplesInDecodeOrder() throws {
        let asset = try Asset(url: try Fixtures.negativeCTS.get())
        let video = try WriterSessionTests.samples(asset, track: 0)
        #expect(video.count == asset.tracks[0].sampleCount)
        #expect(video.first?.isSync == true)
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.decodeTimeStamp < $1.decodeTimeStamp })
        #expect(video.contains { $0.presentationTimeStamp < $0.decodeTimeStamp })
        #expect(video.allSatisfy { $0.formatDescription.codec == "avc1" && $0.duration > .zero })
        // Sizes agree with ffprobe's packet sizes.
        let probe = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                               "-of", "csv=p=0", try Fixtures.negativeCTS.get().path])
        #expect(try probe.stdout.split(separator: "\n").compactMap { Int($0) } == video.map { try $0.data.count })
    }

    @Test func readerTimeRangeStartsAtASyncSample() throws {
        let asset = try Asset(url: try Fixtures.negativeCTS.get())
        let reader = try AssetReader(asset: asset)
        reader.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 2))
        let output = AssetReaderTrackOutput(track: asset.tracks[0])
        try reader.add(output)
        #expect(reader.startReading())
        var got: [SampleBuffer] = []
        while let s = output.copyNextSampleBuffer() { got.append(s) }
        let all = try WriterSessionTests.samples(asset, track: 0)
        #expect(got.first?.isSync == true)
        #expect(!got.isEmpty && got.count < all.count)
        #expect(got.first!.decodeTimeStamp.seconds <= 1.0)
        #expect(got.last!.decodeTimeStamp.seconds < 1.6)
    }

    /// A session built by hand: video, two audio tracks in a group (the second one default),
    /// an association, a language and a name — checked with ffprobe and mediainfo.
    @Test func handBuiltSession() async throws {
        let source = try Asset(url: try Fixtures.grouped.get())
        let url = Fixtures.path("hand-built.mp4")
        try? FileManager.default.removeItem(at: url)
        let reader = try AssetReader(asset: source)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        var pairs: [(AssetReaderTrackOutput, AssetWriterInput)] = []
        for index in [0, 1, 2] {
            let track = source.tracks[index]
            let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
            #expect(reader.canAdd(output))
            try reader.add(output)
            let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil,
                                         sourceFormatHint: track.formatDescriptions.first)
            #expect(writer.canAdd(input))
            try writer.add(input)
            pairs.append((output, input))
        }
        let (video, english, french) = (pairs[0].1, pairs[1].1, pairs[2].1)
        english.languageCode = "eng"
        french.languageCode = "fra"
        french.extendedLanguageTag = "fr-FR"
        french.name = "Français"
        let group = AssetWriterInputGroup(inputs: [english, french], defaultInput: french)
        #expect(writer.canAdd(group))
        try writer.add(group)
        #expect(!writer.canAdd(AssetWriterInputGroup(inputs: [english], defaultInput: english)))
        #expect(english.canAddTrackAssociation(withTrackOf: french, type: .audioFallback))
        english.addTrackAssociation(withTrackOf: french, type: .audioFallback)
        video.addTrackAssociation(withTrackOf: english, type: "hint")
        video.addTrackAssociation(withTrackOf: french, type: "hint")

        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let group2 = DispatchGroup()
        for (i, (output, input)) in pairs.enumerated() {
            group2.enter()
            let queue = DispatchQueue(label: "pair.\(i)")
            let left = Once()
            input.requestMediaDataWhenReady(on: queue) {
                while input.isReadyForMoreMediaData {
                    guard let sample = output.copyNextSampleBuffer() else {
                        input.markAsFinished()
                        left.run { group2.leave() }
                        return
                    }
                    if !input.append(sample) { break }
                }
                if writer.status != .writing { left.run { group2.leave() } }
            }
        }
        await withCheckedContinuation { c in group2.notify(queue: .global()) { c.resume() } }
        try await writer.finishWriting()
        #expect(writer.status == .completed)

        let asset = try Asset(url: url)
        #expect(asset.trackGroups.count == 1)
        #expect(asset.trackGroups[0].trackIDs == [2, 3])
        #expect(asset.trackGroups[0].defaultTrack?.trackID == 3)
        #expect(asset.tracks.map(\.isEnabled) == [true, false, true])
        #expect(asset.tracks[1].associatedTracks(ofType: .audioFallback).map(\.trackID) == [3])
        #expect(asset.tracks[0].associations["hint"] == [2, 3])
        #expect(asset.tracks[2].languageCode == "fra" && asset.tracks[2].extendedLanguageTag == "fr-FR")
        #expect(asset.tracks[2].name == "Français")

        // Independent checks: packets equal to the source's first three streams, mediainfo sees the group.
        let hash = { (u: URL, maps: [String]) in
            try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", u.path] + maps.flatMap { ["-map", $0] }
                           + ["-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        #expect(try hash(url, ["0:0", "0:1", "0:2"]) == hash(try Fixtures.grouped.get(), ["0:0", "0:1", "0:2"]))
        let mi = try RemuxTests.mediainfoTracks(url)
        #expect(mi.count == 3)
        #expect(mi[1].contains("group=1") && !mi[1].contains("default=Yes") && mi[1].contains("Fallback_To=3"))
        #expect(mi[2].contains("group=1") && mi[2].contains("default=Yes"))
    }

    /// An input that finishes at once and an empty track do not stall the others; dependency
    /// flags (`sdtp`) are carried; the writer derives times from the samples.
    @Test func emptyTrackAndEarlyFinishDoNotDeadlock() throws {
        let source = try Asset(url: try Fixtures.quickTime.get())
        let audio = try WriterSessionTests.samples(source, track: 1)
        let url = Fixtures.path("early-finish.m4a")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        #expect(writer.fileType == .m4a)
        let full = AssetWriterInput(mediaType: .audio, sourceFormatHint: audio[0].formatDescription)
        let empty = AssetWriterInput(mediaType: .audio, sourceFormatHint: audio[0].formatDescription)
        let short = AssetWriterInput(mediaType: .audio, sourceFormatHint: audio[0].formatDescription)
        for i in [full, empty, short] { try writer.add(i) }
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        empty.markAsFinished()
        // Only ready inputs take samples; feed them alternately as readiness allows.
        var a = audio.makeIterator()
        var shortLeft = 5
        var done = false
        var spins = 0
        while !done {
            spins += 1
            #expect(spins < 100_000)
            if spins >= 100_000 { break }
            if shortLeft > 0 && short.isReadyForMoreMediaData {
                var s = audio[5 - shortLeft]
                s.dependency = SampleBuffer.Dependency(rawValue: 0x10)
                #expect(short.append(s))
                shortLeft -= 1
                if shortLeft == 0 { short.markAsFinished() }
            }
            if full.isReadyForMoreMediaData {
                if let s = a.next() { #expect(full.append(s)) } else { full.markAsFinished(); done = true }
            }
        }
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let movie = try MovieFile(file: try ReadOnlyFile(path: url.path))
        #expect(movie.tracks.map(\.sampleCount) == [audio.count, 0, 5])
        #expect(movie.tracks[2].sampleTable.dependencies == [0x10, 0x10, 0x10, 0x10, 0x10])
        #expect(movie.tracks[0].sampleTable.dependencies == nil)
        #expect(movie.tracks[1].sampleTable.sampleEntries.count == 1)
        let copy = try WriterSessionTests.samples(try Asset(url: url), track: 0)
        #expect(try copy.map { try $0.data } == audio.map { try $0.data })
        #expect(copy.map(\.decodeTimeStamp) == audio.map(\.decodeTimeStamp))
    }

    @Test func misuseFailsCleanly() throws {
        let url = Fixtures.path("misuse.mp4")
        try? FileManager.default.removeItem(at: url)
        let source = try Asset(url: try Fixtures.quickTime.get())
        let sample = try WriterSessionTests.samples(source, track: 1)[0]
        let writer = try AssetWriter(outputURL: url)
        let input = AssetWriterInput(mediaType: .audio)
        try writer.add(input)
        #expect(writer.startWriting())
        // No session yet: append fails and the writer reports why.
        #expect(!input.append(sample))
        #expect(writer.status == .failed)
        #expect(writer.error?.message.contains("startSession") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try leftovers(of: url).isEmpty)
        #expect(throws: MediaError.self) { _ = try AssetWriter(outputURL: Fixtures.path("x.xyz")) }
    }

    @Test func cancellationLeavesNothing() throws {
        let source = try Asset(url: try Fixtures.grouped.get())
        let url = Fixtures.path("cancelled.mp4")
        try? FileManager.default.removeItem(at: url)
        let pipe = try SamplePipe.mirroring(source, to: url)
        // Cancel from inside the run, once some samples have gone through.
        pipe.progressHandler = { _ in pipe.cancel() }
        #expect { try pipe.run() } throws: { ($0 as? MediaError)?.code == .cancelled }
        #expect(pipe.writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try leftovers(of: url).isEmpty)
    }

    @Test func mirroringThroughTheAsyncAPI() async throws {
        let url = Fixtures.path("async.mp4")
        try? FileManager.default.removeItem(at: url)
        let source = try await Asset.load(try Fixtures.grouped.get())
        let pipe = try SamplePipe.mirroring(source, to: url)
        let last = Counter()
        pipe.progressHandler = { _ in _ = last.increment() }
        try await pipe.run()
        #expect(last.value > 0)
        let result = try SampleComparison.compare(source, try Asset(url: url))
        #expect(result.tracks == 7 && result.samples == 434)
    }
}

final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func run(_ body: () -> Void) {
        let first = lock.withLock { () -> Bool in defer { done = true }; return !done }
        if first { body() }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int { lock.withLock { n += 1; return n } }
    var value: Int { lock.withLock { n } }
}

@Suite("Session times")
struct SessionTimeTests {
    /// `endSession(atSourceTime:)` cuts the tracks through an edit list; the samples stay.
    @Test func endSessionTrimsThroughAnEditList() throws {
        let source = try Asset(url: try Fixtures.quickTime.get())
        let samples = try WriterSessionTests.samples(source, track: 1)
        let url = Fixtures.path("session.m4a")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        writer.movieTimeScale = 600
        let input = AssetWriterInput(mediaType: .audio, sourceFormatHint: samples[0].formatDescription)
        try writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for s in samples {
            while !input.isReadyForMoreMediaData { usleep(100) }
            #expect(input.append(s))
        }
        input.markAsFinished()
        writer.endSession(atSourceTime: MediaTime(value: 1, timescale: 1))
        writer.finish()
        #expect(writer.status == .completed)
        let asset = try Asset(url: url)
        let track = try #require(asset.tracks.first)
        #expect(track.segments.count == 1)
        #expect(track.segments[0].target.duration == MediaTime(value: 1, timescale: 1))
        #expect(track.timeRange.duration == MediaTime(value: 1, timescale: 1))
        #expect(asset.duration == MediaTime(value: 1, timescale: 1))
        #expect(track.sampleCount == samples.count)
        let probe = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
        #expect(abs((Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.0) < 0.05)
    }
}

extension WriterSessionTests {
    /// A trim written the AVFoundation way — the reader's range, a session from its start to its
    /// end, every sample appended as handed out — is frame-exact with every stream from 0 for the
    /// range: the reader hands out video from the sync sample before the start, the writer's edit
    /// list hides it.
    @Test func aTrimByHandIsFrameExact() throws {
        let source = try CompositionTests.clips.get()[0]
        let asset = try Asset(url: source)
        let range = CompositionTests.range(1.2, 2.2)
        let reader = try AssetReader(asset: asset)
        reader.timeRange = range
        let url = Fixtures.path("trim-by-hand.mp4")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        var pairs: [(any SampleBufferSource, AssetWriterInput)] = []
        for track in asset.tracks {
            let output = AssetReaderTrackOutput(track: track)
            try reader.add(output)
            let input = AssetWriterInput(mediaType: track.mediaType, sourceFormatHint: track.formatDescriptions.first)
            try writer.add(input)
            pairs.append((output, input))
        }
        #expect(reader.startReading() && writer.startWriting())
        writer.startSession(atSourceTime: range.start)
        #expect(feed(pairs))
        writer.endSession(atSourceTime: range.end)
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let times = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=start_time,duration", "-of", "csv=p=0", url.path]).stdout
        for line in times.split(separator: "\n") {
            let t = line.split(separator: ",").compactMap { Double($0) }
            #expect(t.count == 2 && abs(t[0]) < 0.001 && abs(t[1] - 1) < 0.025, "\(line)")
        }
        let expected = try CompositionTests.frames(source, from: 1.2, to: 2.2)
        #expect(expected.count == 25)
        #expect(try CompositionTests.frames(url) == expected)
    }
}

@Suite("Request blocks")
struct RequestBlockTests {
    /// A block that is running when writing ends is called once more, so that a pipe waiting on
    /// it always learns that writing ended (else its DispatchGroup would wait forever).
    @Test func blockRunningWhenWritingEndsRunsOnceMore() throws {
        let source = try Asset(url: try Fixtures.quickTime.get())
        let format = try #require(source.tracks[1].formatDescriptions.first)
        let url = Fixtures.path("ended-while-running.m4a")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        let input = AssetWriterInput(mediaType: .audio, sourceFormatHint: format)
        try writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let cancelled = DispatchSemaphore(value: 0), sawEnd = DispatchSemaphore(value: 0)
        let calls = Counter()
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "running")) {
            if calls.increment() == 1 {
                cancelled.wait()      // still running when the writer is cancelled
                return
            }
            if writer.status == .cancelled { sawEnd.signal() }
        }
        writer.cancelWriting()
        cancelled.signal()
        #expect(sawEnd.wait(timeout: .now() + 10) == .success)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
