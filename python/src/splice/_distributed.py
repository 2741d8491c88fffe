"""splice.dask.export: one export spread over a Dask cluster's workers (see its docstring)."""
# mypy: allow-untyped-calls

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional, Union

from distributed import Client, Event, Future, get_client, get_worker

import splice

from ._job import PathLike, SpliceError, Status
from .dask import failure, with_task_threads

#: The largest part of a source sent to a worker as bytes.
MAX_PART_BYTES = 1 << 30
#: The containers a distributed export writes (its pieces are MP4, joined losslessly).
CONTAINERS = (".mp4", ".m4v", ".mov")


@dataclass(frozen=True)
class Part:
    """One task's share: track ``track`` of the source from ``start`` to ``end`` (seconds as
    exact text; None: the track's start or end); ``chunk`` its place among the video's chunks,
    or None for a whole track."""

    index: int
    track: int
    start: Optional[str]
    end: Optional[str]
    seconds: float
    chunk: Optional[int]


def _text(t: Fraction) -> str:
    """A time as the command line takes it: nine decimals (a nanosecond; Splice rounds to 90 kHz)."""
    return f"{t.numerator / t.denominator:.9f}"


def _length(part: Part) -> str:
    """A chunk's exact length, as text."""
    return _text(Fraction(part.end or 0) - Fraction(part.start or 0))


def plan(info: dict[str, Any], chunk_seconds: float) -> list[Part]:
    """The parts of an export: the first enabled video track in chunks of about
    ``chunk_seconds`` whose bounds are frame times, then each other video and audio track whole."""
    tracks = [t for t in info["tracks"] if t["mediaType"] in ("video", "audio")]
    video = next((t for t in tracks if t["mediaType"] == "video" and t["enabled"]),
                 next((t for t in tracks if t["mediaType"] == "video"), None))
    parts: list[Part] = []
    if video is not None and video["sampleCount"] > 0 and video["timescale"] > 0:
        frames, scale = int(video["sampleCount"]), int(video["timescale"])
        # A constant frame rate: the frame duration in the track's ticks.
        tick = max(1, round(scale * float(video["duration"]) / frames))
        frame = Fraction(tick, scale)
        per_chunk = max(1, round(Fraction(chunk_seconds).limit_denominator(1_000_000) / frame))
        bounds = list(range(0, frames, per_chunk)) + [frames]
        for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
            parts.append(Part(len(parts), video["id"], None if a == 0 else _text(a * frame),
                              None if b == frames else _text(b * frame), float((b - a) * frame), i))
    for track in tracks:
        if video is None or track["id"] != video["id"]:
            parts.append(Part(len(parts), track["id"], None, None, float(track["duration"]), None))
    return parts


def _refuse_variable_rate(info: dict[str, Any], src: str) -> None:
    """Chunk bounds are multiples of one frame duration: a track whose frames are not all that
    long (its shortest frame times its frame count is not its duration) is refused by name."""
    for track in info["tracks"]:
        shortest, frames = track.get("minFrameDuration"), track.get("sampleCount") or 0
        if track["mediaType"] != "video" or not shortest or not frames:
            continue
        if abs(float(track["duration"]) - shortest * frames) > 1.5 * shortest:
            raise SpliceError(f"track {track['id']} has a variable frame rate ({frames} frames in {track['duration']:.3f} s, "
                              f"the shortest {shortest * 1000:.1f} ms): splice.dask.export cuts video of a constant frame "
                              "rate; export it with splice.export", Status.UNSUPPORTED, src)


def shares_disk(client: Client, paths: Sequence[PathLike]) -> bool:
    """Whether every worker sees ``paths`` as this machine does (see splice.dask.shares_disk)."""
    names = [os.path.abspath(os.fsdecode(p)) for p in paths]
    probe = os.path.join(os.path.dirname(names[0]), f".splice-probe-{uuid.uuid4().hex}")
    with open(probe, "w") as f:
        f.write(uuid.uuid4().hex)
    try:
        here = [_seen(p) for p in names + [probe]]
        there: dict[str, list[Any]] = client.run(_seen_all, names + [probe])
        return bool(there) and all(seen == here for seen in there.values())
    finally:
        os.unlink(probe)


def _seen(path: str) -> Any:
    try:
        s = os.stat(path)
    except OSError:
        return None
    if os.path.isdir(path):
        return "directory"
    return (s.st_size, s.st_mtime_ns)


def _seen_all(paths: list[str]) -> list[Any]:
    return [_seen(p) for p in paths]


# ------------------------------------------------------------------------------ on a worker


class _Stop(Exception):
    """The export was cancelled (its Event is set)."""


