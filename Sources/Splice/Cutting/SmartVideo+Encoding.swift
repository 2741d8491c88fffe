import Foundation
import MediaCore
import ISOBMFF

/// The re-encoded pieces of a smart cut: a span's frames decoded, black frames, or a
/// transition's composed pictures, encoded a few at a time.
extension SmartVideoSource {
    /// One re-encoded piece as it is made: the frames of `span` shown over `range` (source time),
    /// decoded (black where the span has no track) and encoded a few at a time. The i-th packet
    /// out is decoded at the i-th frame's time in (frames go in in presentation order) less the delay.
    final class Encoding {
        let range: TimeRange
        let span: CutSpan
        let stage: EncodingStage
        let reader: AssetReader?
        let output: (any SampleBufferSource)?
        var black: (picture: PixelBuffer, next: MediaTime)?
        /// The last frame decoded, handed out when the one after it (or the end) is seen.
        var held: SampleBuffer?
        var ended = false
        var times: [MediaTime] = []
        var handedOut = 0
        var config: NALConfiguration?
        let timescale: Int32

        init(_ piece: Piece, source: SmartVideoSource) throws {
            guard let settings = source.settings else { throw MediaError(.invalidOperation, "a keyframe cut re-encodes nothing") }
            stage = EncodingStage(settings: .video(settings), label: "smart cut")
            switch piece {
            case .encode(let range, let span): (self.range, self.span) = (range, span)
            case .compose(let range):
                (self.range, span) = (range, CutSpan(track: nil, source: range, target: range))
                guard let transitions = source.transitions else { throw MediaError(.invalidOperation, "a transition without a composition") }
                timescale = source.frameDuration.timescale
                // (the pictures come at the composition's times: the output's)
                let reader = try AssetReader(asset: transitions.asset)
                reader.timeRange = range
                let output = AssetReaderVideoCompositionOutput(videoTracks: transitions.tracks, videoSettings: Self.decoding(settings.pixelFormat))
                output.videoComposition = transitions.composition
                try reader.add(output)
                guard reader.startReading() else { throw reader.error ?? MediaError(.io, "cannot read the transition's clips") }
                self.reader = reader
                self.output = output
                return
            case .copy: throw MediaError(.invalidOperation, "a copied piece is not encoded")
            }
            guard let track = span.track else {
                black = (try source.blackFrame(), range.start)
                timescale = source.frameDuration.timescale
                reader = nil
                output = nil
                return
            }
            let asset = track.owningAsset
            timescale = track.naturalTimeScale
            let reader = try AssetReader(asset: asset)
            // (from two frames earlier: the frame on screen at the range's start may begin before it)
            reader.timeRange = TimeRange(start: max(.zero, range.start - source.frameDuration - source.frameDuration), end: range.end)
            let output = AssetReaderTrackOutput(track: track, outputSettings: .video(Self.decoding(settings.pixelFormat)))
            try reader.add(output)
            guard reader.startReading() else { throw reader.error ?? MediaError(.io, "cannot read \(asset.url.lastPathComponent)") }
            self.reader = reader
            self.output = output
        }

        deinit { reader?.cancelReading() }

        /// How a piece's frames are decoded: one decoder thread. A piece is a few frames around a
        /// cut or a transition, and frame threads would only delay the first and hold pictures.
        static func decoding(_ pixelFormat: PixelBuffer.PixelFormat) -> VideoOutputSettings {
            var decoded = VideoOutputSettings(pixelFormat: pixelFormat)
            decoded.decoderThreadCount = 1
            return decoded
        }

        /// The next packets (at least one unless done), and whether the piece is done.
        func step(_ source: SmartVideoSource) throws -> ([(SampleBuffer, NALConfiguration?, Bool)], Bool) {
            while true {
                var encoded: [SampleBuffer]
                var done = false
                if var picture = try nextPicture(source) {
                    // (in the encoder's timescale, the first picture's: a time it rounds would be
                    // decoded at one it does not show)
                    picture.presentationTimeStamp = picture.presentationTimeStamp.convertScale(timescale)
                    picture.decodeTimeStamp = picture.presentationTimeStamp
                    times.append(picture.presentationTimeStamp)
                    encoded = try stage.process(picture, timescale: timescale)
                } else {
                    encoded = try stage.finish(timescale: timescale)
                    done = true
                }
                if config == nil, let sets = source.sets, let format = encoded.first?.formatDescription {
                    guard let record = format.entryCodecParameters(mediaType: .video)?.extradata,
                          let c = NALConfiguration(codecName: sets.codec, record: record) else {
                        throw MediaError(.invalidData, "the encoder's \(sets.codec) configuration record cannot be read")
                    }
                    config = c
                }
                var made: [(SampleBuffer, NALConfiguration?, Bool)] = []
                for var packet in encoded {
                    guard handedOut < times.count, source.sets == nil || config != nil else {
                        throw MediaError(.invalidData, "the encoder made more packets than it took frames")
                    }
                    packet.decodeTimeStamp = times[handedOut] - source.delay
                    handedOut += 1
                    made.append((packet, config, false))
                }
                if !made.isEmpty || done { return (made, done) }
            }
        }

        /// The next picture to encode, on the output's timeline; nil at the range's end.
        private func nextPicture(_ source: SmartVideoSource) throws -> SampleBuffer? {
            if let (picture, t) = black {
                guard t < range.end else { return nil }
                black = (picture, t + source.frameDuration)
                return SampleBuffer(pixels: picture, presentationTimeStamp: span.targetTime(t), duration: source.frameDuration, formatDescription: source.format)
            }
            guard let reader, let output else { return nil }
            // A frame is shown until the next one starts (decoders' durations of millisecond-timed
            // frames are rounded): each is handed out once the next is seen.
            while !ended {
                let next = output.copyNextSampleBuffer()
                if next == nil { ended = true }
                defer { held = next }
                guard let frame = held, frame.presentationTimeStamp < range.end else { continue }
                let shownUntil = next?.presentationTimeStamp
                    ?? frame.presentationTimeStamp + (frame.duration.isNumeric ? frame.duration : source.frameDuration)
                guard shownUntil > range.start else { continue }
                var f = frame
                f.presentationTimeStamp = span.targetTime(max(frame.presentationTimeStamp, range.start)).convertScale(timescale)
                f.decodeTimeStamp = f.presentationTimeStamp
                return f
            }
            if reader.status == .failed { throw reader.error ?? MediaError(.io, "cannot decode track \(span.track?.trackID ?? 0)") }
            return nil
        }
    }
}
