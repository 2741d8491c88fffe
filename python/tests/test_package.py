"""splice.package: the manifests parse with PyPI's m3u8 and mpegdash, and each attribute rule
of HLS (RFC 8216) and DASH (ISO/IEC 23009-1) holds against the media: bit rates measured from
the segments, codec strings read from the init segments by a box reader of this test's own."""

from __future__ import annotations

import math
import struct
import subprocess
from pathlib import Path

import m3u8
import pytest
from mpegdash.parser import MPEGDASHParser

import splice

from conftest import ff


def boxes(data: bytes, start: int = 0, end: int | None = None):
    """(type, payload start, payload end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        if size < header or start + size > end:
            return
        yield kind.decode("latin-1"), start + header, start + size
        start += size


def find(data: bytes, path: list[str], start: int = 0, end: int | None = None):
    """The payload range of the first box at ``path`` (a sample entry's children after its fields)."""
    skip = {"stsd": 8, "avc1": 78, "encv": 78, "hvc1": 78, "mp4a": 28, "ac-3": 28, "enca": 28, "wvtt": 8, "esds": 0}
    for kind, s, e in boxes(data, start, end):
        if kind == path[0]:
            if len(path) == 1:
                return s, e
            return find(data, path[1:], s + skip.get(kind, 0), e)
    return None


def codec(init: bytes) -> str:
    """RFC 6381 from the init segment's sample entry."""
    stsd = find(init, ["moov", "trak", "mdia", "minf", "stbl", "stsd"])
    assert stsd
    entry = next(boxes(init, stsd[0] + 8, stsd[1]))
    kind = entry[0]
    if kind == "avc1":
        s, _ = find(init, ["avcC"], entry[1] + 78, entry[2])
        return "avc1." + init[s + 1:s + 4].hex()
    if kind == "mp4a":
        s, e = find(init, ["esds"], entry[1] + 28, entry[2])
        esds = init[s:e]

        def descriptor(at: int) -> tuple[int, int]:
            """(tag, where its body starts) of the descriptor at ``at`` (ISO/IEC 14496-1 §8.3.3 sizes)."""
            tag, at = esds[at], at + 1
            for _ in range(4):
                at += 1
                if not esds[at - 1] & 0x80:
                    break
            return tag, at

        tag, at = descriptor(4)                               # ES_Descriptor, after version and flags
        assert tag == 3
        flags, at = esds[at + 2], at + 3
        at += (2 if flags & 0x80 else 0) + (2 if flags & 0x20 else 0)
        if flags & 0x40:
            at += 1 + esds[at]
        tag, at = descriptor(at)                              # DecoderConfigDescriptor
        assert tag == 4
        oti = esds[at]
        tag, at = descriptor(at + 13)                         # DecoderSpecificInfo: AudioSpecificConfig
        assert tag == 5
        return f"mp4a.{oti:02x}.{esds[at] >> 3}"
    return kind


def dolby_mask(init: bytes) -> str:
    """DASH's Dolby channel configuration of an AC-3 entry (ETSI TS 102 366 acmod, lfeon)."""
    stsd = find(init, ["moov", "trak", "mdia", "minf", "stbl", "stsd"])
    entry = next(boxes(init, stsd[0] + 8, stsd[1]))
    s, _ = find(init, ["dac3"], entry[1] + 28, entry[2])
    bits = int.from_bytes(init[s:s + 3], "big")
    acmod, lfe = (bits >> 11) & 7, (bits >> 10) & 1
    speakers = {0: ["L", "R"], 1: ["C"], 2: ["L", "R"], 3: ["L", "C", "R"], 4: ["L", "R", "Cs"], 5: ["L", "C", "R", "Cs"],
                6: ["L", "R", "Ls", "Rs"], 7: ["L", "C", "R", "Ls", "Rs"]}[acmod]
    bit = {"L": 15, "C": 14, "R": 13, "Ls": 12, "Rs": 11, "Cs": 8}
    mask = sum(1 << bit[s] for s in speakers) | lfe
    return f"{mask:04X}"


def probe_stream(path: Path) -> dict:
    import json
    out = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", str(path)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["streams"][0]


@pytest.fixture(scope="module")
def movie(tmp_path_factory) -> Path:
    """6 s of 320x240 (a sync sample each second), English AAC stereo (default), French AC-3
    5.1, English subtitles (default) and forced English subtitles (added by splice: the
    `forc` target of the full ones)."""
    d = tmp_path_factory.mktemp("package")
    (d / "full.srt").write_text("1\n00:00:00,500 --> 00:00:02,000\nHello\n\n2\n00:00:03,000 --> 00:00:05,500\nAgain\n")
    (d / "forced.srt").write_text("1\n00:00:01,000 --> 00:00:02,500\nForced\n")
    ff("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:duration=6",
       "-f", "lavfi", "-i", "sine=f=880:sample_rate=48000:duration=6", "-i", str(d / "full.srt"),
       "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
       "-pix_fmt", "yuv420p", "-c:a:0", "aac", "-ac:a:0", "2", "-c:a:1", "ac3", "-ac:a:1", "6", "-c:s", "mov_text",
       "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=eng",
       "-disposition:a:0", "default", "-disposition:a:1", "0", "-disposition:s:0", "default", str(d / "plain.mp4"))
    splice.add_subtitles(d / "plain.mp4", d / "forced.srt", d / "movie.mp4", "en", forced=True)
    return d / "movie.mp4"


@pytest.mark.parametrize("single_file", [False, True])
def test_manifest_rules(movie: Path, tmp_path: Path, single_file: bool) -> None:
    out = tmp_path / "stream"
    seen: list[float] = []
    splice.package(movie, out, segment=2, single_file=single_file, progress=seen.append)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)

    def segments(uri: str) -> list[tuple[float, bytes]]:
        """(EXTINF, bytes) of each segment of a media playlist."""
        playlist = m3u8.load(str(out / uri))
        result = []
        for s in playlist.segments:
            data = (out / s.uri).read_bytes()
            if s.byterange:
                length, offset = (int(x) for x in s.byterange.split("@"))
                data = data[offset:offset + length]
            result.append((s.duration, data))
        return result

    def init(uri: str) -> bytes:
        playlist = m3u8.load(str(out / uri))
        m = playlist.segment_map[0]
        data = (out / m.uri).read_bytes()
        if m.byterange:
            length, offset = (int(x) for x in m.byterange.split("@"))
            data = data[offset:offset + length]
        return data

    def peak(uri: str) -> float:
        return max(len(b) * 8 / d for d, b in segments(uri))

    def average(uri: str) -> float:
        s = segments(uri)
        return sum(len(b) for _, b in s) * 8 / sum(d for d, _ in s)

    master = m3u8.load(str(out / "master.m3u8"))
    assert master.is_variant and master.is_independent_segments
    audio = [m for m in master.media if m.type == "AUDIO"]
    subtitles = [m for m in master.media if m.type == "SUBTITLES"]
    assert len({m.group_id for m in audio}) == 1 and len(audio) == 2   # one alternate group
    assert [(m.language, m.default, m.autoselect) for m in audio] == [("en", "YES", "YES"), ("fr", "NO", "YES")]
    for group in (audio, subtitles):
        assert len({m.name for m in group}) == len(group)   # NAME unique in its group
        assert all(m.autoselect == "YES" for m in group if m.default == "YES")
    assert sorted((m.forced, m.default) for m in subtitles) == [("NO", "YES"), ("YES", "NO")]
    for m in audio:
        channels = probe_stream(_joined(out, init(m.uri), segments(m.uri)[:1], tmp_path))["channels"]
        assert m.channels == str(channels)

    (variant,) = master.playlists
    info = variant.stream_info
    video_uri = variant.uri
    needed = peak(video_uri) + max(peak(m.uri) for m in audio) + max(_vtt_peak(out, m.uri) for m in subtitles)
    assert needed <= info.bandwidth <= needed * 1.001 + 1
    mean = average(video_uri) + max(average(m.uri) for m in audio) + max(_vtt_average(out, m.uri) for m in subtitles)
    assert abs(info.average_bandwidth - mean) <= mean * 0.001 + 1
    assert info.codecs.split(",") == [codec(init(video_uri))] + [codec(init(m.uri)) for m in audio]
    first = probe_stream(_joined(out, init(video_uri), segments(video_uri)[:1], tmp_path))
    assert info.resolution == (first["width"], first["height"])
    num, den = (int(x) for x in first["r_frame_rate"].split("/"))
    assert math.isclose(info.frame_rate, num / den, abs_tol=0.0005)
    assert variant.media and info.audio == audio[0].group_id and info.subtitles == subtitles[0].group_id

    for uri in [video_uri] + [m.uri for m in audio]:
        playlist = m3u8.load(str(out / uri))
        assert playlist.playlist_type == "vod" and playlist.is_endlist and playlist.segment_map
        assert playlist.version >= 6                          # EXT-X-MAP outside I-frame playlists
        assert all(round(s.duration) <= playlist.target_duration for s in playlist.segments)
        assert max(round(s.duration) for s in playlist.segments) == playlist.target_duration
        assert abs(sum(s.duration for s in playlist.segments) - 6.0) < 0.05
    for m in subtitles:
        playlist = m3u8.load(str(out / m.uri))
        assert playlist.version >= 3 and all(round(s.duration) <= playlist.target_duration for s in playlist.segments)
        for s in playlist.segments:
            assert (out / s.uri).read_text().startswith("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n")

    mpd = MPEGDASHParser.parse(str(out / "manifest.mpd"))
    profile = "isoff-on-demand" if single_file else "isoff-live"
    assert profile in mpd.profiles and mpd.type == "static"
    assert mpd.media_presentation_duration.startswith("PT6.0")
    (period,) = mpd.periods
    sets = period.adaptation_sets
    kinds = [a.content_type for a in sets]
    assert kinds == ["video", "audio", "audio", "text", "text"]
    assert all(a.segment_alignment for a in sets)
    video, en, fr = sets[0], sets[1], sets[2]
    assert (en.lang, fr.lang) == ("en", "fr") and en.group == fr.group
    assert [r.value for r in en.roles] == ["main"] and [r.value for r in fr.roles] == ["alternate"]
    assert sorted(r.value for a in sets[3:] for r in a.roles) == ["forced-subtitle", "main", "subtitle"]
    assert all(a.representations[0].codecs == "wvtt" and a.mime_type == "application/mp4" for a in sets[3:])
    hls_by_key = {"video": video_uri, "en": audio[0].uri, "fr": audio[1].uri}
    for name, a in [("video", video), ("en", en), ("fr", fr)]:
        (r,) = a.representations
        uri = hls_by_key[name]
        assert r.codecs == codec(init(uri))
        assert r.bandwidth >= peak(uri) - 1   # the same segments: the peak segment bit rate
        if single_file:
            base = r.segment_bases[0]
            data = (out / r.base_urls[0].base_url_value).read_bytes()
            start, end = (int(x) for x in base.index_range.split("-"))
            assert data[start + 4:start + 8] == b"sidx" and struct.unpack(">I", data[start:start + 4])[0] == end - start + 1
        else:
            template = r.segment_templates[0]
            timeline = template.segment_timelines[0].Ss
            count = sum(1 + (s.r or 0) for s in timeline)
            assert count == len(segments(uri))
            assert template.initialization == uri.replace(".m3u8", "/init.mp4")
    (channels,) = en.representations[0].audio_channel_configurations
    assert channels.scheme_id_uri == "urn:mpeg:dash:23003:3:audio_channel_configuration:2011" and channels.value == "2"
    (dolby,) = fr.representations[0].audio_channel_configurations
    assert dolby.scheme_id_uri == "tag:dolby.com,2014:dash:audio_channel_configuration:2011"
    assert dolby.value == dolby_mask(init(audio[1].uri)) == "F801"
    assert video.representations[0].width == 320 and video.representations[0].frame_rate == "25"


