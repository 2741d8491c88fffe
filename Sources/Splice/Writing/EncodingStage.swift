import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// The encoder of an input with output settings: decoded samples in (pictures converted to the
/// encoder's format and size, audio converted and cut into the encoder's frame size), encoded
/// samples out, with a sample entry made from the encoder's extradata and packets in ISO form.
/// Confined (its input's stage lock, or the smart cut that made it): it runs outside the
/// writer's lock, so that inputs encode at the same time.
final class EncodingStage: SampleStage {
    private let settings: EncodingSettings
    /// "track 2", for messages.
    private let track: String
    private var encoder: Encoder?
    private var pictures: PictureConverter?
    private var audio: AudioConverter?
    private var entry: (format: FormatDescription, conversion: PacketConversion)?
    /// Audio: the encoder frame being filled, how far, and the time of the next one.
    private var partial: (frame: Frame, filled: Int)?
    private var audioClock: Int64 = 0
    private var audioStarted = false
    /// Video: the duration of the pictures (an encoder's packets may have none).
    private var frameDuration: Int64 = 0
    /// What was corrected or not taken (sizes rounded to even, options the encoder ignored).
    var warnings: [String] { notes }
    private var notes: [String] = []
    /// The previous picture's time, for a duration where pictures come without one.
    private var lastPicture: Int64?

    init(settings: EncodingSettings, label: String) {
        self.settings = settings
        self.track = label
    }

    /// The encoded samples `sample` completes.
    func process(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer] {
        guard sample.isDecoded else {
            throw MediaError(.invalidData, "\(track): an input with output settings takes decoded samples "
                             + "(from a reader output with output settings, or a pixel-buffer adaptor)")
        }
        if encoder == nil { try open(for: sample) }
        guard let encoder else { return [] }
        if let picture = sample.imageBuffer {
            guard let pictures else { throw MediaError(.invalidData, "\(track): a picture for an audio encoder") }
            let source = try (picture.storage as? Frame) ?? Frame.copying(picture)
            let frame = try pictures.convert(source)
            frame.presentationTimestamp = sample.presentationTimeStamp.convertScale(encoder.configuration.timescale).value
            if frameDuration == 0 {
                if sample.duration.isNumeric, sample.duration > .zero {
                    frameDuration = sample.duration.convertScale(encoder.configuration.timescale).value
                } else if let last = lastPicture, frame.presentationTimestamp > last {
                    frameDuration = frame.presentationTimestamp - last    // pictures appended without durations
                }
            }
            lastPicture = frame.presentationTimestamp
            return try packets(encoder.encode(frame))
        }
        guard let pcm = sample.pcmBuffer, let audio else { throw MediaError(.invalidData, "\(track): PCM for a video encoder") }
        if !audioStarted {
            audioStarted = true
            audioClock = sample.presentationTimeStamp.convertScale(encoder.configuration.timescale).value
        }
        let source = try (pcm.storage as? Frame) ?? Frame.copying(pcm)
        guard let converted = try audio.convert(source).pcm else { return [] }
        return try feed(converted, into: encoder)
    }

    /// What the encoder still holds, at the input's end.
    func finish(timescale: Int32) throws -> [SampleBuffer] {
        guard let encoder else { return [] }
        var out: [SampleBuffer] = []
        if let audio, let rest = try audio.flush()?.pcm { out += try feed(rest, into: encoder) }
        if let (frame, filled) = partial, filled > 0 {
            frame.setAudio(frameCount: filled, presentationTime: audioClock)
            audioClock += Int64(widening: filled)
            out += try packets(encoder.encode(frame))
            partial = nil
        }
        out += try packets(encoder.encode(nil))
        return out
    }

    /// Cuts converted audio into encoder frames of its frame size.
    private func feed(_ pcm: PCMBuffer, into encoder: Encoder) throws -> [SampleBuffer] {
        let size = encoder.frameSize > 0 ? encoder.frameSize : pcm.frameCount
        var out: [SampleBuffer] = []
        var offset = 0
        while offset < pcm.frameCount {
            let target = try partial ?? (encoder.makeAudioFrame(frameCount: max(size, 1)), 0)
            let n = min(size - target.filled, pcm.frameCount - offset)
            target.frame.fill(from: pcm, from: offset, count: n, at: target.filled)
            offset += n
            if target.filled + n == size {
                target.frame.setAudio(frameCount: size, presentationTime: audioClock)
                audioClock += Int64(widening: size)
                out += try packets(encoder.encode(target.frame))
                partial = nil
            } else {
                partial = (target.frame, target.filled + n)
            }
        }
        return out
    }

