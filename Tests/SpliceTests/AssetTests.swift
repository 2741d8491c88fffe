import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

@Suite("Asset: track structure read from real files")
struct AssetTests {
    @Test func groupedMovieStructure() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        #expect(asset.format == "mp4")
        #expect(asset.tracks.map(\.trackID) == [1, 2, 3, 4, 5, 6, 7])
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio, .audio, .audio, .subtitle, .subtitle, .text])
        #expect(asset.tracks.map(\.codec) == ["avc1", "mp4a", "mp4a", "ac-3", "tx3g", "tx3g", "text"])
        #expect(asset.tracks.map(\.isEnabled) == [true, true, false, true, true, false, false])
        #expect(asset.tracks.map(\.alternateGroup) == [0, 2, 2, 5, 7, 7, 0])
        #expect(asset.tracks.map(\.languageCode) == [nil, "eng", "fra", "eng", "eng", "eng", "eng"])
        #expect(asset.tracks.map(\.extendedLanguageTag) == [nil, nil, "fr-CA", nil, "en-US", nil, nil])
        #expect(asset.tracks[5].name == "Forced")

        let groups = asset.trackGroups
        #expect(groups.map(\.alternateGroup) == [2, 5, 7])
        #expect(groups.map { $0.trackIDs } == [[2, 3], [4], [5, 6]])
        #expect(groups.map { $0.defaultTrack?.trackID } == [2, 4, 5])

        let ac3 = try #require(asset.track(withTrackID: 4))
        #expect(ac3.availableTrackAssociationTypes == [.chapterList, .audioFallback])
        #expect(ac3.associatedTracks(ofType: .audioFallback).map(\.trackID) == [2])
        #expect(asset.track(withTrackID: 5)?.associatedTracks(ofType: .forcedSubtitlesOnly).map(\.trackID) == [6])
        #expect(asset.track(withTrackID: 2)?.associatedTracks(ofType: .selectionFollower).map(\.trackID) == [5])
        #expect(asset.track(withTrackID: 1)?.associatedTracks(ofType: .chapterList).map(\.trackID) == [7])
        #expect(asset.track(withTrackID: 1)?.associatedTracks(ofType: .timecode).isEmpty == true)

        #expect(asset.tracks[4].hasMediaCharacteristic(.legible))
        #expect(asset.tracks[1].hasMediaCharacteristic(.audible))
        #expect(asset.tracks[0].hasMediaCharacteristic(.visual))
        #expect(!asset.tracks[0].hasMediaCharacteristic(.legible))
        #expect(asset.tracks(withMediaCharacteristic: .legible).map(\.trackID) == [5, 6, 7])
    }

    @Test func multiSegmentEditListWithEmptyEdit() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let track = try #require(asset.track(withTrackID: 6))
        let s = track.segments
        #expect(s.count == 3)
        #expect(s[0].isEmpty)
        #expect(s[0].target == TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)))
        #expect(s[1].source?.start == .zero)
        #expect(s[1].target.start == MediaTime(value: 1, timescale: 1))
        #expect(s[2].source?.start == MediaTime(value: 3, timescale: 2))
        #expect(s[2].target.duration == MediaTime(value: 1, timescale: 2))
        #expect(track.timeRange == TimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 5, timescale: 2)))
    }

    @Test func formatDescriptionsKeepSampleEntries() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let video = try #require(asset.tracks.first?.formatDescriptions.first)
        #expect(video.dimensions == Dimensions(width: 320, height: 240))
        let entry = try #require(video.sampleEntry)
        #expect(Array(entry[4..<8]) == Array("avc1".utf8))
        #expect(entry.count == Int(entry[0]) << 24 | Int(entry[1]) << 16 | Int(entry[2]) << 8 | Int(entry[3]))
        let audio = try #require(asset.tracks[1].formatDescriptions.first)
        #expect(audio.sampleRate == 44100)
        #expect(audio.channelCount == 1 || audio.channelCount == 2)
    }

    /// Sample counts agree with ffprobe's packet count, for plain, fragmented and QuickTime files.
    @Test(arguments: ["grouped", "fragmented", "quickTime"])
    func sampleCountsMatchFFprobe(_ name: String) throws {
        let url = try fixture(name)
        let asset = try Asset(url: url)
        // Raw sample counts: ffprobe with edit lists ignored (they would hide edited-out samples).
        let probe = try Tool.check("ffprobe", ["-v", "error", "-ignore_editlist", "1", "-count_packets",
                                               "-show_entries", "stream=index,nb_read_packets", "-of", "json", url.path])
        let json = try #require(try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        for stream in streams {
            // ffprobe does not read the QuickTime chapter text track; it reports no count for it.
            guard let index = stream["index"] as? Int, let count = (stream["nb_read_packets"] as? String).flatMap(Int.init)
            else { continue }
            #expect(asset.tracks[index].sampleCount == count, "stream \(index)")
        }
        #expect(streams.count == asset.tracks.count)
    }

    @Test func fragmentedMovie() throws {
        let asset = try Asset(url: try Fixtures.fragmented.get())
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio])
        #expect(asset.tracks[0].sampleCount == 75)
        #expect(abs(asset.duration.seconds - 3.023) < 0.01)
        #expect(abs(asset.tracks[0].timeRange.duration.seconds - 3.023) < 0.01)
    }

    @Test func quickTimeMovie() throws {
        let asset = try Asset(url: try Fixtures.quickTime.get())
        #expect(asset.format == "mov")
        #expect(asset.tracks[1].languageCode == "deu")
        #expect(asset.tracks[0].name == "VideoHandler")
        #expect(asset.tracks[0].formatDescriptions.first?.dimensions == Dimensions(width: 160, height: 120))
        #expect(asset.duration == MediaTime(value: 2, timescale: 1))
    }

    @Test func matroskaThroughLibavformat() throws {
        let asset = try Asset(url: try Fixtures.matroska.get())
        #expect(asset.format.hasPrefix("matroska"))
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio, .audio, .subtitle])
        #expect(asset.tracks.map(\.codecName) == ["h264", "aac", "aac", "subrip"])
        #expect(asset.tracks.map(\.languageCode) == [nil, "eng", "spa", "fra"])
        #expect(asset.tracks[2].name == "Commentary")
        #expect(asset.tracks[3].isForced)
        #expect(!asset.tracks[2].isDefault)
        #expect(asset.tracks[0].formatDescriptions.first?.dimensions == Dimensions(width: 160, height: 120))
        #expect(abs(asset.duration.seconds - 2.0) < 0.1)
    }

    @Test func asyncLoading() async throws {
        let asset = try await Asset.load(try Fixtures.quickTime.get())
        #expect(asset.tracks.count == 2)
    }

    @Test func missingFileIsReported() throws {
        let url = Fixtures.path("does-not-exist.mp4")
        #expect { try Asset(url: url) } throws: { error in
            guard let e = error as? MediaError else { return false }
            return e.code == .fileNotFound && e.file == url.path
        }
    }
}
