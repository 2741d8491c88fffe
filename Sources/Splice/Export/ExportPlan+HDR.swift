import MediaCore

/// What an export does with HDR video, said in its notes.
extension ExportPlan {
    /// One note per HDR video track tone-mapped to SDR, saying how.
    var hdrNotes: [String] {
        asset.tracks(withMediaType: .video).compactMap { track in
            guard ExportPlan.isHDR(track), let color = track.formatDescriptions.first?.parameters.color else { return nil }
            let decoded: VideoOutputSettings
            switch plan(of: track) {
            case .encode(.video(let v), _), .compose(_, _, let v, _): decoded = v
            default: return nil
            }
            let name = color.transfer == 18 ? "HLG" : "PQ"
            guard let t = decoded.toneMapping else { return nil }   // kept: 10-bit, its transfer, its HDR10 metadata
            let parameter = t.parameter.map { t.toneOperator == .mobius ? ", knee \(String(format: "%g", $0))" : " \(String(format: "%g", $0))" } ?? ""
            return "track \(track.trackID): HDR (\(name)) tone-mapped to SDR BT.709 (\(t.toneOperator.rawValue)\(parameter), "
                + "reference white \(String(format: "%g", t.referenceWhite)) cd/m²)"
        }
    }
}
