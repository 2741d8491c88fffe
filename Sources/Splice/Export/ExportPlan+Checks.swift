import Foundation
import MediaCore
import FFmpegBridge

/// What an export refuses before anything is read, from its plan.
extension ExportPlan {
    /// Refuses what cannot be exported, before anything is read: tracks the file cannot take
    /// (`refusal`, `checkTracks`), a range past the end, a cut mode that cannot be followed, a
    /// selection of tracks the asset does not have.
    func check() throws {
        guard let fileType else { return }
        try checkTracks(for: fileType)
        if let refusal {
            var error = MediaError(.unsupported, "the \(settings.preset) preset cannot write .\(fileType.rawValue) files: \(refusal)", file: settings.outputURL?.path)
            error.trackID = refusal.trackID
            throw error
        }
        try checkDolbyVision()
        try checkRange()
        try checkCutMode()
        try settings.trackSelection.check(against: asset)
        try checkEncodedTracks()
    }

    /// Refuses encoded tracks that cannot stand for their tracks: a track the asset does not
    /// have, another media type, a range (they stand for whole tracks).
    private func checkEncodedTracks() throws {
        for (id, encoded) in settings.encodedTracks.sorted(by: { $0.key < $1.key }) {
            let file = encoded.asset?.filePath(of: encoded)
            guard let track = asset.track(withTrackID: id) else {
                throw MediaError(.invalidOperation, "an encoded track stands for track \(id), which \(asset.url.lastPathComponent) does not have", file: file)
            }
            guard track.mediaType == encoded.mediaType else {
                throw MediaError(.invalidOperation, "track \(id) is \(track.mediaType), and the encoded track standing for it \(encoded.mediaType)", file: file)
            }
            guard settings.timeRange == .everything else {
                throw MediaError(.invalidOperation, "encoded tracks stand for whole tracks, and the export has a range: cut the encoded tracks instead", file: file)
            }
        }
    }

    /// Refuses a `timeRange` that starts or ends past the asset's end (never shortened without a word).
    private func checkRange() throws {
        let range = settings.timeRange
        guard range != .everything else { return }
        let duration = String(format: "%.3f s", asset.duration.seconds)
        guard range.start.isNumeric, range.start >= .zero, range.start < asset.duration, !requestedRange.isEmpty else {
            throw MediaError(.invalidData, "the range starts at \(String(format: "%.3f s", range.start.seconds)), past the end (\(duration))", file: asset.filePath())
        }
        // A range that ends past the end is refused, not shortened without a word.
        guard !range.end.isNumeric || range.end <= asset.duration else {
            throw MediaError(.invalidData, "the range ends at \(String(format: "%.3f s", range.end.seconds)), past the end (\(duration))", file: asset.filePath())
        }
    }

    /// Refuses what the file cannot take: no sound for a sound-only file, tracks that cannot be
    /// copied, decoded or encoded here, cuts between sync samples without edit lists.
    private func checkTracks(for fileType: FileType) throws {
        if settings.preset == .appleM4A, asset.tracks(withMediaType: .audio).isEmpty {
            throw MediaError(.unsupported, "the appleM4A preset exports audio, and \(asset.url.lastPathComponent) has no audio track", file: asset.filePath())
        }
        if fileType.holdsSoundOnly, asset.tracks(withMediaType: .audio).isEmpty {
            throw MediaError(.unsupported, ".\(fileType.rawValue) files hold sound only, and \(asset.url.lastPathComponent) has no audio track",
                             file: asset.filePath())
        }
        for track in asset.tracks {
            let plan = plan(of: track)
            if case .leaveOut = plan { continue }
            if case .substitute = plan { continue }   // (nothing of the track is read)
            guard case .copy = plan else {
                if let reason = ExportPlan.decodingProblem(track) ?? ExportPlan.encodingProblem(plan) {
                    throw MediaError(.unsupported, "track \(track.trackID) cannot be re-encoded: \(reason)", file: asset.filePath(of: track))
                }
                continue
            }
            if let reason = track.passthroughProblem {
                throw MediaError(.unsupported, "track \(track.trackID) cannot be copied: \(reason); use a preset that re-encodes")
            }
            if !fileType.hasEditLists, track.mediaType == .video, track.startsBetweenSyncSamples {
                throw MediaError(.unsupported, "track \(track.trackID) has a segment that starts between sync samples, and .\(fileType.rawValue) "
                                 + "files have no edit lists to hide what comes before it: cut at sync samples, write MP4/MOV, or re-encode")
            }
        }
    }

    /// Why a track's samples cannot be decoded here, or nil: a sample entry no codec entry reads,
    /// or a codec this machine's libavcodec has no decoder for.
    static func decodingProblem(_ track: AssetTrack) -> String? {
        // (encrypted samples are refused with the reason: no key)
        guard let format = track.formatDescriptions.first, track.encryption == nil else { return nil }
        let codec = (format.entryCodecParameters(mediaType: track.mediaType) ?? format.parameters).codecName
        if codec.isEmpty { return "Splice knows no codec for its '\(format.codec)' sample entry" }
        return Decoder.exists(for: codec) ? nil : "this machine's libavcodec has no \(codec) decoder"
    }

    /// Why a plan's encoder cannot run here (this machine's libavcodec lacks it), or nil.
    static func encodingProblem(_ plan: TrackPlan) -> String? {
        let encoder: String
        switch plan {
        case .encode(_, .video(let v)), .compose(_, _, _, .video(let v)): encoder = v.codec.encoderName
        case .encode(_, .audio(let a)), .mix(_, _, _, .audio(let a)): encoder = a.codec.encoderName
        default: return nil
        }
        return Encoder.exists(named: encoder) ? nil : "this machine's libavcodec has no \(encoder) encoder"
    }
}
