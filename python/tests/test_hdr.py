"""HDR to SDR: an H.264 export of a PQ or HLG movie is tone-mapped. Grey patches at known
luminances go through the export and through this test's own NumPy implementation of the chain
(BT.2100 EOTFs, BT.2020 to BT.709 primaries, the Möbius operator on the largest component,
BT.1886's inverse EOTF, the BT.709 matrix); ffmpeg's zscale + tonemap chain with the same
operator is the smoke check of the whole picture."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import splice

from conftest import ff

W, H = 1920, 1080
NITS = [0.1, 10, 100, 203, 1000]
REFERENCE_WHITE = 203.0
PEAK = 1000 / REFERENCE_WHITE   # the fixtures' MaxCLL (PQ), HLG's nominal peak


def patch(i: int) -> tuple[int, int, int, int]:
    """(x, y, width, height) of patch i in the source picture."""
    return 100 + 360 * i, 800, 200, 200


def pq_signal(nits: float) -> float:
    """SMPTE ST 2084 inverse EOTF."""
    m1, m2, c1, c2, c3 = 0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875
    y = (nits / 10000) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2


def hlg_signal(nits: float) -> float:
    """BT.2100 HLG for a grey of ``nits`` on the 1,000 cd/m² reference display (inverse OOTF, OETF)."""
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    scene = (nits / 1000) ** (1 / 1.2)
    return math.sqrt(3 * scene) if scene <= 1 / 12 else a * math.log(12 * scene - b) + c


def make_fixture(path: Path, transfer: str, ten_bit: bool = True) -> None:
    """testsrc2 taken to BT.2020 PQ or HLG with its white at 203 cd/m² by zscale, grey patches at
    NITS drawn in exact code values; x265 lossless (so the patches stay neutral) with HDR10
    metadata for PQ, or an 8-bit x264 file merely tagged."""
    signal = pq_signal if transfer == "smpte2084" else hlg_signal
    codes = [round(64 + 876 * signal(n)) for n in NITS]
    if not ten_bit:
        codes = [round(c / 4) for c in codes]
    luma, cb, cr = "lum(X,Y)", "cb(X,Y)", "cr(X,Y)"
    neutral = 512 if ten_bit else 128
    for i, code in enumerate(codes):
        x, y, w, h = patch(i)
        luma = f"if(between(X,{x},{x + w - 1})*between(Y,{y},{y + h - 1}),{code},{luma})"
        inside = f"between(X,{x // 2},{(x + w) // 2 - 1})*between(Y,{y // 2},{(y + h) // 2 - 1})"
        cb = f"if({inside},{neutral},{cb})"
        cr = f"if({inside},{neutral},{cr})"
    fmt = "yuv420p10le" if ten_bit else "yuv420p"
    vf = (f"zscale=tin=bt709:pin=bt709:min=bt709:rin=full:t={transfer}:p=bt2020:m=bt2020nc:r=tv:npl=203,"
          f"format={fmt},geq=lum='{luma}':cb='{cb}':cr='{cr}'")
    source = ["-f", "lavfi", "-i", f"testsrc2=size={W}x{H}:rate=24:duration=0.5", "-vf", vf]
    if ten_bit:
        params = f"colorprim=bt2020:transfer={transfer}:colormatrix=bt2020nc:range=limited:lossless=1:log-level=error"
        if transfer == "smpte2084":
            params += ":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"
        ff(*source, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", params, "-pix_fmt", fmt, str(path))
    else:
        ff(*source, "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", "-color_primaries", "bt2020",
           "-color_trc", transfer, "-colorspace", "bt2020nc", "-color_range", "tv", "-pix_fmt", fmt, str(path))


def planes(path: Path, width: int, height: int, ten_bit: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first frame's Y', Cb, Cr planes as decoded by ffmpeg."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-frames:v", "1", "-f", "rawvideo", "-"],
                         check=True, capture_output=True).stdout
    data = np.frombuffer(raw, dtype=np.uint16 if ten_bit else np.uint8).astype(np.float64)
    y = data[:width * height].reshape(height, width)
    c = width * height // 4
    return y, data[width * height:width * height + c].reshape(height // 2, width // 2), data[width * height + c:].reshape(height // 2, width // 2)


def patch_median(plane: np.ndarray, i: int, scale: float) -> float:
    """The median of patch i's middle half in a plane ``scale`` times the source's size."""
    x, y, w, h = (v * scale for v in patch(i))
    return float(np.median(plane[int(y + h / 4):int(y + 3 * h / 4), int(x + w / 4):int(x + 3 * w / 4)]))


def mobius(sig: np.ndarray, j: float, peak: float) -> np.ndarray:
    a = -j * j * (peak - 1) / (j * j - 2 * j + peak)
    b = (j * j - 2 * j * peak + peak) / max(peak - 1, 1e-6)
    return np.where(sig <= j, sig, (b * b + 2 * b * j + j * j) / (b - a) * (sig + a) / (sig + b))


def hable(sig: np.ndarray, peak: float) -> np.ndarray:
    def curve(x):
        a, b, c, d, e, f = 0.15, 0.50, 0.10, 0.20, 0.02, 0.30
        return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f
    return curve(sig) / curve(peak)


def expected_luma(y: float, cb: float, cr: float, transfer: str, operator: str, ten_bit: bool) -> float:
    """The 8-bit BT.709 Y' the chain gives a source pixel of these BT.2020 Y'CbCr code values."""
    scale = 4 if ten_bit else 1
    yn, cbn, crn = (y / scale - 16) / 219, (cb / scale - 128) / 224, (cr / scale - 128) / 224
    r = yn + 1.4746 * crn
    b = yn + 1.8814 * cbn
    g = (yn - 0.2627 * r - 0.0593 * b) / 0.6780
    e = np.clip(np.array([r, g, b]), 0, 1)
    if transfer == "smpte2084":
        m1, m2, c1, c2, c3 = 0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875
        p = e ** (1 / m2)
        light = 10000 * (np.maximum(p - c1, 0) / (c2 - c3 * p)) ** (1 / m1)
    else:
        a, bb, c = 0.17883277, 0.28466892, 0.55991073
        scene = np.where(e <= 0.5, e * e / 3, (np.exp((e - c) / a) + bb) / 12)
        ys = 0.2627 * scene[0] + 0.6780 * scene[1] + 0.0593 * scene[2]
        light = 1000 * ys ** 0.2 * scene
    linear = light / REFERENCE_WHITE
    to709 = np.array([[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]])
    rgb = to709 @ linear
    sig = max(float(rgb.max()), 1e-6)
    mapped = float(mobius(np.array(sig), 0.95, PEAK)) if operator == "mobius" else float(hable(np.array(sig), PEAK))
    rgb = np.clip(rgb * mapped / sig, 0, 1)
    gamma = rgb ** (1 / 2.4)
    return 16 + 219 * float(0.2126 * gamma[0] + 0.7152 * gamma[1] + 0.0722 * gamma[2])


def frame_ssims(path: Path, reference: Path) -> list[float]:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-i", str(reference), "-lavfi", "[0:v][1:v]ssim=stats_file=-",
                          "-f", "null", "-"], check=True, capture_output=True, text=True).stdout
    return [float(v) for v in re.findall(r"All:([\d.]+)", out)]


@pytest.fixture(scope="module")
def hdr(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hdr")
    make_fixture(d / "pq.mp4", "smpte2084")
    make_fixture(d / "hlg.mp4", "arib-std-b67")
    make_fixture(d / "pq8.mp4", "smpte2084", ten_bit=False)
    return d


@pytest.mark.parametrize("name,transfer,ten_bit", [("pq", "smpte2084", True), ("hlg", "arib-std-b67", True),
                                                   ("pq8", "smpte2084", False)])
def test_h264_export_tone_maps_to_sdr(hdr, tmp_path, name, transfer, ten_bit):
    src, out = hdr / f"{name}.mp4", tmp_path / "sdr.mp4"
    splice.export(src, out, "1280x720")
    stream = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_streams", "-show_frames",
                                        "-read_intervals", "%+#1", "-of", "json", str(out)],
                                       check=True, capture_output=True, text=True).stdout)
    s = stream["streams"][0]
    assert (s["codec_name"], s["width"], s["height"], s["pix_fmt"]) == ("h264", 1280, 720, "yuv420p")
    assert (s["color_primaries"], s["color_transfer"], s["color_space"], s["color_range"]) == ("bt709", "bt709", "bt709", "tv")
    side = [d["side_data_type"] for d in s.get("side_data_list", []) + stream["frames"][0].get("side_data_list", [])]
    assert not [t for t in side if "Mastering" in t or "light level" in t], side

    sy, scb, scr = planes(src, W, H, ten_bit)
    oy, _, _ = planes(out, 1280, 720, False)
    got = [patch_median(oy, i, 1280 / W) for i in range(len(NITS))]
    want = [expected_luma(patch_median(sy, i, 1), patch_median(scb, i, 0.5), patch_median(scr, i, 0.5), transfer, "mobius", ten_bit)
            for i in range(len(NITS))]
    assert all(abs(g - w) <= 2 for g, w in zip(got, want)), (got, want)
    assert all(a < b for a, b in zip(got, got[1:])), got
    # reference white within 2 % of SDR white (code 235)
    assert (got[NITS.index(203)] - 16) / 219 >= 0.98, got

    reference = tmp_path / "ffmpeg.mp4"
    ff("-i", str(src), "-vf", f"zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,tonemap=mobius:param=0.95:desat=0:peak={PEAK},"
       "zscale=w=1280:h=720:t=bt709:m=bt709:r=tv,format=yuv420p", "-c:v", "libx264", "-crf", "18", str(reference))
    ssims = frame_ssims(out, reference)
    assert len(ssims) == 12 and min(ssims) >= 0.98, ssims


def test_the_operator_is_chosen_and_hevc_keeps_hdr(hdr, tmp_path):
    src = hdr / "pq.mp4"
    out = tmp_path / "hable.mp4"
    splice.export(src, out, "1280x720", tone_map="hable")
    sy, scb, scr = planes(src, W, H, True)
    oy, _, _ = planes(out, 1280, 720, False)
    got = [patch_median(oy, i, 1280 / W) for i in range(len(NITS))]
    want = [expected_luma(patch_median(sy, i, 1), patch_median(scb, i, 0.5), patch_median(scr, i, 0.5), "smpte2084", "hable", True)
            for i in range(len(NITS))]
    assert all(abs(g - w) <= 2 for g, w in zip(got, want)), (got, want)
    assert got[NITS.index(203)] < 200   # Hable darkens reference white: why it is not the default

    kept = tmp_path / "hevc.mp4"
    splice.export(src, kept, "hevc1920x1080")
    info = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_streams", "-show_frames",
                                      "-read_intervals", "%+#1", "-of", "json", str(kept)],
                                     check=True, capture_output=True, text=True).stdout)
    s = info["streams"][0]
    assert (s["pix_fmt"], s["color_transfer"], s["color_primaries"]) == ("yuv420p10le", "smpte2084", "bt2020")
    frame_side = {d["side_data_type"]: d for d in info["frames"][0].get("side_data_list", [])}
    assert frame_side["Content light level metadata"]["max_content"] == 1000
    assert frame_side["Mastering display metadata"]["max_luminance"] == "10000000/10000"

    with pytest.raises(splice.SpliceError, match="tone-map"):
        splice.export(src, tmp_path / "bad.mp4", "1280x720", tone_map="sepia")


# --- Dolby Vision, HDR10+, MV-HEVC ---------------------------------------------------------------

from hdr_fixtures import (add_dolby_vision, add_hdr10plus_block_additions, add_hdr10plus_to_annexb, add_to_sample_entry,
                          mv_hevc_boxes)
from conftest import streamhash

MASTERING = "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"


def hevc(path: Path, transfer: str, *, fmt: str = "mp4", metadata: bool = True) -> None:
    """1 s of 320x240 10-bit HEVC (no B-frames), BT.2020 and ``transfer`` tagged in the stream
    and the container."""
    params = "log-level=error:bframes=0:colorprim=bt2020:colormatrix=bt2020nc:transfer=" + transfer
    if metadata and transfer == "smpte2084":
        params += ":" + MASTERING
    ff("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx265", "-preset", "ultrafast",
       "-x265-params", params, "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", transfer,
       "-colorspace", "bt2020nc", *(["-tag:v", "hvc1"] if fmt == "mp4" else []), "-f", fmt, str(path))


def dovi_side_data(path: Path) -> dict:
    info = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_streams", "-of", "json", str(path)],
                                     check=True, capture_output=True, text=True).stdout)
    side = [d for d in info["streams"][0].get("side_data_list", []) if d["side_data_type"] == "DOVI configuration record"]
    return side[0] if side else {}


def entry_box(path: Path, kind: bytes) -> bytes:
    """The first ``kind`` box's bytes (header included) in the file."""
    data = path.read_bytes()
    at = data.find(kind)
    assert at >= 4, f"no {kind!r} in {path}"
    size = int.from_bytes(data[at - 4:at], "big")
    return data[at - 4:at - 4 + size]


