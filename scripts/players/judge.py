"""Whether a player presented a job's file right, and if not, what it got wrong, in a few words."""

from media import AAC_FRAME, FPS, STEP, STEPS_PER_CLIP, ToneReader

HALF_FRAME = 0.5 / FPS + 0.001
READER = ToneReader()


def _at(seconds: float) -> str:
    return f"{seconds:.2f}".rstrip("0").rstrip(".") + " s"


def _describe_tone(index) -> str:
    if index is None:
        return "silence"
    clip, step = divmod(index, STEPS_PER_CLIP)
    return f"clip {clip + 1}'s sound of {_at(step * STEP)}"


def picture_problems(job, playback) -> list:
    expected = job.expected_frames()
    when = {code: t for t, code in expected}
    order = {code: i for i, (_, code) in enumerate(expected)}
    # (a transition's pictures blend two clips' codes: they are not judged. They are known by
    # their time, or by the code they read as, as a browser can present a picture under its
    # neighbour's time; an expected frame is judged wherever it shows.)
    blends = [(a - 0.25 / FPS, b - 0.25 / FPS) for a, b in job.blends()]
    blended = job.blend_codes()
    frames = [(t, code) for t, code in playback.frames
              if code in when or not (code in blended or any(a <= t < b for a, b in blends))]
    # (a stretch without picture is black: its pictures read as clip 0's frame 0, and at least
    # one must show there)
    black = job.black_spans()
    def is_black(t, code):
        return code == (0, 0) and any(a - HALF_FRAME <= t < b + HALF_FRAME for a, b in black)
    blacks = [t for t, code in frames if is_black(t, code)]
    frames = [(t, code) for t, code in frames if not is_black(t, code)]
    shown = [(t, code) for t, code in frames if code is not None]
    problems = [f"no black picture over {_at(a)}-{_at(b)}" for a, b in black if not any(a - HALF_FRAME <= t < b for t in blacks)]
    unreadable = len(frames) - len(shown)
    if unreadable:
        problems.append(f"{unreadable} unreadable pictures")
    away = [(t, code) for t, code in shown if code not in when]
    if away:
        problems.append(f"{len(away)} cut-away frames from {_at(away[0][0])}")
    seen = [code for _, code in shown if code in when]
    missing = [code for _, code in expected if code not in set(seen)]
    if missing:
        stop = max((when[c] for c in seen), default=0.0)
        tail = all(when[c] > stop for c in missing)
        problems.append(f"{len(expected) - len(missing)} of {len(expected)} frames"
                        + (f" (stops at {_at(stop + 1 / FPS)})" if tail else ""))
    if len(seen) != len(set(seen)):
        problems.append(f"{len(seen) - len(set(seen))} frames shown twice")
    if any(order[a] > order[b] for a, b in zip(seen, seen[1:])):
        problems.append("frames out of order")
    if playback.timed:
        problems += _timing(shown, when)
    return problems


def _timing(shown, when) -> list:
    """Per clip, how far its frames are from their times, when more than half a frame."""
    off = {}
    for t, code in shown:
        if code in when and abs(t - when[code]) > HALF_FRAME:
            off.setdefault(code[0], []).append(t - when[code])
    out = []
    for clip, offsets in sorted(off.items()):
        frames = sorted(offsets)[len(offsets) // 2] * FPS
        out.append(f"clip {clip} {abs(frames):.1f} frames {'late' if frames > 0 else 'early'} ({len(offsets)} frames)")
    return out


def sound_problems(job, heard, tolerance: float, sound_seconds=None) -> list:
    """heard: [(seconds, tone index or None)]; windows within tolerance of a change are not judged."""
    wrong = []
    for t, index in heard:
        if t > job.duration:
            break
        expected, distance = job.expected_tone(t)
        if distance > tolerance and index != expected:
            wrong.append((t, index, expected))
    problems = _runs(job, wrong)
    if sound_seconds is not None and sound_seconds < job.duration - 0.1 and job.expected_tone(job.duration - 0.05)[0] is not None:
        problems.append(f"sound stops at {_at(sound_seconds)}")
    return problems


def _runs(job, wrong) -> list:
    """Wrong windows summed up by kind: silence, sound cut away, sound where silence belongs, and
    sound early or late (by at least how much: the distance to where the tone heard belongs)."""
    kinds = {}
    for t, heard, expected in wrong:
        span = job.tone_span(heard) if heard is not None else None
        if heard is None:
            kind, amount = "silence", 0.0
        elif span is None:
            kind, amount = f"cut-away sound ({_describe_tone(heard)})", 0.0
        elif expected is None and span[0] - 0.3 < t < span[1] + 0.3:
            kind, amount = "sound where silence belongs", 0.0
        elif t < span[0]:
            kind, amount = "sound early", span[0] - t
        else:
            kind, amount = "sound late", t - span[1]
        entry = kinds.setdefault(kind, [t, t, 0.0, 0])
        entry[1], entry[2], entry[3] = t, max(entry[2], amount), entry[3] + 1
    out = []
    for kind, (start, end, amount, count) in sorted(kinds.items(), key=lambda k: k[1][0]):
        by = f" by up to {amount * 1000:.0f} ms" if amount else ""
        out.append(f"{kind}{by} in {count * 10} ms between {_at(start)} and {_at(end)}")
    return out


def duration_problems(job, playback) -> list:
    if playback.duration is None:
        return ["no duration"]
    if abs(playback.duration - job.duration) > (playback.duration_tolerance or AAC_FRAME):
        return [f"duration {_at(playback.duration)} (expected {_at(job.duration)})"]
    return []


def judge(job, playback) -> list:
    problems = list(playback.notes) + picture_problems(job, playback)
    if playback.probes is not None:
        problems += _probe_problems(job, playback.probes)
    if playback.tones is not None:
        problems += sound_problems(job, playback.tones, tolerance=0.15)
    elif playback.sound is None:
        problems.append("no sound")
    else:
        heard = [(t + playback.sound_origin, i) for t, i in READER.read(playback.sound)]
        problems += sound_problems(job, heard, tolerance=0.0105 + AAC_FRAME / 2,
                                   sound_seconds=playback.sound_origin + len(playback.sound) / 16_000)
    if not playback.ended:
        problems.append("never ends")
    return problems + duration_problems(job, playback)


def _probe_problems(job, probes) -> list:
    """The frame shown after seeking to each probe time must be the one due there."""
    expected = job.expected_frames()
    wrong, off, away, first = 0, {}, 0, None
    for t, code in probes:
        due = [c for s, c in expected if s <= t + 0.001]
        if due and code == due[-1]:
            continue
        wrong += 1
        shown = f"{code[0]}#{code[1]}" if code else "an unreadable picture"
        first = first or f"at {_at(t)} {shown} for {due[-1][0]}#{due[-1][1]}" if due else f"at {_at(t)} {shown}"
        if due and code and code[0] == due[-1][0]:
            off.setdefault(code[0], []).append(due[-1][1] - code[1])
        elif code not in {c for _, c in expected}:
            away += 1
    if not wrong:
        return []
    parts = [f"clip {clip} {abs(sorted(d)[len(d) // 2])} frames {'late' if sorted(d)[len(d) // 2] > 0 else 'early'} ({len(d)} frames)"
             for clip, d in sorted(off.items())]
    if away:
        parts.append(f"{away} show a cut-away frame")
    parts.append(f"first {first}")
    return [f"seeking: {wrong} of {len(probes)} frames wrong ({'; '.join(parts)})"]
