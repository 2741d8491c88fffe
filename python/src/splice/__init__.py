"""Splice: read, inspect, remux, cut, join, mix and re-encode movies without losing their track
structure (alternate groups, track references, languages, enabled flags, edit lists).

Every function here runs one job of Splice's C library (libsplice.so) — the job the ``splice``
subcommand of the same name runs, with its defaults and checks. Paths are ``str``, ``bytes`` or
``os.PathLike``; times are seconds (``int``, ``float``, ``datetime.timedelta``) or
``"[hh:]mm:ss[.fff]"``. A job writes its output to a temporary file beside ``dst`` and renames
it into place only on success; it refuses an existing ``dst`` unless ``force=True``.

Each job takes, by keyword:

- ``progress``: called with a float in [0, 1], non-decreasing, the last call of a job that
  succeeds being exactly 1.0. It runs on a helper thread of the call while the job goes on (a
  slow callback is given the newest fraction next); what it raises (a ``KeyboardInterrupt``
  too) cancels the job and is raised by the call once the job has stopped and removed what it
  wrote.
- ``cancel``: a :class:`CancelToken` that cancels the job from any thread.
- ``sync``: flush the output to disk before it is put in place.

A failure raises :class:`SpliceError` (``message``, ``status``, ``file``). A ``KeyboardInterrupt``
while a call waits (Ctrl-C) cancels its job, waits for it to stop, and is raised again. Calls
release the GIL: jobs on several threads run in parallel. :mod:`splice.aio` has the same
functions for ``asyncio``. Splice's notes and warnings go to the ``logging`` logger ``"splice"``.
"""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any, Optional, Union

from . import _native
from ._job import CancelToken, Job, PathLike, Progress, SpliceError, Status, inspect_json

__all__ = ["CancelToken", "SpliceError", "Status", "__version__", "add_subtitles", "aio", "concat", "export",
           "extract_subtitles", "images", "inspect", "merge", "mix", "package", "remux", "thumbnail", "trim", "version"]

__version__ = "0.1.0"

for _public in (CancelToken, SpliceError, Status):
    _public.__module__ = __name__

Time = Union[int, float, str, datetime.timedelta]
Tracks = Union[str, int, Iterable[Union[str, int]], None]
Size = Union[str, tuple[int, int], None]


def version() -> str:
    """The version of the loaded C library, ``"MAJOR.MINOR.PATCH"``."""
    text: bytes = _native.lib.splice_version()
    return text.decode()


def inspect(path: PathLike) -> dict[str, Any]:
    """The movie at ``path`` described as ``splice inspect --json`` describes it: file, format,
    duration, and tracks with their alternate groups, references, languages, edits and
    samples."""
    return inspect_json(path)


def remux(src: PathLike, dst: PathLike, faststart: bool = False, progress: Optional[Progress] = None, *,
          tracks: Tracks = None, exclude_tracks: Tracks = None, verify: bool = False, salvage: bool = False,
          fragment: Union[bool, float, None] = None, cmaf: bool = False, sidx: bool = False, mfra: bool = False,
          force: bool = False, sync: bool = False, cancel: Optional[CancelToken] = None) -> None:
    """Copy ``src`` into ``dst`` losing nothing: every sample of every track byte for byte, and
    the track structure. The container is ``dst``'s extension (MP4, MOV, M4A and M4V natively;
    .mkv, .webm, .ts, … through libavformat).

    ``faststart`` puts the movie header first; ``tracks``/``exclude_tracks`` keep or leave out
    tracks by ID or media type (``[1, 3]``, ``"video,audio"``); ``verify`` reads the output back
    and compares every sample; ``salvage`` copies what a damaged MP4/MOV still holds. ``fragment``
    (seconds, or True for 2) writes fragmented MP4, ``cmaf`` CMAF, ``sidx`` and ``mfra`` their
    indexes."""
    _run("remux", [src], dst, progress, cancel, faststart=faststart, tracks=_list(tracks),
         exclude_tracks=_list(exclude_tracks), verify=verify, salvage=salvage, fragment=fragment, cmaf=cmaf,
         sidx=sidx, mfra=mfra, force=force, sync=sync)


def add_subtitles(src: PathLike, subtitle_paths: Union[PathLike, Sequence[PathLike]], dst: PathLike,
                  language: Optional[str] = None, *, name: Optional[str] = None, forced: bool = False,
                  default: bool = False, format: Optional[str] = None, encoding: Optional[str] = None,
                  keep_late_cues: bool = False, tracks: Tracks = None, exclude_tracks: Tracks = None,
                  force: bool = False, sync: bool = False, progress: Optional[Progress] = None,
                  cancel: Optional[CancelToken] = None) -> None:
    """Copy ``src`` losslessly into ``dst`` with one subtitle track added per SRT, WebVTT or
    ASS/SSA file, in the movie's subtitle group. ``language`` is ISO 639 or BCP 47 (default:
    from each file's name, else ``und``); ``format`` is ``"tx3g"`` (default) or ``"wvtt"`` in
    MP4/MOV; ``default`` enables the new track."""
    subtitles = [subtitle_paths] if isinstance(subtitle_paths, (str, bytes, os.PathLike)) else list(subtitle_paths)
    _run("add_subtitles", [src, *subtitles], dst, progress, cancel, language=language, name=name,
         forced=forced, default=default, format=format, encoding=encoding, keep_late_cues=keep_late_cues,
         tracks=_list(tracks), exclude_tracks=_list(exclude_tracks), force=force, sync=sync)


