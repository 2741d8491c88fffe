"""Media made by the ffmpeg CLI (an independent producer) and the tools that check outputs."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def ff(*args: str) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def probe(path: os.PathLike, *entries: str) -> dict:
    """ffprobe's JSON for the file: its format and streams."""
    out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", *entries, "-of", "json",
                          str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def streams(path: os.PathLike) -> list[dict]:
    return probe(path)["streams"]


def streamhash(path: os.PathLike) -> list[str]:
    """The md5 of each stream's packets (what a lossless copy keeps)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v?", "-map", "0:a?", "-map", "0:s?",
                          "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def frame_md5s(path: os.PathLike, *filters: str) -> list[str]:
    """The md5 of each decoded video frame, as ffmpeg shows the file (edit lists applied)."""
    args = ["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", *filters, "-f", "framemd5", "-"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return [line.split(",")[-1].strip() for line in out.splitlines() if not line.startswith("#")]


def rms_db(path: os.PathLike, frequency: int) -> float:
    """The RMS level (dBFS) of one tone of the file's first audio track (a narrow band-pass)."""
    out = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", str(path), "-map", "0:a:0", "-af",
                          f"bandpass=f={frequency}:width_type=q:w=8,atrim=start=0.5,astats=measure_overall=RMS_level:measure_perchannel=none",
                          "-f", "null", "-"], capture_output=True, text=True, check=True).stderr
    return float(re.findall(r"RMS level dB: (-?[\d.]+|-inf)", out)[-1])


def ssim(path: os.PathLike, reference: os.PathLike) -> float:
    out = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", str(path), "-i", str(reference), "-lavfi",
                          "[0:v][1:v]ssim", "-f", "null", "-"], capture_output=True, text=True, check=True).stderr
    return float(re.findall(r"All:([\d.]+)", out)[-1])


def rgb(path: os.PathLike, frame: int = 0) -> bytes:
    """One decoded frame as RGB24 bytes."""
    return subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-vf", f"select=eq(n\\,{frame})",
                           "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                          check=True, capture_output=True).stdout


SRT = "1\n00:00:00,500 --> 00:00:01,500\nHola\n\n2\n00:00:02,000 --> 00:00:03,000\nAdiós\n"


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> Path:
    """movie.mp4: 4 s of 320x240 H.264 at 25 fps (a sync sample each second), AAC 440 Hz and an
    English tx3g track; long.mp4: 30 s of 640x360 with sound; music.m4a: 1 kHz; voice.wav: 660 Hz;
    silent.mp4: video only; es.srt; red/green/blue.png."""
    d = tmp_path_factory.mktemp("media")
    (d / "en.srt").write_text("1\n00:00:00,200 --> 00:00:01,000\nHello\n")
    (d / "es.srt").write_text(SRT)
    ff("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i",
       "sine=frequency=440:duration=4", "-i", str(d / "en.srt"), "-map", "0", "-map", "1", "-map", "2",
       "-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-c:a", "aac", "-c:s", "mov_text",
       "-metadata:s:s:0", "language=eng", "-metadata:s:a:0", "language=eng", str(d / "movie.mp4"))
    ff("-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=30", "-f", "lavfi", "-i", "sine=duration=30",
       "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", str(d / "long.mp4"))
    ff("-f", "lavfi", "-i", "sine=frequency=1000:duration=6", "-c:a", "aac", "-b:a", "192k", str(d / "music.m4a"))
    ff("-f", "lavfi", "-i", "sine=frequency=660:duration=6", str(d / "voice.wav"))
    ff("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-preset", "veryfast",
       "-g", "25", str(d / "silent.mp4"))
    for name, colour in [("red", "red"), ("green", "0x00FF00"), ("blue", "blue")]:
        ff("-f", "lavfi", "-i", f"color=c={colour}:size=320x240", "-frames:v", "1", str(d / f"{name}.png"))
    return d