    /// The rate audio is encoded at: Opus's 48 kHz, the settings', or the source's — AAC above
    /// 48 kHz (bits spent on what no one hears, not played everywhere) at 48 kHz.
    private func encodedRate(_ a: AudioEncodingSettings, source: Int) -> Int {
        if let rate = CodecFacts.of(a.codec.rawValue)?.sampleRate { return rate }
        if let rate = a.sampleRate { return rate }
        guard a.codec == .aac, source > 48000 else { return source }
        notes.append("\(track): \(source) Hz audio is encoded as AAC at 48000 Hz")
        return 48000
    }

    private func open(for sample: SampleBuffer) throws {
        switch settings {
        case .video(let v):
            guard let picture = sample.imageBuffer else { throw MediaError(.invalidData, "\(track): video settings need pictures") }
            var width = v.width ?? picture.width, height = v.height ?? picture.height
            if v.pixelFormat.isSubsampled420, width % 2 != 0 || height % 2 != 0 {
                notes.append("\(track): \(width)x\(height) rounded to \(width + width % 2)x\(height + height % 2) for \(v.pixelFormat)")
                width += width % 2
                height += height % 2
            }
            var c = Encoder.Configuration(encoderName: v.codec.encoderName, mediaType: .video, timescale: sample.presentationTimeStamp.timescale)
            c.width = width
            c.height = height
            c.pixelFormat = v.pixelFormat
            c.color = v.color ?? picture.color
            c.sampleAspectRatio = picture.sampleAspectRatio
            c.masteringDisplay = v.masteringDisplay ?? picture.masteringDisplay
            c.contentLightLevel = v.contentLightLevel ?? picture.contentLightLevel
            c.keyFrameInterval = v.keyFrameInterval ?? 0
            if let fps = v.frameRate, fps > 0 {
                c.frameRate = ((fps * 1001).rounded(saturating: Int32.self) ?? 30_000, 1001)
            } else if sample.duration.isNumeric, sample.duration.value > 0 {
                c.frameRate = (sample.duration.timescale, Int32(clamping: sample.duration.value))
            } else {
                c.frameRate = (30, 1)
            }
            switch v.quality {
            case .crf(let q): c.options.append(("crf", String(q)))
            case .bitRate(let b): c.bitRate = b
            }
            if let p = v.preset { c.options.append(("preset", p)) }
            if let t = v.tune { c.options.append(("tune", t)) }
            if let p = v.profile { c.options.append(("profile", p)) }
            c.options += v.options.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            encoder = try Encoder(c)
            pictures = try PictureConverter(pixelFormat: v.pixelFormat, size: (width, height))
        case .audio(let a):
            guard let pcm = sample.pcmBuffer else { throw MediaError(.invalidData, "\(track): audio settings need PCM") }
            var rate = encodedRate(a, source: pcm.format.sampleRate)
            if let rates = Encoder.supportedSampleRates(encoderName: a.codec.encoderName), !rates.contains(rate),
               let nearest = rates.min(by: { abs($0 - rate) < abs($1 - rate) }) {
                notes.append("\(track): \(a.codec.encoderName) does not take \(rate) Hz; the audio is resampled to \(nearest) Hz")
                rate = nearest
            }
            let channels = a.channelCount ?? pcm.format.channelCount
            let (format, planar) = a.codec.sampleFormat
            var c = Encoder.Configuration(encoderName: a.codec.encoderName, mediaType: .audio, timescale: Int32(clamping: rate))
            c.sampleRate = rate
            c.channelCount = channels
            c.sampleFormat = format
            c.isPlanar = planar
            c.bitRate = a.bitRate ?? 0
            encoder = try Encoder(c)
            audio = try AudioConverter(output: PCMBuffer.Format(sampleFormat: format, isPlanar: planar, sampleRate: rate, channelCount: channels))
        }
        if let unused = encoder?.unusedOptions, !unused.isEmpty {
            notes.append("\(track): \(encoder!.configuration.encoderName) did not take \(unused.joined(separator: ", "))")
        }
    }

    /// Encoded packets as samples of the encoder's ISO sample entry.
    private func packets(_ encoded: [Encoder.EncodedPacket]) throws -> [SampleBuffer] {
        guard let encoder else { return [] }
        let scale = encoder.configuration.timescale
        // A packet without bytes only carries new extradata (FLAC's final STREAMINFO): not a sample.
        return try encoded.filter { !$0.data.isEmpty }.map { p in
            let bytes = [UInt8](p.data)
            if entry == nil {
                let parameters = encoder.parameters
                let made = try CodecMapping.formatDescription(for: parameters, firstPacket: bytes)
                entry = (made.format, made.conversion)
            }
            let (format, conversion) = entry!
            return SampleBuffer(data: Data(conversion.apply(bytes)),
                                decodeTimeStamp: MediaTime(value: p.decodeTime, timescale: scale),
                                presentationTimeStamp: MediaTime(value: p.presentationTime, timescale: scale),
                                duration: MediaTime(value: p.duration > 0 ? p.duration : frameDuration, timescale: scale), isSync: p.isKeyFrame,
                                formatDescription: format)
        }
    }
}
