import MediaCore

/// The structure a mirror rebuilds between the inputs it made: the groups and the track
/// references, less what the track selection left out (each change said in a note).
extension TrackMirror {
    /// The source's groups as writer groups; for Matroska sources, the default flags become
    /// groups the way players expect them: the audio tracks one group with its default (else
    /// first) track enabled, the subtitle tracks another with its default track enabled, or none.
    ///
    /// A group whose tracks are all left out (or mixed into another's place) has no inputs, and is
    /// not added; one whose default track is left out gets its first kept track as its default.
    func groups(_ inputs: [Int: AssetWriterInput], notes: inout [String]) -> [AssetWriterInputGroup] {
        var groups = asset.trackGroups.map { group in
            let members = group.trackIDs.compactMap { inputs[$0] }
            var defaultInput = group.defaultTrack.flatMap { inputs[$0.trackID] }
            if defaultInput == nil, let old = group.defaultTrack, !selection.includes(old), let first = members.first,
               let id = group.trackIDs.first(where: { inputs[$0] === first }) {
                defaultInput = first
                notes.append("group \(group.alternateGroup): track \(id) is its default track, as track \(old.trackID) is left out")
            }
            return AssetWriterInputGroup(inputs: members, defaultInput: defaultInput, preferredAlternateGroup: group.alternateGroup)
        }
        guard asset.source.structure.hasTrackFlags else { return groups }
        for type in [MediaType.audio, .subtitle] {
            let members = copiedTracks.filter { $0.mediaType == type }
            guard !members.isEmpty else { continue }
            let chosen = members.first { $0.isDefault } ?? (type == .audio ? members.first : nil)
            groups.append(AssetWriterInputGroup(inputs: members.compactMap { inputs[$0.trackID] },
                                                defaultInput: chosen.flatMap { inputs[$0.trackID] }))
        }
        return groups
    }

    /// Every track reference between copied tracks, remapped to their inputs; those to a track
    /// left out are dropped, one note per target and type.
    func carryAssociations(between inputs: [Int: AssetWriterInput], notes: inout [String]) {
        var dropped: [String: [Int]] = [:]
        for track in asset.tracks {
            guard let input = inputs[track.trackID] else { continue }
            for type in track.availableTrackAssociationTypes {
                for id in track.associations[type] ?? [] {
                    if let target = inputs[id] {
                        input.addTrackAssociation(withTrackOf: target, type: type)
                    } else if let target = asset.track(withTrackID: id), !selection.includes(target) {
                        dropped["'\(type.rawValue)' references to track \(id)", default: []].append(track.trackID)
                    }
                }
            }
        }
        for (what, from) in dropped.sorted(by: { $0.key < $1.key }) {
            notes.append("\(what) (from track\(from.count == 1 ? "" : "s") \(from.map(String.init).joined(separator: ", "))) are dropped: it is left out")
        }
    }
}