def decodes_silently(path: Path) -> bool:
    run = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"], capture_output=True, text=True)
    return run.returncode == 0 and run.stderr == ""


@pytest.mark.parametrize("profile,compatibility,transfer", [(8, 1, "smpte2084"), (8, 4, "arib-std-b67"), (5, 0, "smpte2084")])
def test_dolby_vision_survives_mp4_mkv_mp4_and_export_follows_the_rules(tmp_path, caplog, profile, compatibility, transfer):
    base, src = tmp_path / "base.mp4", tmp_path / f"dv{profile}{compatibility}.mp4"
    hevc(base, transfer)
    record = add_dolby_vision(base, src, profile, compatibility)
    conf = dovi_side_data(src)
    assert (conf["dv_profile"], conf["dv_bl_signal_compatibility_id"]) == (profile, compatibility)
    assert decodes_silently(src)

    mkv, back = tmp_path / "dv.mkv", tmp_path / "back.mp4"
    splice.remux(src, mkv)
    conf = dovi_side_data(mkv)
    assert (conf["dv_profile"], conf["dv_bl_signal_compatibility_id"], conf["rpu_present_flag"], conf["bl_present_flag"]) == (profile, compatibility, 1, 1)
    splice.remux(mkv, back)
    assert entry_box(back, record[4:8]) == record   # byte for byte
    assert streamhash(src) == streamhash(mkv) == streamhash(back)
    expected = {(8, 1): "Dolby Vision 8.1 (HDR10-compatible); base layer HDR10", (8, 4): "Dolby Vision 8.4 (HLG-compatible); base layer HLG",
                (5, 0): "Dolby Vision 5 (no compatible base layer)"}[(profile, compatibility)]
    for path in (src, mkv, back):
        dynamic = splice.inspect(path)["tracks"][0]["dynamicRange"]
        assert dynamic["kind"] == "Dolby Vision" and dynamic["summary"].startswith(expected), dynamic
        assert (dynamic["dolbyVision"]["profile"], dynamic["dolbyVision"]["compatibilityID"]) == (profile, compatibility)

    hevc_out, h264_out = tmp_path / "hevc.mp4", tmp_path / "h264.mp4"
    if compatibility == 0:
        for preset, out in (("hevc1920x1080", hevc_out), ("640x480", h264_out)):
            with pytest.raises(splice.SpliceError, match="Dolby Vision 5") as refused:
                splice.export(src, out, preset)
            assert refused.value.status == splice.Status.UNSUPPORTED and not out.exists()
        cli = subprocess.run([str(splice_binary()), "export", str(src), "-o", str(hevc_out), "--preset", "hevc1920x1080"],
                             capture_output=True, text=True)
        assert cli.returncode == 65 and "Dolby Vision 5 (no compatible base layer)" in cli.stderr
        return
    caplog.clear()
    with caplog.at_level("WARNING", logger="splice"):
        splice.export(src, hevc_out, "hevc1920x1080")
    assert any("Dolby Vision RPU (dynamic metadata) is dropped" in r.getMessage() for r in caplog.records), caplog.text
    s = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", str(hevc_out)],
                                  check=True, capture_output=True, text=True).stdout)["streams"][0]
    assert not dovi_side_data(hevc_out) and (s["color_transfer"], s["pix_fmt"]) == (transfer, "yuv420p10le")
    splice.export(src, h264_out, "640x480")
    s = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", str(h264_out)],
                                  check=True, capture_output=True, text=True).stdout)["streams"][0]
    assert (s["codec_name"], s["color_transfer"]) == ("h264", "bt709") and not dovi_side_data(h264_out)


