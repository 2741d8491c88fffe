"""The files the matrix judges: what each job makes, and what a player should present from it."""

import math
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from media import FPS, make_clip, ffmpeg, tone_index

# Clip ids: 1-3 clips with sound, 4 a clip without sound, 5 a WAV, 6 sound only in the clips' AAC.
CLIPS = {1: "a.mp4", 2: "b.mp4", 3: "c.mp4", 4: "v.mp4", 5: "w.wav", 6: "s.m4a"}


# A transition's segment: both clips' pictures and sound at once, not judged frame by frame.
BLEND = "blend"


@dataclass
class Segment:
    """One stretch of the output: `video` and `audio` are (clip, start) or None (black, silence)."""
    seconds: float
    video: tuple | None
    audio: tuple | None


@dataclass
class Job:
    name: str
    title: str
    segments: list
    make: object = None            # (job, media folder, splice binary, output) -> None
    outputs: list = field(default_factory=list)
    media: str = ""                # the media folder's subfolder: "hevc" for the HEVC clips
    players: tuple = ()            # the columns it is played in (empty: all)
    suffix: str = "mp4"            # the output's container
    mse: bool = False              # CMAF: played through Media Source Extensions too (chromium-mse)
    entry: str = ""                # a package: the output is a folder, this manifest in it is played

    @property
    def duration(self) -> float:
        return sum(s.seconds for s in self.segments)

    def expected_frames(self):
        """[(time, (clip, frame))] every picture a player should present, in order."""
        frames, origin = [], 0.0
        for s in self.segments:
            if s.video and s.video != BLEND:
                clip, start = s.video
                first, end = math.ceil(start * FPS - 1e-9), math.ceil((start + s.seconds) * FPS - 1e-9)
                frames += [(origin + n / FPS - start, (clip, n)) for n in range(first, end)]
            origin += s.seconds
        return frames

    def probes(self):
        """Times to seek to: the middle of each segment's first, middle and last frame's time."""
        frames, times, origin = self.expected_frames(), [], 0.0
        for s in self.segments:
            inside = [t for t, _ in frames if origin - 1e-6 <= t < origin + s.seconds - 1e-6]
            if inside:
                times += [inside[0] + 0.5 / FPS, inside[len(inside) // 2] + 0.5 / FPS, inside[-1] + 0.5 / FPS]
            origin += s.seconds
        return times

    def expected_tone(self, t: float):
        """The tone index at output time t, None for silence; and the distance to the nearest change."""
        origin = 0.0
        for s in self.segments:
            if t < origin + s.seconds or s is self.segments[-1]:
                local = t - origin
                edges = [origin, origin + s.seconds]
                if s.audio == BLEND:
                    return BLEND, 0.0
                if s.audio:
                    clip, start = s.audio
                    step = 0.5
                    k = math.floor((start + local) / step)
                    edges += [origin + k * step - start, origin + (k + 1) * step - start]
                    return tone_index(clip, start + local), min(abs(t - e) for e in edges)
                return None, min(abs(t - e) for e in edges)
            origin += s.seconds
        return None, 0.0


    def tone_span(self, index):
        """(start, end) of the tone `index` in the output, or None when it is not in it."""
        origin = 0.0
        for s in self.segments:
            if s.audio and s.audio != BLEND:
                clip, start = s.audio
                for k in range(int(start / 0.5), int((start + s.seconds) / 0.5) + 1):
                    if tone_index(clip, k * 0.5) == index:
                        return (origin + max(0.0, k * 0.5 - start), origin + min(s.seconds, (k + 1) * 0.5 - start))
            origin += s.seconds
        return None


    def blend_codes(self):
        """The codes a transition's pictures can be read as: the frames of the clip going out
        and of the clip coming in that the blend covers."""
        codes, segments = set(), self.segments
        for i, s in enumerate(segments):
            if s.video != BLEND or i == 0 or i + 1 == len(segments):
                continue
            before, after = segments[i - 1].video, segments[i + 1].video
            for clip, start in ((before[0], before[1] + segments[i - 1].seconds), (after[0], after[1] - s.seconds)):
                first, end = math.ceil(start * FPS - 1e-9), math.ceil((start + s.seconds) * FPS - 1e-9)
                codes |= {(clip, n) for n in range(first, end)}
        return codes

    def black_spans(self):
        """[(start, end)] of the stretches without picture, shown black."""
        out, origin = [], 0.0
        for s in self.segments:
            if s.video is None:
                out.append((origin, origin + s.seconds))
            origin += s.seconds
        return out

    def blends(self):
        """[(start, end)] of the transitions."""
        out, origin = [], 0.0
        for s in self.segments:
            if s.video == BLEND:
                out.append((origin, origin + s.seconds))
            origin += s.seconds
        return out


def crossfade_job(name, title, ranges, fade):
    """A concat with --crossfade: each clip alone between transitions, blends over them."""
    segments = []
    for k, (c, s, e) in enumerate(ranges):
        a, b = s + (fade if k > 0 else 0), e - (fade if k < len(ranges) - 1 else 0)
        segments.append(Segment(b - a, (c, a), (c, a)))
        if k < len(ranges) - 1:
            segments.append(Segment(fade, BLEND, BLEND))

    def make(job, media, splice, out):
        subprocess.run([splice, "concat", *[clip_arg(media, c, s, e) for c, s, e in ranges], "--crossfade", f"{fade:g}", "-o", str(out), "--force"],
                       check=True, capture_output=True)
    return Job(name, title, segments, make, players=("ffmpeg", "gstreamer", "mpv"))


def clip_file(media: Path, clip: int) -> Path:
    """A clip's file in a media folder (the VP9 and AV1 folders hold WebM)."""
    path = media / CLIPS[clip]
    return path if path.exists() else path.with_suffix(".webm")


def clip_arg(media: Path, clip: int, start: float, end: float) -> str:
    return f"{clip_file(media, clip)}#t={start:g},{end:g}"


def splice_concat(ranges, extra=()):
    def make(job, media, splice, out):
        subprocess.run([splice, "concat", *[clip_arg(media, c, s, e) for c, s, e in ranges], "-o", str(out), "--force", *extra],
                       check=True, capture_output=True)
    return make


def concat_job(name, title, ranges, silent=()):
    segments = [Segment(e - s, (c, s), None if c in silent else (c, s)) for c, s, e in ranges]
    return Job(name, title, segments, splice_concat(ranges))


def black_job(name, title, sound_clip):
    """A clip's 1-3 s, then 2 s of a sound-only file: black pictures under its sound."""
    ranges = [(1, 1.0, 3.0), (sound_clip, 0.0, 2.0)]
    segments = [Segment(2.0, (1, 1.0), (1, 1.0)), Segment(2.0, None, (sound_clip, 0.0))]
    return Job(name, title, segments, splice_concat(ranges), players=("ffmpeg", "gstreamer", "mpv"))


def make_reference(ranges, codecs=("-c:v", "libx264", "-preset", "fast", "-crf", "18", "-bf", "2", "-g", "48", "-c:a", "aac", "-b:a", "96k")):
    """ffmpeg re-encoding each range into one plain file: what a right file looks like."""
    def make(job, media, splice, out):
        inputs, graph, labels = [], [], ""
        for i, (c, s, e) in enumerate(ranges):
            inputs += ["-i", str(clip_file(media, c))]
            graph.append(f"[{i}:v]trim=start={s}:end={e},setpts=PTS-STARTPTS[v{i}]")
            graph.append(f"[{i}:a]atrim=start={s}:end={e},asetpts=PTS-STARTPTS[a{i}]")
            labels += f"[v{i}][a{i}]"
        graph.append(f"{labels}concat=n={len(ranges)}:v=1:a=1[v][a]")
        ffmpeg(*inputs, "-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]", *codecs, str(out))
    return make


THREE = [(1, 1.5, 5.25), (2, 0.5, 4.25), (3, 2.25, 6.0)]

# splice.dask.export on a LocalCluster of two workers, run by the Python of the wheel's virtual
# environment (SPLICE_PYTHON, which `make players` sets).
DASK_EXPORT = """
import sys, distributed, splice.dask
options = dict(n_workers=2, threads_per_worker=1, dashboard_address=":0", worker_dashboard_address=None)
with distributed.LocalCluster(**options) as cluster, distributed.Client(cluster) as client:
    result = splice.dask.export(sys.argv[1], sys.argv[2], "highestQuality", client=client, chunk_seconds=1.3,
                                shared_disk=sys.argv[3] == "shared", force=True)
    sys.exit(0 if result["ok"] else result["message"])
"""


def dask_export_job(shared: bool) -> Job:
    """Clip 1 (6 s, 2 s GOPs) exported over two Dask workers in chunks of 1.3 s, four of which
    start between sync samples, joined into one track."""
    def make(job, media, splice, out):
        python = os.environ.get("SPLICE_PYTHON", ".build/python/venv/bin/python")
        subprocess.run([python, "-c", DASK_EXPORT, str(clip_file(media, 1)), str(out), "shared" if shared else "bytes"],
                       check=True, capture_output=True)
    name = "dask" if shared else "dask-bytes"
    title = "splice.dask.export, 5 chunks on 2 workers" + ("" if shared else ", only bytes passed")
    return Job(name, title, [Segment(6.0, (1, 0.0), (1, 0.0))], make)


def jobs():
    trim = Job("trim", "trim --range 1.5,4", [Segment(2.5, (1, 1.5), (1, 1.5))])
    trim.make = lambda job, media, splice, out: subprocess.run(
        [splice, "trim", str(clip_file(media, 1)), "-o", str(out), "--range", "1.5,4", "--force"],
        check=True, capture_output=True)
    merge = Job("merge", "merge of a 1-4 s range with a WAV", [Segment(3.0, (1, 1.0), (5, 0.0))])
    merge.make = lambda job, media, splice, out: subprocess.run(
        [splice, "merge", clip_arg(media, 1, 1, 4), str(media / CLIPS[5]), "-o", str(out), "--force"],
        check=True, capture_output=True)
    remux = Job("remux", "plain remux (control)", [Segment(6.0, (1, 0.0), (1, 0.0))])
    remux.make = lambda job, media, splice, out: subprocess.run(
        [splice, "remux", str(media / CLIPS[1]), str(out), "--force"], check=True, capture_output=True)
    reference = Job("reference", "three cuts re-encoded by ffmpeg (control)",
                    [Segment(e - s, (c, s), (c, s)) for c, s, e in THREE], make_reference(THREE))
    return [
        concat_job("concat3", "concat of three clips cut mid-GOP", THREE),
        crossfade_job("crossfade3", "concat of three clips cut mid-GOP, crossfaded over 1 s", THREE, 1.0),
        concat_job("concat2", "concat of two clips cut mid-GOP", [(1, 1.5, 4.0), (2, 2.5, 5.0)]),
        trim,
        concat_job("gap", "concat with a clip without sound in the middle", [(1, 0.5, 2.5), (4, 0.0, 2.0), (3, 1.0, 3.0)], silent={4}),
        black_job("black", "concat of a clip and a sound-only AAC file (black picture)", 6),
        black_job("black-wav", "concat of a clip and a WAV (black picture; all re-encoded)", 5),
        merge,
        dask_export_job(shared=True),
        dask_export_job(shared=False),
        remux,
        reference,
    ]


# Players that decode 10-bit HEVC here: Firefox ESR through the system's libavcodec; Debian's
# Chromium has no HEVC decoder (even the plain remux shows no frame).
HEVC_PLAYERS = ("ffmpeg", "gstreamer", "mpv", "firefox")


def cmaf_jobs():
    """CMAF (`--cmaf`): a remux of clip 1, the three-clip concat and the trim, played as files and
    through Media Source Extensions (chromium-mse: the init segment, then each fragment)."""
    remux = Job("cmaf", "remux --cmaf", [Segment(6.0, (1, 0.0), (1, 0.0))], mse=True)
    remux.make = lambda job, media, splice, out: subprocess.run(
        [splice, "remux", str(clip_file(media, 1)), str(out), "--cmaf", "--force"], check=True, capture_output=True)
    trim = Job("cmaf-trim", "trim --range 1.5,4 --cmaf", [Segment(2.5, (1, 1.5), (1, 1.5))], mse=True)
    trim.make = lambda job, media, splice, out: subprocess.run(
        [splice, "trim", str(clip_file(media, 1)), "-o", str(out), "--range", "1.5,4", "--cmaf", "--force"],
        check=True, capture_output=True)
    concat = Job("cmaf-concat3", "concat of three clips cut mid-GOP, --cmaf", [Segment(e - s, (c, s), (c, s)) for c, s, e in THREE],
                 splice_concat(THREE, ["--cmaf"]), mse=True)
    return [remux, trim, concat]


def package_jobs():
    """`splice package` of clip 1 (2 s segments): the HLS playlist (segment files, and one file
    per track by byte ranges) and the DASH manifest, played by the command-line players through
    their HLS and DASH readers, and the HLS one by Chromium through Media Source Extensions (the
    page reads the playlists: the first variant's video and its default sound, init segment
    first, into a source buffer each)."""
    def make(options):
        def run(job, media, splice, out):
            subprocess.run([splice, "package", str(clip_file(media, 1)), "-o", str(out.parent), "--segment", "2", "--force", *options],
                           check=True, capture_output=True)
        return run
    whole = [Segment(6.0, (1, 0.0), (1, 0.0))]

    def ffmpeg_hls(job, media, splice, out):
        out.parent.mkdir(parents=True, exist_ok=True)
        ffmpeg("-i", str(clip_file(media, 1)), "-c", "copy", "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "2",
               "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8", str(out.parent / "index.m3u8"))
    # (the control's master playlist has no CODECS, which a Media Source Extensions player needs)
    return [Job("package-ffmpeg", "ffmpeg's HLS (-hls_segment_type fmp4) of the same clip: the control", whole, ffmpeg_hls,
                players=("ffmpeg", "gstreamer", "mpv"), entry="master.m3u8"),
            Job("package", "package, HLS", whole, make([]), players=("ffmpeg", "gstreamer", "mpv", "chromium-mse"), mse=True, entry="master.m3u8"),
            Job("package-single", "package --single-file, HLS byte ranges", whole, make(["--single-file"]),
                players=("ffmpeg", "gstreamer", "mpv", "chromium-mse"), mse=True, entry="master.m3u8"),
            Job("package-dash", "package, DASH", whole, make([]), players=("ffmpeg", "gstreamer", "mpv"), entry="manifest.mpd")]


def hevc_jobs():
    """The same jobs from 10-bit HEVC clips (x265's defaults: open GOPs, CRA pictures with
    leading pictures that refer across them; 2 s GOPs like the H.264 clips)."""
    out = []
    for job in jobs():
        if job.name in ("reference", "dask-bytes"):
            continue
        # (the black rows stay with the command-line players: Firefox's analyser reads the sound-only
        # clip's tones, near 4 kHz, as their neighbours)
        players = job.players if job.name.startswith("black") else HEVC_PLAYERS
        out.append(Job(f"{job.name}-hevc", job.title + " (10-bit HEVC)", job.segments, job.make, media="hevc", players=players))
    return out


# Players of the other containers here. The browsers do not play MPEG-TS. Firefox ESR shows
# Matroska H.264 with B-frames and WebM out of order (and seeks Matroska wrong), ffmpeg's own
# files (the reference-mkv and reference-webm controls) too: it plays the controls only, to
# show when that changes.
CONTAINER_PLAYERS = {"mkv": ("ffmpeg", "gstreamer", "mpv", "chromium"), "ts": ("ffmpeg", "gstreamer", "mpv")}


def container_jobs():
    """The three-clip concat and the trim into Matroska and MPEG-TS (H.264 and HEVC): no edit
    lists there, so only a smart cut is frame-exact; ffmpeg's re-encode of the three cuts as
    the control of each."""
    out = []
    for job in jobs() + hevc_jobs():
        base = job.name.removesuffix("-hevc")
        if base not in ("concat3", "trim", "reference"):
            continue
        for suffix in ("mkv", "ts"):
            players = tuple(p for p in CONTAINER_PLAYERS[suffix] if not job.players or p in job.players)
            if base == "reference" and suffix == "mkv":
                players += ("firefox",)
            out.append(Job(f"{base}-{suffix}" + ("-hevc" if job.media else ""), f"{job.title} into .{suffix}", job.segments,
                           job.make, media=job.media, players=players, suffix=suffix))
    return out


def _head(media: Path) -> Path:
    """Clip 1's first GOP (0-2 s) re-encoded as a smart cut would, with other parameter sets
    (x264 ref=4, no weighted prediction: another SPS and PPS; same profile, level and size)."""
    head = media / "head.mp4"
    if not head.exists():
        ffmpeg("-i", str(media / CLIPS[1]), "-t", "2", "-an", "-c:v", "libx264", "-preset", "fast", "-crf", "18",
               "-g", "48", "-bf", "2", "-x264-params", "ref=4:weightp=0:open-gop=0", str(head))
    return head


def _parameter_set_job(name, title, layout):
    """Clip 1 with its first GOP re-encoded (other SPS/PPS) and the rest copied, in one plain
    track (one edit), the parameter sets carried as `layout` says; clip 1's sound whole."""
    def make(job, media, splice, out):
        # Into Matroska, Splice writes the second GOP's own SPS/PPS in-band where they change.
        joined = out.with_name(f"{name}-video.{'mp4' if layout == 'stsd' else 'mkv'}")
        subprocess.run([splice, "concat", "--cut", "exact", "-o", str(joined), "--force", str(_head(media)), clip_arg(media, 1, 2, 6)],
                       check=True, capture_output=True)
        if layout == "stsd":
            subprocess.run([splice, "merge", "--cut", "exact", str(joined), str(media / CLIPS[1]), "-o", str(out), "--force"],
                           check=True, capture_output=True)
        else:
            ffmpeg("-i", str(joined), "-i", str(media / CLIPS[1]), "-map", "0:v", "-map", "1:a", "-c", "copy",
                   "-tag:v", layout, str(out))
        joined.unlink()
    return Job(name, title, [Segment(6.0, (1, 0.0), (1, 0.0))], make)


def experiments():
    """Rows that answer a question rather than judge a job (`--experiments`): how the parameter
    sets of re-encoded frames among copied ones are best carried."""
    return [
        _parameter_set_job("ps-stsd", "re-encoded GOP: a second sample description (avc1)", "stsd"),
        _parameter_set_job("ps-avc3", "re-encoded GOP: parameter sets in-band (avc3)", "avc3"),
        _parameter_set_job("ps-avc1", "re-encoded GOP: in-band, avc1 with the first's avcC", "avc1"),
    ]


def webm_jobs():
    """The three-clip concat and the trim of VP9 and of AV1 clips (WebM, Opus) into WebM."""
    out = []
    for codec in ("vp9", "av1"):
        for job in jobs():
            if job.name in ("concat3", "trim"):
                out.append(Job(f"{job.name}-webm-{codec}", f"{job.title} ({codec.upper()} in WebM)", job.segments, job.make,
                               media=codec, suffix="webm", players=CONTAINER_PLAYERS["mkv"]))
    vp9 = ("-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0", "-deadline", "realtime", "-g", "48", "-c:a", "libopus")
    out.append(Job("reference-webm", "three cuts re-encoded by ffmpeg into WebM, VP9 (control)",
                   [Segment(e - s, (c, s), (c, s)) for c, s, e in THREE], make_reference(THREE, vp9), media="vp9", suffix="webm"))
    return out


WEBM_CLIPS = {clip: name.replace(".mp4", ".webm") for clip, name in CLIPS.items()}


def make_media(media: Path) -> None:
    for folder, codec in ((media, "h264"), (media / "hevc", "hevc"), (media / "vp9", "vp9"), (media / "av1", "av1")):
        folder.mkdir(parents=True, exist_ok=True)
        for clip, name in CLIPS.items():
            if codec in ("vp9", "av1"):
                if clip not in (1, 2, 3):
                    continue
                name = WEBM_CLIPS[clip]
            path = folder / name
            if not path.exists():
                make_clip(path, clip, sound=clip != 4, picture=clip not in (5, 6), codec=codec)
