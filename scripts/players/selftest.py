"""The judge, shown right and wrong on made-up playbacks: a right one passes, and each way a
player goes wrong (a clip a frame late, cut-away frames, an early end, sound 2 s early, a
seek to the wrong frame, a frame lost beside a crossfade, a picture held where a clip without
picture should be black) is reported; a browser presenting a
crossfade's pictures a frame late is not. `make players` runs this first."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import jobs                                                # noqa: E402
import judge                                               # noqa: E402
from media import ANALYSIS_RATE, FPS, tone_frequency       # noqa: E402
from players import Playback                               # noqa: E402


def sound(job, shift=0.0):
    t = np.arange(int(job.duration * ANALYSIS_RATE)) / ANALYSIS_RATE
    out = np.zeros_like(t, dtype=np.float32)
    for i, s in enumerate(t):
        index, _ = job.expected_tone(s + shift)
        if index is not None and 0 <= s + shift < job.duration:
            out[i] = 0.5 * np.sin(2 * np.pi * tone_frequency(index) * s)
    return out


def main() -> int:
    job = next(j for j in jobs.jobs() if j.name == "concat2")
    frames = job.expected_frames()
    right = Playback(list(frames), sound(job), job.duration)
    late = [(t + (1 / FPS if code[0] == 2 else 0), code) for t, code in frames]
    cases = {
        "right": (right, None),
        "a clip a frame late": (Playback(late, right.sound, job.duration), "clip 2 1.0 frames late"),
        "cut-away frames": (Playback([(-0.1, (1, 30))] + frames, right.sound, job.duration), "1 cut-away frames"),
        "an early end": (Playback(frames[:60], right.sound, job.duration), "60 of 120 frames (stops at 2.5 s)"),
        "sound 2 s early": (Playback(frames, sound(job, 2.0), job.duration), "sound early by up to"),
        "silence": (Playback(frames, np.zeros_like(right.sound), job.duration), "silence in"),
        "a wrong duration": (Playback(frames, right.sound, 2.5), "duration 2.5 s"),
        "a seek to the wrong frame": (Playback(frames, right.sound, job.duration, probes=[(frames[70][0] + 0.02, (2, 69))]),
                                      "seeking: 1 of 1 frames wrong (clip 2 1 frames late"),
    }
    # A crossfade's pictures read under the next frame's time (as Firefox can): the last blend
    # picture, readable as the incoming clip's frame before its cut, shows at the cut.
    fade = next(j for j in jobs.jobs() if j.name == "crossfade3")
    shown, (start, end) = fade.expected_frames(), fade.blends()[0]
    blend = [(t, (2, 12 + k)) for k, t in enumerate(x / FPS for x in range(round(start * FPS), round(end * FPS)))]
    lagging = sorted(shown + [(t + 1 / FPS, code) for t, code in blend])
    lost = [(t, code) for t, code in shown if abs(t - end) > 1e-6]
    cases.update({
        "a crossfade a frame late": (fade, Playback(lagging, None, fade.duration), None),
        "a frame lost beside a crossfade": (fade, Playback(lost, None, fade.duration), "173 of 174 frames"),
        "a cut-away frame beside a crossfade": (fade, Playback(shown + [(end, (2, 11))], None, fade.duration), "1 cut-away frames"),
    })
    # A clip without picture: black pictures (code (0, 0)) over its stretch are right; the first
    # clip's last picture held there instead is not.
    black = next(j for j in jobs.jobs() if j.name == "black")
    clip_frames = black.expected_frames()
    blacks = [(2.0 + k / FPS, (0, 0)) for k in range(48)]
    held = [(2.0 + k / FPS, clip_frames[-1][1]) for k in range(48)]
    cases.update({
        "black pictures over a clip without picture": (black, Playback(clip_frames + blacks, None, black.duration), None),
        "a picture held over a clip without picture": (black, Playback(clip_frames + held, None, black.duration), "no black picture over 2 s-4 s"),
    })
    failed = 0
    for name, case in cases.items():
        subject, playback, expected = case if len(case) == 3 else (job, *case)
        problems = "; ".join(judge.picture_problems(subject, playback) if playback.sound is None else judge.judge(subject, playback))
        ok = problems == "" if expected is None else expected in problems
        failed += not ok
        print(f"judge self-test, {name}: {'ok' if ok else 'FAILED'}: {problems or 'right'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