def splice_binary() -> Path:
    """The splice command built with the library under test: the debug build's beside a library
    named by SPLICE_LIBRARY, else make install's."""
    import os
    repo = Path(__file__).resolve().parents[2]
    installed = repo / ".build" / "python" / "prefix" / "bin" / "splice"
    return installed if installed.exists() and "SPLICE_LIBRARY" not in os.environ else repo / ".build" / "debug" / "splice"


def hdr10plus_frames(path: Path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_frames", "-of", "json", str(path)],
                         check=True, capture_output=True, text=True).stdout
    return sum(any(d["side_data_type"].startswith("HDR Dynamic Metadata SMPTE2094-40") for d in f.get("side_data_list", []))
               for f in json.loads(out)["frames"])


def test_hdr10plus_is_carried_between_mp4_and_matroska(tmp_path, caplog):
    raw, tagged, src = tmp_path / "base.hevc", tmp_path / "plus.hevc", tmp_path / "plus.mp4"
    hevc(raw, "smpte2084", fmt="hevc")
    add_hdr10plus_to_annexb(raw, tagged)
    ff("-r", "25", "-i", str(tagged), "-c", "copy", "-tag:v", "hvc1", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
       "-colorspace", "bt2020nc", str(src))
    assert hdr10plus_frames(src) == 25 and decodes_silently(src)
    assert splice.inspect(src)["tracks"][0]["dynamicRange"]["kind"] == "HDR10+"
    # in the stream (T.35 SEI): a copy either way keeps every byte
    mkv, back = tmp_path / "plus.mkv", tmp_path / "back.mp4"
    splice.remux(src, mkv)
    splice.remux(mkv, back)
    assert hdr10plus_frames(mkv) == hdr10plus_frames(back) == 25
    assert streamhash(src) == streamhash(mkv) == streamhash(back)

    # in Matroska block additions (no SEI in the stream): moved into the stream as SEI, and said
    plain_mkv, additions = tmp_path / "plain.mkv", tmp_path / "additions.mkv"
    ff("-r", "25", "-i", str(raw), "-c", "copy", str(plain_mkv))
    add_hdr10plus_block_additions(plain_mkv, additions)
    assert hdr10plus_frames(additions) == 0 and decodes_silently(additions)   # FFmpeg 5.1 does not read them
    assert splice.inspect(additions)["tracks"][0]["dynamicRange"]["kind"] == "HDR10+"
    moved = tmp_path / "moved.mp4"
    with caplog.at_level("WARNING", logger="splice"):
        splice.remux(additions, moved)
    assert any("HDR10+ of 25 frames moved from Matroska block additions" in r.getMessage() for r in caplog.records), caplog.text
    assert hdr10plus_frames(moved) == 25 and decodes_silently(moved)
    assert frames_md5(moved) == frames_md5(plain_mkv)

    # in another codec's block additions: dropped, and named
    vp9, vp9_additions, vp9_out = tmp_path / "vp9.mkv", tmp_path / "vp9-additions.mkv", tmp_path / "vp9.mp4"
    ff("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libvpx-vp9", "-deadline", "realtime",
       "-cpu-used", "8", "-b:v", "300k", str(vp9))
    add_hdr10plus_block_additions(vp9, vp9_additions)
    caplog.clear()
    with caplog.at_level("WARNING", logger="splice"):
        splice.remux(vp9_additions, vp9_out)
    assert any("HDR10+ of 25 frames in Matroska block additions was dropped" in r.getMessage() for r in caplog.records), caplog.text
    assert streamhash(vp9_out) == streamhash(vp9)


