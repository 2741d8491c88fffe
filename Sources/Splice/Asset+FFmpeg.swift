import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

extension Asset {
    /// Codecs whose ISO sample entry is read from the first packet when `extradata` does not say.
    private static func needsFirstPacket(_ s: StreamInfo) -> Bool {
        switch s.codecName {
        case "ac3", "eac3", "vp9": true
        case "aac", "h264", "hevc", "av1": s.extradata == nil
        default: false
        }
    }

    static func tracks(of input: InputFormatContext) -> (tracks: [AssetTrack], duration: MediaTime, start: MediaTime) {
        let streams = input.streams
        let first = firstPackets(of: input, for: streams.filter(needsFirstPacket).map(\.index))
        var tracks: [AssetTrack] = []
        var end = MediaTime.zero
        var start: MediaTime?
        for s in streams {
            if let t = s.startTime, s.timeBase.den > 0, s.mediaType != .data {
                let time = MediaTime(value: t * Int64(s.timeBase.num), timescale: s.timeBase.den)
                start = min(start ?? time, time)
            }
            let duration: MediaTime
            if let d = s.duration, s.timeBase.den > 0 {
                duration = MediaTime(value: d * Int64(s.timeBase.num), timescale: s.timeBase.den)
            } else if let total = input.durationSeconds {
                duration = MediaTime(seconds: total, preferredTimescale: 1_000_000)
            } else {
                duration = .zero
            }
            let timeRange = TimeRange(start: .zero, duration: duration)
            end = max(end, timeRange.end)
            var format = FormatDescription(
                mediaType: s.mediaType, codec: s.codecTag ?? FourCC(String(s.codecName.prefix(4))),
                codecName: s.codecName,
                dimensions: s.width.flatMap { w in s.height.map { Dimensions(width: w, height: $0) } },
                sampleRate: s.sampleRate.map(Double.init), channelCount: s.channelCount,
                codecConfiguration: s.extradata)
            var conversion = PacketConversion.none
            var isoProblem: String?
            if SubtitlePacketFormat(codecName: s.codecName) == nil {
                do {
                    let made = try CodecMapping.sampleEntry(for: s.codecParameters, firstPacket: first[s.index])
                    format.sampleEntry = Data(made.entry)
                    conversion = made.conversion
                } catch let e as MediaError {
                    isoProblem = e.message
                } catch {
                    isoProblem = "\(error)"
                }
            }
            tracks.append(AssetTrack(
                trackID: s.index + 1, mediaType: s.mediaType, formatDescriptions: [format],
                languageCode: s.language.map { l in
                    let code = Asset.iso639(l)
                    return AssetWriter.terminologyLanguages[code] ?? code
                } ?? "und", extendedLanguageTag: nil,
                isEnabled: true, alternateGroup: 0, name: s.title, timeRange: timeRange,
                naturalTimeScale: s.timeBase.den > 0 ? s.timeBase.den : 1_000_000, segments: [], sampleCount: s.frameCount,
                isDefault: s.isDefault, isForced: s.isForced, associations: [:],
                isoTrack: nil, streamIndex: s.index, stream: AssetTrack.StreamDetails(
                    timeBase: s.timeBase, conversion: conversion, isoProblem: isoProblem, initialPadding: s.initialPadding ?? 0,
                    reordersFrames: s.videoDelay > 0,
                    isHearingImpaired: s.isHearingImpaired, isVisualImpaired: s.isVisualImpaired)))
        }
        let duration = input.durationSeconds.map { MediaTime(seconds: $0, preferredTimescale: 1_000_000) } ?? end
        // Negative timestamps are encoder delay (Opus and AAC priming in Matroska), to be skipped
        // on a timeline that starts at 0; positive ones (MPEG-TS) are where the timeline starts.
        return (tracks, duration, max(.zero, start ?? .zero))
    }

    /// The first packet of each of `streams`, reading at most 64 MB or 10,000 packets.
    private static func firstPackets(of input: InputFormatContext, for streams: [Int]) -> [Int: [UInt8]] {
        guard !streams.isEmpty else { return [:] }
        var found: [Int: [UInt8]] = [:]
        let packet = Packet()
        var bytes = 0
        for _ in 0..<10_000 {
            guard found.count < streams.count, bytes < 64 << 20, (try? input.read(into: packet)) == true else { break }
            bytes += packet.size
            if streams.contains(packet.streamIndex), found[packet.streamIndex] == nil {
                found[packet.streamIndex] = [UInt8](packet.data)
            }
        }
        return found
    }

    /// Container languages are ISO 639-2 already (Matroska allows B forms and BCP 47 too; keep the primary subtag).
    static func iso639(_ language: String) -> String {
        let primary = language.split(separator: "-").first.map(String.init) ?? language
        return primary.isEmpty ? "und" : primary.lowercased()
    }
}

extension StreamInfo {
    var codecParameters: CodecParameters {
        var p = CodecParameters(mediaType: mediaType, codecName: codecName)
        p.extradata = extradata.map { [UInt8]($0) } ?? []
        p.width = width ?? 0
        p.height = height ?? 0
        p.sampleRate = sampleRate ?? 0
        p.channelCount = channelCount ?? 0
        p.bitRate = bitRate ?? 0
        p.initialPadding = initialPadding ?? 0
        p.colorPrimaries = colorPrimaries
        p.transferCharacteristics = transferCharacteristics
        p.matrixCoefficients = matrixCoefficients
        p.isFullRange = isFullRange
        return p
    }
}
