import MediaCore

/// The composition a concatenation copies or re-encodes.
extension Concatenation {
    /// The composition of the clips: each clip's chosen tracks over its range, one after the other.
    func build() throws -> MutableComposition {
        let composition = MutableComposition()
        let keys = trackKeys()
        var targets: [CompositionTrack] = []
        for (i, (type, language)) in keys.enumerated() {
            guard let t = composition.addMutableTrack(withMediaType: type) else { continue }
            t.languageCode = language
            if options.allTracks, let model = source(assets[0], keys, i) {
                t.isEnabled = model.isEnabled
                t.alternateGroup = model.alternateGroup
                t.extendedLanguageTag = model.extendedLanguageTag
            }
            targets.append(t)
        }
        var at = MediaTime.zero
        for (k, asset) in assets.enumerated() {
            let range = ranges[k]
            for (i, target) in targets.enumerated() {
                if let track = source(asset, keys, i), range.start < track.timeRange.end {
                    try target.insertTimeRange(range, of: track, at: at)
                } else {
                    target.insertEmptyTimeRange(TimeRange(start: at, duration: range.duration))
                }
            }
            at = at + range.duration
        }
        for t in composition.tracks where t.segments.allSatisfy(\.isEmpty) { composition.removeTrack(t) }
        return composition
    }

    /// The tracks joined: the (type, language) kinds every clip has as often as the first clip
    /// (chapter tracks left out: the chapters of joined clips are not joined), or the enabled
    /// video and audio.
    private func trackKeys() -> [(MediaType, String?)] {
        guard options.allTracks else { return (options.audioOnly ? [] : [(MediaType.video, nil)]) + [(.audio, nil)] }
        let per = assets.map { a in
            a.tracks.filter { t in [.video, .audio, .subtitle, .text].contains(t.mediaType) && !Concatenation.isChapterList(t, of: a) }
                .map { ($0.mediaType, $0.languageCode) }
        }
        return per[0].filter { k in per.allSatisfy { p in p.filter { $0 == k }.count >= per[0].filter { $0 == k }.count } }
    }

    private static func isChapterList(_ track: AssetTrack, of asset: Asset) -> Bool {
        asset.tracks.contains { $0.associations[.chapterList]?.contains(track.trackID) == true }
    }

    /// The track of `asset` that goes into the `i`-th composition track: the n-th track of that
    /// key goes into the n-th composition track of the key.
    private func source(_ asset: Asset, _ keys: [(MediaType, String?)], _ i: Int) -> AssetTrack? {
        let candidates = asset.tracks.filter { t in
            t.mediaType == keys[i].0 && (!options.allTracks || t.languageCode == keys[i].1) && !Concatenation.isChapterList(t, of: asset)
        }
        if !options.allTracks { return candidates.first { $0.isEnabled } ?? candidates.first }
        let n = keys[..<i].filter { $0 == keys[i] }.count
        return n < candidates.count ? candidates[n] : nil
    }
}
