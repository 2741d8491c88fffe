import MediaCore
import ISOBMFF

/// What an export does with HDR, Dolby Vision and multiview video: said in its notes, or refused.
extension ExportPlan {
    /// The decoded settings of a track that is re-encoded (alone or in a composition); nil when
    /// it is copied, cut or left out.
    private func decodedSettings(of track: AssetTrack) -> VideoOutputSettings? {
        switch plan(of: track) {
        case .encode(.video(let v), _), .compose(_, _, let v, _): v
        default: nil
        }
    }

    /// Refuses re-encoding Dolby Vision without a base layer other decoders show right (profile
    /// 5's IPTPQc2: libavcodec decodes it to wrong colours); a remux carries it.
    func checkDolbyVision() throws {
        for track in asset.tracks(withMediaType: .video) where decodedSettings(of: track) != nil {
            guard let dv = track.formatDescriptions.first?.parameters.dolbyVision, dv.compatibleBaseLayer == nil else { continue }
            var error = MediaError(.unsupported, "track \(track.trackID) is \(dv.summary): its pictures are right only through a Dolby Vision "
                                   + "decoder, so it cannot be re-encoded (a remux, or the passthrough preset, copies it)", file: asset.filePath())
            error.trackID = track.trackID
            throw error
        }
    }

    /// One note per re-encoded video track that loses something: HDR tone-mapped to SDR (and
    /// how), Dolby Vision's RPU dropped (its base layer kept), MV-HEVC's second view dropped.
    var hdrNotes: [String] {
        asset.tracks(withMediaType: .video).flatMap { track -> [String] in
            guard let decoded = decodedSettings(of: track), let format = track.formatDescriptions.first else { return [] }
            var notes: [String] = []
            let p = format.parameters
            if let dv = p.dolbyVision, let base = dv.compatibleBaseLayer {
                notes.append("track \(track.trackID): \(dv.summary): the Dolby Vision RPU (dynamic metadata) is dropped; its \(base) base layer is "
                             + (decoded.toneMapping == nil ? "kept" : "what is encoded"))
            }
            if let entry = format.sampleEntry, CodecMapping.extendedCoding(sampleEntry: [UInt8](entry), mediaType: .video) == .mvHEVC {
                notes.append("track \(track.trackID): MV-HEVC (spatial video): only the base view (the hero eye) is exported; the second view and its "
                             + "'lhvC', 'vexu' and 'hfov' are not (a remux keeps them)")
            }
            if p.color.isHDR, let t = decoded.toneMapping {
                let name = p.color.transfer == 18 ? "HLG" : "PQ"
                let parameter = t.parameter.map { t.toneOperator == .mobius ? ", knee \(String(format: "%g", $0))" : " \(String(format: "%g", $0))" } ?? ""
                notes.append("track \(track.trackID): HDR (\(name)) tone-mapped to SDR BT.709 (\(t.toneOperator.rawValue)\(parameter), "
                             + "reference white \(String(format: "%g", t.referenceWhite)) cd/m²)")
            }
            return notes
        }
    }
}
