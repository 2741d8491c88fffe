"""Each function of the package on generated media, its output checked with ffprobe/ffmpeg."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from conftest import SRT, frame_md5s, probe, rgb, rms_db, ssim, streamhash, streams

import splice


def test_the_library_is_the_one_installed_and_needs_no_toolchain():
    expected = os.environ.get("SPLICE_TEST_LIBRARY")
    if expected:
        assert splice._native.found_by == expected, splice._native.path
    if expected == "package":
        assert Path(splice._native.path).parent == Path(splice.__file__).parent
    maps = Path("/proc/self/maps").read_text()
    assert "libsplice.so" in maps
    assert "/opt/swift" not in maps and "libswiftCore" not in maps


def test_version():
    assert splice.version() == splice.__version__
    assert splice.version().count(".") == 2


def test_inspect(media):
    info = splice.inspect(media / "movie.mp4")
    assert [t["mediaType"] for t in info["tracks"]] == ["video", "audio", "subtitle"], info
    assert [t["language"] for t in info["tracks"]] == ["und", "eng", "eng"]
    assert (info["tracks"][0]["width"], info["tracks"][0]["sampleCount"]) == (320, 100)
    assert info["groups"] == [{"alternateGroup": 1, "defaultTrack": 2, "tracks": [2]},
                              {"alternateGroup": 3, "defaultTrack": 3, "tracks": [3]}]
    assert abs(info["duration"] - 4.0) < 0.1


def test_remux_loses_nothing_and_reports_progress(media, tmp_path):
    seen = []
    splice.remux(media / "movie.mp4", tmp_path / "copy.mp4", True, seen.append, verify=True)
    assert streamhash(tmp_path / "copy.mp4") == streamhash(media / "movie.mp4")
    assert seen and seen == sorted(seen) and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    boxes = _top_level_boxes(tmp_path / "copy.mp4")
    assert boxes.index("moov") < boxes.index("mdat"), boxes
    original, copy = splice.inspect(media / "movie.mp4"), splice.inspect(tmp_path / "copy.mp4")
    structure = ["mediaType", "alternateGroup", "associations", "enabled", "language", "extendedLanguage", "edits"]
    assert original["groups"] == copy["groups"]
    assert [[t[k] for k in structure] for t in original["tracks"]] == [[t[k] for k in structure] for t in copy["tracks"]]


def test_remux_into_matroska_and_track_selection(media, tmp_path):
    splice.remux(str(media / "movie.mp4"), str(tmp_path / "copy.mkv"))
    assert [s["codec_type"] for s in streams(tmp_path / "copy.mkv")] == ["video", "audio", "subtitle"]
    splice.remux(media / "movie.mp4", tmp_path / "video.mp4", tracks=["video"])
    assert [s["codec_type"] for s in streams(tmp_path / "video.mp4")] == ["video"]
    splice.remux(os.fsencode(media / "movie.mp4"), tmp_path / "nosubs.mp4", exclude_tracks=[3])
    assert [s["codec_type"] for s in streams(tmp_path / "nosubs.mp4")] == ["video", "audio"]
    assert streamhash(tmp_path / "nosubs.mp4") == streamhash(media / "movie.mp4")[:2]


def test_add_and_extract_subtitles(media, tmp_path):
    splice.add_subtitles(media / "movie.mp4", [media / "es.srt"], tmp_path / "subs.mp4", "spa", name="Español")
    subs = [s for s in streams(tmp_path / "subs.mp4") if s["codec_type"] == "subtitle"]
    assert [s["tags"]["language"] for s in subs] == ["eng", "spa"]
    assert streamhash(tmp_path / "subs.mp4")[:3] == streamhash(media / "movie.mp4")
    splice.extract_subtitles(tmp_path / "subs.mp4", tmp_path / "out.srt", track=4)
    assert (tmp_path / "out.srt").read_text().strip() == SRT.strip()


def test_export_with_a_preset_and_overrides(media, tmp_path):
    seen = []
    splice.export(media / "movie.mp4", tmp_path / "low.mp4", "lowQuality", progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0
    s = streams(tmp_path / "low.mp4")
    assert [(x["codec_type"], x["codec_name"]) for x in s] == [("video", "h264"), ("audio", "aac"), ("subtitle", "mov_text")]
    assert (s[0]["width"], s[0]["height"]) == (320, 240)
    assert s[2]["tags"]["language"] == "eng"
    assert ssim(tmp_path / "low.mp4", media / "movie.mp4") > 0.9
    splice.export(media / "movie.mp4", tmp_path / "part.mkv", range=(1, "00:03"), crf=30, audio_codec="opus",
                  exclude_tracks="subtitle")
    info = probe(tmp_path / "part.mkv")
    assert abs(float(info["format"]["duration"]) - 2.0) < 0.1
    assert [x["codec_name"] for x in info["streams"]][:2] == ["h264", "opus"]


def test_trim_is_frame_exact(media, tmp_path):
    source = frame_md5s(media / "movie.mp4")
    splice.trim(media / "movie.mp4", tmp_path / "exact.mp4", 1.32, 2.72, cut="exact")
    assert frame_md5s(tmp_path / "exact.mp4") == source[33:68]
    # Smart: the partial GOP (1.32 s to the sync sample at 2 s) re-encoded, the rest copied.
    splice.trim(media / "movie.mp4", tmp_path / "smart.mp4", 1.32, 3)
    smart = frame_md5s(tmp_path / "smart.mp4")
    assert len(smart) == 42
    assert smart[50 - 33:] == source[50:75]
    assert _psnr(rgb(tmp_path / "smart.mp4", 0), rgb(media / "movie.mp4", 33)) > 30
    # To the end: frames 75 to 100, copied.
    splice.trim(media / "movie.mp4", tmp_path / "tail.mp4", 3, None)
    assert frame_md5s(tmp_path / "tail.mp4") == source[75:]


def test_concat_of_paths_and_ranges(media, tmp_path):
    splice.concat([media / "movie.mp4", (media / "movie.mp4", 1, 2), (media / "movie.mp4", 3, None)],
                  tmp_path / "joined.mp4")
    source = frame_md5s(media / "movie.mp4")
    joined = frame_md5s(tmp_path / "joined.mp4")
    assert joined == source + source[25:50] + source[75:100]
    info = probe(tmp_path / "joined.mp4")
    assert abs(float(info["format"]["duration"]) - 6.0) < 0.1


def test_merge_puts_the_recording_under_the_video(media, tmp_path):
    splice.merge(media / "silent.mp4", media / "voice.wav", tmp_path / "merged.mp4")
    s = streams(tmp_path / "merged.mp4")
    assert [(x["codec_type"], x["codec_name"]) for x in s] == [("video", "h264"), ("audio", "aac")]
    assert streamhash(tmp_path / "merged.mp4")[0] == streamhash(media / "silent.mp4")[0]
    assert abs(rms_db(tmp_path / "merged.mp4", 660) - rms_db(media / "voice.wav", 660)) < 0.5
    assert abs(float(s[1]["duration"]) - 4.0) < 0.1


def test_mix_sets_the_levels(media, tmp_path):
    splice.mix(media / "movie.mp4", media / "music.m4a", tmp_path / "mixed.mp4", music_volume=0.25)
    mixed = tmp_path / "mixed.mp4"
    # The music at 0.25 (−12 dB), the original at 0.75 (−2.5 dB).
    assert abs(rms_db(mixed, 1000) - rms_db(media / "music.m4a", 1000) + 12.04) < 0.5
    assert abs(rms_db(mixed, 440) - rms_db(media / "movie.mp4", 440) + 2.50) < 0.5
    assert streamhash(mixed)[0] == streamhash(media / "movie.mp4")[0]
    assert streams(mixed)[2]["codec_type"] == "subtitle"


def test_images(media, tmp_path):
    splice.images([media / "red.png", media / "green.png", media / "blue.png"], tmp_path / "slides.mp4",
                  fps=10, seconds_per_image=1, size=(160, 120))
    v = streams(tmp_path / "slides.mp4")[0]
    assert (v["width"], v["height"], v["nb_frames"]) == (160, 120, "30")
    for frame, channel in [(5, 0), (15, 1), (25, 2)]:
        pixels = rgb(tmp_path / "slides.mp4", frame)
        means = [sum(pixels[c::3]) / (len(pixels) / 3) for c in range(3)]
        assert means[channel] > 200 and all(m < 60 for i, m in enumerate(means) if i != channel), means


def test_thumbnail(media, tmp_path):
    splice.thumbnail(media / "movie.mp4", [1.0, 2.4], tmp_path / "thumb-%d.png")
    for index, frame in [(1, 25), (2, 60)]:
        image = rgb(tmp_path / f"thumb-{index}.png")
        shown = _psnr(image, rgb(media / "movie.mp4", frame))
        # The frame shown at that time, not its neighbours (testsrc2 moves every frame).
        assert shown > 25
        assert all(_psnr(image, rgb(media / "movie.mp4", frame + d)) < shown - 6 for d in (-1, 1))
    splice.thumbnail(media / "movie.mp4", 0.5, tmp_path / "small.jpg", size="80x80")
    s = streams(tmp_path / "small.jpg")[0]
    assert (s["width"], s["height"]) == (80, 60)


def _psnr(a: bytes, b: bytes) -> float:
    import math
    assert len(a) == len(b) and a
    mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def _top_level_boxes(path: Path) -> list[str]:
    data, names, offset = path.read_bytes(), [], 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
        names.append(kind.decode("latin-1"))
        offset += size if size else len(data)
    return names
