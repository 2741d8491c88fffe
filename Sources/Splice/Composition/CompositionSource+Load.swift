import Foundation
import MediaCore

/// A composition as an asset: each track laid out (`layout`), with the properties its
/// `CompositionTrack` has and those its first clip's track gives it.
extension CompositionSource {
    static func load(_ composition: MutableComposition) throws -> LoadedAsset {
        var layouts: [Int: Layout] = [:]
        var made: [AssetTrack] = []
        var notes: [String] = []
        for t in composition.tracks {
            guard t.segments.contains(where: { !$0.isEmpty }) else {
                notes.append("composition track \(t.trackID) (\(t.mediaType)) has no media and is left out")
                continue
            }
            let layout = try CompositionSource.layout(t, withoutEditLists: composition.writesWithoutEditLists)
            layouts[t.trackID] = layout
            let first = t.segments.first { !$0.isEmpty }?.sourceTrack
            var p = AssetTrack.Properties(trackID: t.trackID, mediaType: t.mediaType, formatDescriptions: layout.formats,
                                          timeRange: t.timeRange, naturalTimeScale: t.naturalTimeScale > 0 ? t.naturalTimeScale : 600)
            p.languageCode = t.languageCode ?? "und"
            p.extendedLanguageTag = t.extendedLanguageTag
            p.isEnabled = t.isEnabled
            p.alternateGroup = t.alternateGroup
            p.name = t.name
            // Associations to tracks that made it into the asset (not to empty ones).
            p.associations = t.associations.mapValues { ids in ids.filter { id in composition.tracks.contains { $0.trackID == id && $0.segments.contains { !$0.isEmpty } } } }
                .filter { !$0.value.isEmpty }
            p.segments = layout.edits
            p.sampleCount = layout.sampleCount
            p.totalSampleDataLength = layout.bytes
            p.naturalSize = first?.naturalSize
            p.preferredTransform = t.preferredTransform ?? .identity
            p.preferredVolume = t.mediaType == .audio ? 1 : 0
            p.minFrameDuration = first?.minFrameDuration ?? .invalid
            made.append(AssetTrack(p, backing: CompositionTrackBacking(layout: layout, segments: t.segments)))
        }
        return LoadedAsset(format: "composition", duration: made.map(\.timeRange.end).max() ?? .zero, startTime: .zero, tracks: made,
                           source: CompositionSource(layouts: layouts), notes: notes)
    }
}
