"""Test clips that say what they are: every picture carries its clip id and frame number as a
row of blocks, every half second of sound is a tone of its own; and the readers of both."""

import subprocess
from pathlib import Path

import numpy as np

FPS = 24
WIDTH, HEIGHT = 320, 240
BAND = 32            # the top rows hold the code: 16 blocks of 20 x 32 pixels, one bit each
BLOCK = 20
RATE = 48_000        # the clips' sound
ANALYSIS_RATE = 16_000
STEP = 0.5           # a new tone every half second
STEPS_PER_CLIP = 12  # 6 s clips
AAC_FRAME = 1024 / RATE


def _check_bits(frame: int, clip: int) -> int:
    return (bin(frame).count("1") + bin(clip).count("1")) % 16


def frame_code(frame: int, clip: int) -> int:
    """Bits 0-8 frame number, 9-11 clip id, 12-15 a check (the bits set, mod 16)."""
    return frame | clip << 9 | _check_bits(frame, clip) << 12


def _code_filter(clip: int) -> str:
    """An ffmpeg `geq` drawing frame_code(N, clip) into the band over the source picture."""
    popcount = "+".join(f"mod(floor(N/{2 ** k}),2)" for k in range(9))
    code = f"(N+{clip << 9}+4096*mod({popcount}+{bin(clip).count('1')},16))"
    luma = f"if(lt(Y,{BAND}),if(mod(floor({code}/pow(2,floor(X/{BLOCK}))),2),235,16),lum(X,Y))"
    chroma = "if(lt(Y,{h}),128,{p}(X,Y))"
    return (f"geq=lum='{luma}':cb='{chroma.format(h=BAND // 2, p='cb')}'"
            f":cr='{chroma.format(h=BAND // 2, p='cr')}',format=yuv420p")


def tone_index(clip: int, seconds: float) -> int:
    return (clip - 1) * STEPS_PER_CLIP + int(seconds // STEP)


def tone_frequency(index: int) -> float:
    return 250 + 62.5 * index


def _tone_source(clip: int, seconds: float) -> str:
    base = (clip - 1) * STEPS_PER_CLIP
    return (f"aevalsrc=exprs='0.5*sin(2*PI*(250+62.5*({base}+floor(t/{STEP})))*t)'"
            f":s={RATE}:d={seconds}")


def ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", *args], check=True)


def make_clip(path: Path, clip: int, seconds: float = 6, sound: bool = True, picture: bool = True, codec: str = "h264") -> None:
    """H.264 with B-frames and closed 2 s GOPs at 24 fps, and AAC; or a WAV when picture is
    False. `codec` "hevc": 10-bit x265 with its defaults (open GOPs) but 2 s GOPs; "vp9" and
    "av1" (libvpx-vp9, SVT-AV1): WebM with Opus (the path's suffix says .webm)."""
    if not picture:
        # (a WAV, or sound-only AAC like the clips' own when the path says .m4a)
        codec_args = ["-c:a", "aac", "-b:a", "96k"] if path.suffix == ".m4a" else ["-c:a", "pcm_s16le"]
        ffmpeg("-f", "lavfi", "-i", _tone_source(clip, seconds), *codec_args, str(path))
        return
    args = ["-f", "lavfi", "-i", f"testsrc2=s={WIDTH}x{HEIGHT}:r={FPS}:d={seconds}"]
    if sound:
        args += ["-f", "lavfi", "-i", _tone_source(clip, seconds)]
    if codec in ("vp9", "av1"):
        # WebM's codecs, 2 s GOPs, Opus; the picture from 0 (not moved by Opus's pre-skip)
        if codec == "vp9":
            args += ["-vf", _code_filter(clip), "-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0", "-deadline", "good", "-cpu-used", "4",
                     "-g", str(2 * FPS), "-keyint_min", str(2 * FPS)]
        else:
            args += ["-vf", _code_filter(clip), "-c:v", "libsvtav1", "-crf", "35", "-preset", "8", "-g", str(2 * FPS)]
        if sound:
            args += ["-c:a", "libopus", "-b:a", "96k", "-shortest"]
        ffmpeg(*args, "-avoid_negative_ts", "disabled", str(path))
        return
    if codec == "hevc":
        args += ["-vf", _code_filter(clip), "-c:v", "libx265", "-preset", "fast", "-pix_fmt", "yuv420p10le", "-tag:v", "hvc1",
                 "-x265-params", f"keyint={2 * FPS}:min-keyint={2 * FPS}:scenecut=0:log-level=error", "-movflags", "+faststart"]
    else:
        args += ["-vf", _code_filter(clip), "-c:v", "libx264", "-preset", "fast", "-crf", "20",
                 "-g", str(2 * FPS), "-keyint_min", str(2 * FPS), "-sc_threshold", "0", "-bf", "2",
                 "-x264-params", "open-gop=0", "-movflags", "+faststart"]
    if sound:
        args += ["-c:a", "aac", "-b:a", "96k", "-shortest"]
    ffmpeg(*args, str(path))


def read_code(band: bytes):
    """(clip, frame) from one picture's band (WIDTH x BAND, 8-bit luma), or None when unreadable."""
    rows = np.frombuffer(band, dtype=np.uint8).reshape(BAND, WIDTH)[8:24]
    value = 0
    for bit in range(16):
        if rows[:, bit * BLOCK + 5: bit * BLOCK + 15].mean() > 128:
            value |= 1 << bit
    return decode(value)


def decode(value: int):
    """(clip, frame) from a 16-bit code, None when its check fails."""
    frame, clip = value & 511, value >> 9 & 7
    return (clip, frame) if value >> 12 == _check_bits(frame, clip) else None


def read_codes(raw: bytes, stride: int = WIDTH * BAND):
    """Every picture's code in a file of bands, one after the other."""
    return [read_code(raw[i:i + WIDTH * BAND]) for i in range(0, len(raw) - stride + 1, stride)]


class ToneReader:
    """Which tone (or silence) each 20 ms of mono 16 kHz sound holds, by projecting it on every tone."""

    WINDOW = 320
    HOP = 160

    def __init__(self, clips: int = 6):
        count = clips * STEPS_PER_CLIP
        t = np.arange(self.WINDOW) / ANALYSIS_RATE
        freqs = np.array([tone_frequency(i) for i in range(count)])
        self.basis = np.exp(-2j * np.pi * np.outer(t, freqs)) * np.hanning(self.WINDOW)[:, None]

    def read(self, samples: np.ndarray):
        """[(centre seconds, tone index or None for silence)] over the whole sound."""
        count = max(0, (len(samples) - self.WINDOW) // self.HOP + 1)
        if count == 0:
            return []
        idx = np.arange(self.WINDOW)[None, :] + self.HOP * np.arange(count)[:, None]
        windows = samples[idx]
        power = np.abs(windows @ self.basis)
        best = power.argmax(axis=1)
        loud = np.sqrt((windows ** 2).mean(axis=1)) > 0.02
        centres = (np.arange(count) * self.HOP + self.WINDOW / 2) / ANALYSIS_RATE
        return [(float(c), int(b) if l else None) for c, b, l in zip(centres, best, loud)]


def pcm_from_s16(raw: bytes) -> np.ndarray:
    return np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2").astype(np.float32) / 32768