def frames_md5(path: Path) -> list[str]:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "framemd5", "-"], check=True, capture_output=True, text=True).stdout
    return [line.split(",")[-1].strip() for line in out.splitlines() if not line.startswith("#")]


def test_mv_hevc_boxes_kept_by_a_remux_and_an_export_says_what_it_drops(tmp_path, caplog):
    base, src = tmp_path / "base.mp4", tmp_path / "spatial.mp4"
    hevc(base, "bt709")
    boxes = mv_hevc_boxes()
    add_to_sample_entry(base, src, boxes)
    assert decodes_silently(src)
    out = tmp_path / "copy.mp4"
    splice.remux(src, out)
    assert entry_box(out, b"lhvC") + entry_box(out, b"vexu") + entry_box(out, b"hfov") == boxes
    assert streamhash(out) == streamhash(src)
    with pytest.raises(splice.SpliceError, match="MV-HEVC"):
        splice.remux(src, tmp_path / "copy.mkv")
    with caplog.at_level("WARNING", logger="splice"):
        splice.export(src, tmp_path / "flat.mp4", "hevc1920x1080")
    assert any("only the base view" in r.getMessage() for r in caplog.records), caplog.text
    assert b"lhvC" not in (tmp_path / "flat.mp4").read_bytes()


def test_inspect_names_each_dynamic_range(hdr, tmp_path):
    bare = tmp_path / "bare.mp4"
    hevc(bare, "smpte2084", metadata=False)
    kinds = {name: splice.inspect(path)["tracks"][0]["dynamicRange"] for name, path in
             [("pq", hdr / "pq.mp4"), ("hlg", hdr / "hlg.mp4"), ("bare", bare)]}
    assert kinds["pq"]["kind"] == "HDR10" and kinds["pq"]["masteringDisplay"] == {"maxLuminance": 1000, "minLuminance": 0.0001}
    assert kinds["pq"]["contentLightLevel"] == {"maxCLL": 1000, "maxFALL": 400}
    assert kinds["hlg"]["kind"] == "HLG" and kinds["hlg"]["transfer"] == "arib-std-b67"
    assert kinds["bare"]["kind"] == "PQ" and kinds["bare"]["summary"] == "PQ without mastering metadata"
    sdr = tmp_path / "sdr.mp4"
    splice.export(hdr / "pq.mp4", sdr, "640x480")
    assert splice.inspect(sdr)["tracks"][0]["dynamicRange"]["kind"] == "SDR"