def encode_part(part: Part, source: Union[str, bytes], output: Optional[str], preset: str,
                overrides: dict[str, Any], topic: str, event: str) -> dict[str, Any]:
    """A task: exports ``part`` of ``source`` (a path, or the part's own bytes) with ``preset``
    into ``output`` (shared disk) or into bytes; tells its progress on ``topic``; stops when
    the Event ``event`` is set. Returns ``{"ok": True, "output": path | "data": bytes}`` or
    Splice's failure."""
    worker = get_worker()
    # (the progress callback runs on the job's helper thread: the event goes through the
    # worker's loop, the Event through the worker's client)
    stop, last = Event(event, client=get_client()), [0.0]

    def progress(fraction: float) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.25 or fraction >= 1:
            last[0] = now
            worker.loop.add_callback(worker.log_event, topic, {"part": part.index, "fraction": fraction})
            if stop.is_set():
                raise _Stop

    scratch = None
    try:
        options: dict[str, Any] = with_task_threads(dict(overrides, force=True))
        if isinstance(source, bytes):  # (the part's own file: its one track, its range)
            scratch = tempfile.mkdtemp(prefix="splice-part-", dir=worker.local_directory)
            path, out = os.path.join(scratch, "in.mp4"), os.path.join(scratch, "out.mp4")
            with open(path, "wb") as f:
                f.write(source)
            if part.end is not None:
                # (the cut's edit list ends at its end rounded up to the movie's timescale — a
                # millisecond — which would show a frame more: the range ends it exactly)
                options["range"] = "," + _length(part)
        else:
            path, out = source, output or ""
            options["tracks"] = [part.track]
            if part.start is not None or part.end is not None:
                options["range"] = f"{part.start or ''},{part.end or ''}"
        splice.export(path, out, preset, progress=progress, **options)
        if scratch is None:
            return {"ok": True, "output": out}
        with open(out, "rb") as encoded:
            return {"ok": True, "data": encoded.read()}
    except _Stop:
        return {"ok": False, "status": Status.CANCELLED.name, "message": "cancelled", "file": None}
    except SpliceError as error:
        return dict(failure(error), ok=False)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


# ------------------------------------------------------------------------------ on the client


