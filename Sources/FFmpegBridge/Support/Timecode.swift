import CFFmpeg
import FFmpegLoader

/// SMPTE timecodes as libavutil writes them.
public enum Timecode {
    /// "HH:MM:SS:FF" (";" before the frames for drop-frame) of frame `frame` counted from
    /// 00:00:00:00 at `rate` frames per second; nil for a rate libavutil refuses (drop frame is
    /// only for 30000/1001 and 60000/1001).
    public static func string(frame: Int32, rate: (num: Int32, den: Int32), dropFrame: Bool, wrapsAt24Hours: Bool) -> String? {
        guard (try? FFmpegLibraries.load()) != nil, rate.num > 0, rate.den > 0 else { return nil }
        var tc = AVTimecode()
        var flags: Int32 = 0
        if dropFrame { flags |= Int32(truncatingIfNeeded: AV_TIMECODE_FLAG_DROPFRAME.rawValue) }
        if wrapsAt24Hours { flags |= Int32(truncatingIfNeeded: AV_TIMECODE_FLAG_24HOURSMAX.rawValue) }
        guard av_timecode_init(&tc, AVRational(num: rate.num, den: rate.den), flags, 0, nil) >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(widening: AV_TIMECODE_STR_SIZE))
        guard let s = av_timecode_make_string(&tc, &buffer, frame) else { return nil }
        return String(cString: s)
    }
}
