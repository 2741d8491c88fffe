import Foundation
import MediaCore

/// A tx3g text box: top, left, bottom and right in the track's coordinates (3GPP TS 26.245 §5.16).
public struct TextBox: Sendable, Hashable {
    /// The box's edges.
    public var top: Int16, left: Int16, bottom: Int16, right: Int16

    /// A box with these edges.
    public init(top: Int16, left: Int16, bottom: Int16, right: Int16) {
        (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
    }
}

/// Cue places in tx3g. A track has one sample description, justified to the place most of its
/// cues have; a cue elsewhere gets a `tbox` modifier: a text box in that part of the track.
/// (FFmpeg 5.1's MP4 reader loses the codec of a subtitle track with two sample descriptions,
/// so one description per place would make the whole track unreadable in FFmpeg-based players.)
extension TX3G {
    /// The place most `samples` with text have (bottom centre when none or on a tie with it).
    public static func commonPlacement(_ samples: [TimedTextSample]) -> CuePlacement {
        var counts: [CuePlacement: Int] = [:]
        for s in samples where !s.text.isEmpty { counts[s.placement, default: 0] += 1 }
        let most = counts.values.max() ?? 0
        if counts[.bottomCenter] == most { return .bottomCenter }
        return counts.filter { $0.value == most }.keys.min { $0.numpad < $1.numpad } ?? .bottomCenter
    }

    /// The text box that shows `lines` lines of 18-point text at `placement` in a track of
    /// `size`, for a description justified to `justified`: a band as high as the text at the
    /// top, middle or bottom, over the left half, the whole width or the right half. Nil when
    /// the place is the description's or the size is unknown.
    public static func textBox(for placement: CuePlacement, lines: Int, in size: Dimensions?, justified: CuePlacement) -> TextBox? {
        guard placement != justified, let size, size.width > 0, size.height > 0 else { return nil }
        let w = min(size.width, Int(widening: Int16.max)), h = min(size.height, Int(widening: Int16.max))
        let band = min(h, max(1, lines) * 24 + 8)
        let (top, bottom): (Int, Int) = switch placement.vertical {
        case .top: (0, band)
        case .middle: ((h - band) / 2, (h + band) / 2)
        case .bottom: (h - band, h)
        }
        let (left, right): (Int, Int) = switch placement.horizontal {
        case .left: (0, w / 2)
        case .center: (0, w)
        case .right: (w - w / 2, w)
        }
        return TextBox(top: Int16(clamping: top), left: Int16(clamping: left), bottom: Int16(clamping: bottom), right: Int16(clamping: right))
    }

    /// The place a text box shows text in a track of `size`: by the thirds its centre falls in.
    public static func placement(of box: TextBox, in size: Dimensions?) -> CuePlacement {
        let w = max(1, size?.width ?? Int(widening: box.right)), h = max(1, size?.height ?? Int(widening: box.bottom))
        let x = (Int(widening: box.left) + Int(widening: box.right)) / 2, y = (Int(widening: box.top) + Int(widening: box.bottom)) / 2
        return CuePlacement(y * 3 < h ? .top : y * 3 < 2 * h ? .middle : .bottom, x * 3 < w ? .left : x * 3 < 2 * w ? .center : .right)
    }

    /// A sample of `sample`'s text and styles, with a text box when its place is not the
    /// description's (`justified`) and the track's `size` is known.
    public static func encode(_ sample: TimedTextSample, in size: Dimensions?, justified: CuePlacement) -> Data {
        let box = sample.text.isEmpty ? nil : textBox(for: sample.placement, lines: sample.text.split(separator: "\n").count, in: size, justified: justified)
        return encode(sample.text, styles: sample.styles, box: box)
    }

    /// The `tbox` modifier of a sample; nil when it has none.
    public static func textBox(ofSample data: Data) -> TextBox? {
        let bytes = [UInt8](data)
        guard bytes.count >= 2 else { return nil }
        let length = min(Int(widening: bytes[0]) << 8 | Int(widening: bytes[1]), bytes.count - 2)
        guard let b = ChildBoxes.of(bytes, from: 2 + length, to: bytes.count).first(where: { $0.type == "tbox" }), b.body.count >= 8 else { return nil }
        func i16(_ i: Int) -> Int16 { Int16(bitPattern: UInt16(widening: bytes[b.body.lowerBound + i]) << 8 | UInt16(widening: bytes[b.body.lowerBound + i + 1])) }
        return TextBox(top: i16(0), left: i16(2), bottom: i16(4), right: i16(6))
    }
}