def extract_subtitles(src: PathLike, dst: PathLike, track: Optional[int] = None, *, force: bool = False,
                      progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Write a text subtitle track of ``src`` (default: the first) as SRT, WebVTT or ASS, as
    ``dst``'s extension says."""
    _run("extract_subtitles", [src], dst, progress, cancel, track=track, force=force)


def export(src: PathLike, dst: PathLike, preset: str = "mediumQuality", *, progress: Optional[Progress] = None,
           cancel: Optional[CancelToken] = None, **overrides: Any) -> None:
    """Re-encode ``src`` into ``dst`` with one of AVFoundation's export presets, keeping its
    structure. ``overrides`` are ``splice export``'s options with underscores for dashes:
    ``range=(2, 5)``, ``cut="smart"``, ``video_codec="hevc"``, ``crf=20``, ``tone_map="hable"``, ``threads=1``, ``audio_codec="opus"``,
    ``audio_bitrate="96k"``, ``watermark=path``, ``position``, ``faststart=True``,
    ``tracks``, ``force=True``, ``sync=True``…"""
    options = {key: _value(value) for key, value in overrides.items()}
    if "range" in overrides and isinstance(overrides["range"], (tuple, list)):
        options["range"] = _range(*overrides["range"])
    _run("export", [src], dst, progress, cancel, preset=preset, **options)


def trim(src: PathLike, dst: PathLike, start: Optional[Time], end: Optional[Time], cut: Optional[str] = None, *,
         faststart: bool = False, force: bool = False, sync: bool = False, progress: Optional[Progress] = None,
         cancel: Optional[CancelToken] = None) -> None:
    """Cut ``start``–``end`` of ``src`` into ``dst``, frame-exact (None: from the start, to the
    end; not both). ``cut`` is ``"smart"`` (the
    partial GOPs re-encoded, the rest copied; plays right everywhere), ``"exact"`` (MP4/MOV:
    every packet copied, the rest hidden by the edit list) or ``"keyframe"``; None is the
    command's default (smart, falling back where it cannot be)."""
    if start is None and end is None:
        raise ValueError("splice.trim: give start, end or both")
    _run("trim", [src], dst, progress, cancel, range=_range(start, end), cut=cut, faststart=faststart,
         force=force, sync=sync)


Clip = Union[PathLike, tuple[PathLike, Optional[Time], Optional[Time]]]


def concat(clips: Sequence[Clip], dst: PathLike, cut: Optional[str] = None, *, reencode: Optional[str] = None,
           preset: Optional[str] = None, audio_only: bool = False, all_tracks: bool = False,
           crossfade: Optional[float] = None, faststart: bool = False, force: bool = False, sync: bool = False,
           progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Join ``clips`` one after the other into ``dst``. A clip is a path or ``(path, start,
    end)`` (``start`` or ``end`` None: from the start, to the end). ``cut`` as in :func:`trim`;
    ``reencode`` is ``"auto"`` (default), ``"never"`` or ``"always"``."""
    inputs: list[PathLike] = []
    for clip in clips:
        if isinstance(clip, tuple):
            if len(clip) != 3:
                raise ValueError(f"splice.concat: a clip is a path or (path, start, end), not {clip!r}")
            path, start, end = clip
            if start is None and end is None:
                raise ValueError(f"splice.concat: {clip!r} has neither start nor end")
            inputs.append(os.fsdecode(path) + "#t=" + ("" if start is None else _time(start)) +
                          ("" if end is None else "," + _time(end)))
        else:
            inputs.append(clip)
    _run("concat", inputs, dst, progress, cancel, cut=cut, reencode=reencode, preset=preset,
         audio_only=audio_only, all_tracks=all_tracks, crossfade=crossfade, faststart=faststart,
         force=force, sync=sync)


def merge(video: PathLike, audio: PathLike, dst: PathLike, *, keep_original_audio: bool = False,
          cut: Optional[str] = None, preset: Optional[str] = None, faststart: bool = False, force: bool = False,
          sync: bool = False, progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Put the first audio track of ``audio`` under the video of ``video``, cut to the video's
    duration; copied when ``dst``'s container holds its codec, else encoded as AAC.
    ``keep_original_audio`` keeps the video's own sound as a disabled alternate."""
    _run("merge", [video, audio], dst, progress, cancel, keep_original_audio=keep_original_audio, cut=cut,
         preset=preset, faststart=faststart, force=force, sync=sync)


def mix(video: PathLike, music: PathLike, dst: PathLike, music_volume: float = 0.5, *,
        original_volume: Optional[float] = None, at: Optional[Time] = None, fade_in: Optional[float] = None,
        fade_out: Optional[float] = None, loop: bool = False, audio_codec: Optional[str] = None,
        audio_bitrate: Optional[str] = None, faststart: bool = False, force: bool = False, sync: bool = False,
        progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Mix ``music`` under ``video``'s own sound: the music at ``music_volume``, the original at
    ``original_volume`` (default 1 − ``music_volume``), from ``at``, with linear fades; the video
    and every other track copied."""
    _run("mix", [video, music], dst, progress, cancel, music_volume=music_volume, original_volume=original_volume,
         at=None if at is None else _time(at), fade_in=fade_in, fade_out=fade_out, loop=loop,
         audio_codec=audio_codec, audio_bitrate=audio_bitrate, faststart=faststart, force=force, sync=sync)


def images(paths: Sequence[PathLike], dst: PathLike, *, fps: Optional[float] = None,
           seconds_per_image: Optional[float] = None, size: Size = None, audio: Optional[PathLike] = None,
           crossfade: Optional[float] = None, preset: Optional[str] = None, faststart: bool = False,
           force: bool = False, sync: bool = False, progress: Optional[Progress] = None,
           cancel: Optional[CancelToken] = None) -> None:
    """A video of still images (PNG, JPEG, WebP, BMP, TIFF), each shown ``seconds_per_image``
    (default 3) at ``fps`` (default 30), fitted into ``size`` (default the first image's), with
    an optional ``crossfade`` and ``audio`` soundtrack."""
    _run("images", list(paths), dst, progress, cancel, fps=fps, seconds_per_image=seconds_per_image,
         size=_size(size), audio=audio, crossfade=crossfade, preset=preset, faststart=faststart, force=force,
         sync=sync)


def thumbnail(src: PathLike, times: Union[Time, Sequence[Time]], dst: PathLike, *, size: Size = None,
              force: bool = False, progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Write the frames shown at ``times`` as PNG or JPEG images; with several times ``dst`` is a
    pattern with ``%d`` (1, 2, …). ``size`` is the largest size, ``"320x240"`` or ``(320, 240)``."""
    at = [times] if isinstance(times, (int, float, str, datetime.timedelta)) else list(times)
    _run("thumbnail", [src], dst, progress, cancel, at=[_time(t) for t in at], size=_size(size), force=force)


def package(inputs: Union[PathLike, Sequence[PathLike]], directory: PathLike, *, hls: bool = True, dash: bool = True,
            segment: Optional[float] = None, single_file: bool = False, force: bool = False,
            progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> None:
    """Package ``inputs`` (renditions of one movie) for streaming into ``directory``: CMAF
    segments (or with ``single_file`` one file per track, addressed by byte ranges) under
    ``master.m3u8`` (``hls``) and ``manifest.mpd`` (``dash``); a segment starts at the first sync
    sample at least ``segment`` seconds (default 6) after the last. The directory appears whole
    or not at all."""
    if not hls and not dash:
        raise ValueError("splice.package: hls and dash are both False; nothing to write")
    paths = [inputs] if isinstance(inputs, (str, bytes, os.PathLike)) else list(inputs)
    both = hls and dash
    _run("package", paths, directory, progress, cancel, hls=hls and not both, dash=dash and not both, segment=segment,
         single_file=single_file, force=force)


def _run(job: str, inputs: Sequence[PathLike], dst: PathLike, progress: Optional[Progress],
         cancel: Optional[CancelToken], /, **options: Any) -> None:
    Job(job, inputs, dst, {key.replace("_", "-"): _value(value) for key, value in options.items()},
        progress, cancel).run()


def _value(value: Any) -> Any:
    """An option's value as the options JSON takes it."""
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return _time(value)
    if isinstance(value, datetime.timedelta):
        return _time(value)
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    if isinstance(value, (list, tuple)):
        return [_value(item) for item in value]
    raise TypeError(f"splice: an option's value is a bool, number, string, path or list, not {value!r}")


def _list(tracks: Tracks) -> Union[str, int, list[Union[str, int]], None]:
    if tracks is None or isinstance(tracks, (str, int)):
        return tracks
    return list(tracks)


def _time(t: Time) -> str:
    """A time as the command line takes it."""
    if isinstance(t, datetime.timedelta):
        t = t.total_seconds()
    if isinstance(t, str):
        return t
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise TypeError(f"splice: a time is seconds or '[hh:]mm:ss[.fff]', not {t!r}")
    if not math.isfinite(t) or t < 0:
        raise ValueError(f"splice: a time is finite and not negative, not {t!r}")
    return repr(t) if isinstance(t, float) else str(t)


def _range(start: Optional[Time], end: Optional[Time]) -> str:
    return ("" if start is None else _time(start)) + "," + ("" if end is None else _time(end))


def _size(size: Size) -> Optional[str]:
    if size is None or isinstance(size, str):
        return size
    width, height = size
    return f"{int(width)}x{int(height)}"


from . import aio  # noqa: E402 — splice.aio wraps the functions above
