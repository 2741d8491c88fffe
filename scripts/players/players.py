"""How each command-line player presents a file: the pictures it shows with their times, its
sound laid on its own timeline (16 kHz mono), and the duration it reports."""

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from media import ANALYSIS_RATE, BAND, WIDTH, decode, pcm_from_s16, read_codes


@dataclass
class Playback:
    frames: list                     # [(seconds, (clip, frame) or None)]
    sound: np.ndarray | None         # mono ANALYSIS_RATE samples from time 0, or None when not heard
    duration: float | None
    ended: bool = True
    notes: list = field(default_factory=list)
    probes: list | None = None       # [(probe seconds, (clip, frame) or None)] where the player can seek
    tones: list | None = None        # [(seconds, tone or None)] heard live, for players that only play
    sound_origin: float = 0.0        # the time of the sound's first sample
    remarks: list = field(default_factory=list)  # how it was measured, not what is wrong
    timed: bool = True               # False: frame times are told by seeking (probes), not by frames
    duration_tolerance: float | None = None  # seconds, where the player estimates it (else one AAC frame)


def run(args, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, timeout=timeout, **kwargs)


def ffprobe_duration(path: Path):
    out = run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)]).stdout
    try:
        return float(out.strip())
    except ValueError:
        return None


SHOWINFO = re.compile(rb"pts_time:\s*(-?[\d.]+).*?checksum:([0-9A-F]{8})")


def play_ffmpeg(path: Path) -> Playback:
    video = run(["ffmpeg", "-v", "info", "-nostdin", "-i", str(path), "-map", "0:v:0", "-fps_mode", "passthrough",
                 "-vf", f"crop={WIDTH}:{BAND}:0:0,format=gray,showinfo", "-f", "rawvideo", "-"])
    times = [float(m.group(1)) for m in SHOWINFO.finditer(video.stderr)]
    sound = run(["ffmpeg", "-v", "error", "-nostdin", "-i", str(path), "-map", "0:a:0?", "-ac", "1",
                 "-af", f"aresample={ANALYSIS_RATE}:async=1:first_pts=0", "-f", "s16le", "-"]).stdout
    return Playback(list(zip(times, read_codes(video.stdout))), pcm_from_s16(sound) if sound else None, ffprobe_duration(path))


GST_PTS = re.compile(rb"stamps:sink.*?pts: (\d+):(\d\d):(\d\d\.\d+)")
GST_DURATION = re.compile(r"Duration: (\d+):(\d\d):(\d\d\.\d+)")


def _clock(h, m, s) -> float:
    return int(h) * 3600 + int(m) * 60 + float(s)


def play_gstreamer(path: Path) -> Playback:
    """playbin, as a GStreamer player plays it, its sinks unsynchronised; times are running times."""
    with tempfile.TemporaryDirectory() as tmp:
        band, pcm = Path(tmp) / "band", Path(tmp) / "pcm"
        video_sink = (f"videoconvert ! videocrop bottom={240 - BAND} ! video/x-raw,format=GRAY8 ! "
                      f"identity single-segment=true ! identity name=stamps silent=false ! filesink sync=false location={band}")
        audio_sink = (f"audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate={ANALYSIS_RATE},channels=1 ! "
                      f"identity single-segment=true ! audiorate ! filesink sync=false location={pcm}")
        out = run(["gst-launch-1.0", "-v", "playbin", f"uri=file://{path.resolve()}",
                   f"video-sink={video_sink}", f"audio-sink={audio_sink}"])
        times = [_clock(*m.groups()) for m in GST_PTS.finditer(out.stdout)]
        frames = list(zip(times, read_codes(band.read_bytes() if band.exists() else b"")))
        sound = pcm_from_s16(pcm.read_bytes()) if pcm.exists() and pcm.stat().st_size else None
    notes = [] if out.returncode == 0 else [f"gst-launch exit {out.returncode}"]
    found = GST_DURATION.search(run(["gst-discoverer-1.0", str(path)]).stdout.decode(errors="replace"))
    # GStreamer estimates an MPEG-TS file's duration from its clock references and byte
    # positions (ffmpeg's own TS of a 2.52 s HEVC cut: 2.55 s; a copy of it through ffmpeg 2.66 s).
    estimated = path.suffix == ".ts"
    return Playback(frames, sound, _clock(*found.groups()) if found else None, notes=notes, duration_tolerance=0.15 if estimated else None,
                    remarks=["duration estimated from the TS's clock references"] if estimated else [])


MPV_SHOWINFO = re.compile(rb"Parsed_showinfo.*?pts_time:\s*(-?[\d.]+).*?mean:\[(\d+)\]")
MPV_SOUND = re.compile(rb"Parsed_ashowinfo.*?pts_time:\s*(-?[\d.]+)")
MPV_DURATION = re.compile(rb"DURATION=([\d.]+)")
# Inside mpv's own filter chain: the band's 16 blocks averaged, cut at mid-grey and summed into
# one 16-bit pixel, which showinfo prints as the picture's mean.
_BITS = "+".join(f"gt(p({bit}\\,0)\\,32768)*{1 << bit}" for bit in range(16))
MPV_GRAPH = (f"crop={WIDTH}:16:0:8,scale=16:1:flags=area,format=gray16le,geq=lum={_BITS}:i=n,"
             "crop=1:1:0:0,showinfo")


def play_mpv(path: Path) -> Playback:
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "sound.wav"
        out = run(["mpv", "--no-config", "--vo=null", "--untimed", "--framedrop=no", f"--vf=lavfi=[{MPV_GRAPH}]",
                   "--af=lavfi=[ashowinfo]", "--ao=pcm", f"--ao-pcm-file={wav}", f"--audio-samplerate={ANALYSIS_RATE}", "--audio-channels=mono",
                   "--audio-format=s16", "--msg-level=all=info,ffmpeg=v", "--term-playing-msg=DURATION=${=duration}",
                   str(path)])
        text = out.stdout + out.stderr
        frames = [(float(m.group(1)), decode(int(m.group(2)))) for m in MPV_SHOWINFO.finditer(text)]
        raw = wav.read_bytes() if wav.exists() else b""
        sound = pcm_from_s16(raw[44:]) if len(raw) > 44 else None
    found = MPV_DURATION.search(text)
    # The sound mpv writes starts at its first audio frame's time (ashowinfo's).
    first = MPV_SOUND.search(text)
    origin = float(first.group(1)) if first else 0.0
    return Playback(frames, sound, float(found.group(1)) if found else None, sound_origin=origin)


PLAYERS = {"ffmpeg": play_ffmpeg, "gstreamer": play_gstreamer, "mpv": play_mpv}