def test_a_watermark_over_hdr_is_as_bright_as_reference_white(hdr, tmp_path):
    logo = tmp_path / "white.png"
    ff("-f", "lavfi", "-i", "color=white:size=200x100", "-frames:v", "1", str(logo))
    white_pq = 64 + 876 * pq_signal(REFERENCE_WHITE)
    sdr, kept = tmp_path / "sdr.mp4", tmp_path / "hdr.mp4"
    # SDR output: tone-mapped first, the logo drawn over SDR: SDR white, over a tone-mapped picture
    splice.export(hdr / "pq.mp4", sdr, "1280x720", watermark=logo, position="top-left", margin=0)
    y, _, _ = planes(sdr, 1280, 720, False)
    assert abs(float(np.median(y[20:80, 20:180])) - 235) <= 2
    assert abs(patch_median(y, NITS.index(203), 1280 / W) - 233) <= 2
    # HDR output: the logo's sRGB white coded as PQ at 203 cd/m², like the 203 cd/m² patch
    splice.export(hdr / "pq.mp4", kept, "hevc1920x1080", watermark=logo, position="top-left", margin=0)
    y, _, _ = planes(kept, W, H, True)
    assert abs(float(np.median(y[20:80, 20:180])) - white_pq) <= 3, (np.median(y[20:80, 20:180]), white_pq)
    assert abs(patch_median(y, NITS.index(203), 1) - white_pq) <= 3