def _joined(out: Path, init: bytes, segments: list[tuple[float, bytes]], tmp: Path) -> Path:
    path = tmp / "joined.mp4"
    path.write_bytes(init + b"".join(b for _, b in segments))
    return path


def _vtt_segments(out: Path, uri: str) -> list[tuple[float, int]]:
    return [(s.duration, len((out / s.uri).read_bytes())) for s in m3u8.load(str(out / uri)).segments]


def _vtt_peak(out: Path, uri: str) -> float:
    return max(n * 8 / d for d, n in _vtt_segments(out, uri))


def _vtt_average(out: Path, uri: str) -> float:
    s = _vtt_segments(out, uri)
    return sum(n for _, n in s) * 8 / sum(d for d, _ in s)


def test_package_refuses_and_leaves_nothing(movie: Path, tmp_path: Path) -> None:
    ff("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=6", "-c:v", "libx264", "-g", "30", "-keyint_min", "30",
       "-sc_threshold", "0", str(tmp_path / "odd.mp4"))
    with pytest.raises(splice.SpliceError) as failure:
        splice.package([movie, tmp_path / "odd.mp4"], tmp_path / "stream", segment=2)
    assert failure.value.status == splice.Status.UNSUPPORTED and "odd.mp4" in str(failure.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.mp4"]
