/// A cue's markup in each format: its own when it came from that format, else markup made from
/// its text, styles and place — what every writer of the format (files, packets, `wvtt`) writes.
extension SubtitleCue {
    /// WebVTT settings: the cue's own, else ones that show it at its place.
    var webVTTSettings: String { settings.isEmpty ? CueSettings.settings(for: placement) : settings }

    /// The WebVTT payload: the cue's own, else `<b> <i> <u> <c.class>` markup.
    var webVTTPayload: String {
        if case .webVTT(let payload) = markup { return payload }
        return Markup.render(text, styles, .webVTT)
    }

    /// SRT text: the cue's own, else `<b> <i> <u> <font color>` markup; with a `{\anN}` tag for
    /// a place other than bottom centre that the text does not name already.
    var srtText: String {
        var body = Markup.render(text, styles, .srt)
        if case .srt(let own) = markup { body = own }
        guard placement != .bottomCenter, Markup.placementTag(in: body) == nil else { return body }
        return "{\\an\(placement.numpad)}" + body
    }

    /// The ASS event after its times (`Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`):
    /// the cue's own, else one in the `Default` style with override tags for its styles and place.
    var assEvent: String {
        if case .ass(let event) = markup { return event }
        return "0,Default,,0,0,0,," + Override.render(self)
    }
}