class DistributedExport:
    """One run of splice.dask.export."""

    def __init__(self, client: Client, src: PathLike, dst: PathLike, preset: str, chunk_seconds: float,
                 shared_disk: Optional[bool], force: bool, overrides: dict[str, Any]):
        if not chunk_seconds > 0:
            raise ValueError(f"splice.dask.export: chunk_seconds is positive, not {chunk_seconds!r}")
        for refused in ("range", "cut", "encoded_tracks", "sync_to"):
            if refused in overrides:
                raise ValueError(f"splice.dask.export exports whole movies: {refused}= is not taken (trim first)")
        self.client, self.preset, self.force = client, preset, force
        self.src, self.dst = os.path.abspath(os.fsdecode(src)), os.path.abspath(os.fsdecode(dst))
        if os.path.splitext(self.dst)[1].lower() not in CONTAINERS:
            raise ValueError(f"splice.dask.export writes {', '.join(CONTAINERS)}; remux the result into other containers")
        if os.path.exists(self.dst) and not force:
            raise SpliceError(f"{self.dst}: the output exists (force=True replaces it)", Status.FILE_EXISTS, self.dst)
        self.overrides = overrides
        info = splice.inspect(self.src)
        _refuse_variable_rate(info, self.src)
        self.parts = plan(info, chunk_seconds)
        self.shared_disk = shared_disk
        self.key = uuid.uuid4().hex
        self.fractions = [0.0] * len(self.parts)
        self.lock = threading.Lock()

    def run(self, progress: Optional[Callable[[float], Any]], cancel: Optional[splice.CancelToken]) -> dict[str, Any]:
        started = time.monotonic()
        shared = self.shared_disk if self.shared_disk is not None else shares_disk(
            self.client, [self.src, os.path.dirname(self.dst)])
        scratch = tempfile.mkdtemp(prefix=f".{os.path.basename(self.dst)}.splice-", dir=os.path.dirname(self.dst))
        topic, event = f"splice-export-{self.key}", Event(f"splice-export-{self.key}", client=self.client)
        self.client.subscribe_topic(topic, self._on_event)
        futures: list[Future[dict[str, Any]]] = []
        try:
            futures = [self._submit(part, shared, scratch, topic, event.name) for part in self.parts]
            results = self._wait(futures, progress, cancel, event)
            outputs = self._collect(results, scratch)
            result = self._assemble(outputs, scratch)
            if progress is not None:
                progress(1.0)
            result.update(chunks=sum(p.chunk is not None for p in self.parts), tasks=len(self.parts),
                          shared_disk=shared, seconds=round(time.monotonic() - started, 3))
            return result
        except BaseException:
            event.set()
            self.client.cancel(futures)
            raise
        finally:
            self.client.unsubscribe_topic(topic)
            shutil.rmtree(scratch, ignore_errors=True)

    def _submit(self, part: Part, shared: bool, scratch: str, topic: str, event: str) -> Future[dict[str, Any]]:
        key = f"splice-export-{self.key}-{part.index}"
        if shared:
            output = os.path.join(scratch, f"part-{part.index}.mp4")
            return self.client.submit(encode_part, part, self.src, output, self.preset, self.overrides, topic,
                                      event, key=key, pure=False)
        data = self.client.scatter(self._cut(part, scratch), hash=False)
        return self.client.submit(encode_part, part, data, None, self.preset, self.overrides, topic, event,
                                  key=key, pure=False)

    def _cut(self, part: Part, scratch: str) -> bytes:
        """The part's share of the source, for a worker without the file: every packet from the
        sync sample before its start to its end, the rest hidden by the edit list (an exact cut)."""
        path = os.path.join(scratch, f"source-{part.index}.mp4")
        if part.start is None and part.end is None:
            splice.remux(self.src, path, tracks=[part.track], force=True)
        else:
            splice.export(self.src, path, "passthrough", range=f"{part.start or ''},{part.end or ''}", cut="exact",
                          tracks=[part.track], force=True)
        try:
            if os.path.getsize(path) > MAX_PART_BYTES:
                raise SpliceError(f"{self.src}: a part of {os.path.getsize(path) >> 20} MiB is too large to send to a "
                                  "worker (at most 1 GiB): make chunk_seconds smaller", Status.UNSUPPORTED, self.src)
            with open(path, "rb") as f:
                return f.read()
        finally:
            os.unlink(path)

    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        with self.lock:
            i = int(message["part"])
            self.fractions[i] = max(self.fractions[i], float(message["fraction"]))

    def _fraction(self) -> float:
        with self.lock:
            total = sum(p.seconds for p in self.parts) or 1.0
            return 0.98 * sum(p.seconds * f for p, f in zip(self.parts, self.fractions)) / total

    def _wait(self, futures: list[Future[dict[str, Any]]], progress: Optional[Callable[[float], Any]],
              cancel: Optional[splice.CancelToken], event: Event) -> list[dict[str, Any]]:
        told = -1.0
        while True:
            if cancel is not None and cancel.cancelled:
                raise SpliceError(f"{self.dst}: the export was cancelled", Status.CANCELLED, self.dst)
            for future in futures:
                if future.done():
                    result = future.result()  # raises what the task raised (a worker lost too often)
                    if not result["ok"] and result["status"] != Status.CANCELLED.name:
                        raise SpliceError(result["message"], Status[result["status"]], result["file"])
            fraction = self._fraction()
            if progress is not None and fraction > told:
                told = fraction
                progress(fraction)
            if all(f.done() for f in futures):
                return [f.result() for f in futures]
            time.sleep(0.05)

    def _collect(self, results: list[dict[str, Any]], scratch: str) -> list[str]:
        outputs = []
        for part, result in zip(self.parts, results):
            if "data" in result:
                path = os.path.join(scratch, f"part-{part.index}.mp4")
                with open(path, "wb") as f:
                    f.write(result["data"])
                outputs.append(path)
            else:
                outputs.append(result["output"])
        return outputs

    @staticmethod
    def _exact(part: Part, chunk: str) -> str:
        """A chunk by its exact length: its edit list ends at its end rounded to the movie's
        timescale (a millisecond), which would place the next chunk up to half a tick late.
        (With a variable frame rate a bound can fall inside a frame; a chunk whose duration is
        not its planned length within that rounding is joined as it is.)"""
        if part.end is None:
            return chunk
        length = _length(part)
        if abs(float(splice.inspect(chunk)["duration"]) - float(length)) > 0.0005:
            return chunk
        return f"{chunk}#t=0,{length}"

    def _assemble(self, outputs: list[str], scratch: str) -> dict[str, Any]:
        """The chunks joined into one track, then the movie written with the encoded tracks."""
        chunks = [self._exact(p, o) for p, o in zip(self.parts, outputs) if p.chunk is not None]
        encoded = [f"{p.track}={o}" for p, o in zip(self.parts, outputs) if p.chunk is None]
        if chunks:
            joined = os.path.join(scratch, "joined.mp4")
            if len(chunks) == 1:
                joined = chunks[0]
            else:
                splice.concat(chunks, joined, reencode="never", force=True)
            encoded.insert(0, f"{self.parts[0].track}={joined}")
        splice.export(self.src, self.dst, self.preset, encoded_tracks=encoded, force=self.force, **self.overrides)
        return {"job": "export", "source": self.src, "output": self.dst, "ok": True}
