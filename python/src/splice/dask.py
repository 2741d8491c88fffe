"""Splice's jobs on a Dask cluster (``distributed``): a batch of files as futures.

Each job runs on a worker as :func:`run`, whose result is a plain ``dict`` — a failure too,
with Splice's message — so one damaged file never stops a batch::

    from distributed import Client, LocalCluster
    import splice.dask

    if __name__ == "__main__":  # (the workers are new processes that import the script)
        with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
            splice.dask.check_workers(client)
            futures = splice.dask.folder(client, "remux", "in", "out", faststart=True)
            for result in splice.dask.results(futures):
                print(result["source"], result["ok"], result["message"])

The same code runs on any cluster Dask runs on (Kubernetes, SLURM, YARN, …), with the inputs
and outputs at the same paths on every worker (a shared file system).

Retries. Dask runs a task again on another worker when its worker is lost. Outputs are atomic
(written to an unnamed temporary file, linked into place on success), so a lost worker leaves
nothing half-written. A retried task finds either no output (it writes it) or the output the
lost attempt finished (it keeps it, and says ``"written_by": "an earlier attempt"``): when a task
is submitted, the identity of what is at its output (device, inode, size, modification time,
or nothing) is recorded, and an output whose identity differs from that when the task runs was
written by an earlier attempt of the task. So no output is written twice, even with
``force=True`` (which replaces only the file that was there when the task was submitted).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Optional

import splice

from ._job import PathLike, SpliceError, Status

try:
    from distributed import Client, Future, WorkerPlugin, get_worker
except ImportError as error:  # pragma: no cover — said once, plainly
    raise ImportError("splice.dask needs Dask's distributed package: pip install 'splice[dask]'") from error

__all__ = ["VersionCheck", "check_workers", "export", "folder", "results", "run", "shares_disk", "submit"]

#: The jobs a batch runs: those taking one source and one output.
JOBS = ("remux", "add_subtitles", "export", "extract_subtitles", "trim", "thumbnail")
MOVIES = (".mp4", ".mov", ".m4v", ".m4a", ".mkv", ".webm", ".ts", ".avi", ".flv")
SUBTITLES = (".srt", ".vtt", ".ass", ".ssa")

Identity = Optional[tuple[int, int, int, int]]
Result = dict[str, Any]


def identity(path: PathLike) -> Identity:
    """What is at ``path``: (device, inode, size, modification time in ns), or None."""
    try:
        s = os.stat(path)
    except FileNotFoundError:
        return None
    return (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns)


def run(job: str, src: PathLike, dst: PathLike, *args: Any, found_at_submit: Identity = None,
        progress: Optional[Callable[[float], Any]] = None, **options: Any) -> dict[str, Any]:
    """Runs ``splice.<job>(src, *args, dst, **options)`` (``add_subtitles`` takes its subtitle
    files in ``args``) where it is called — on a worker — and describes how it went: ``job``,
    ``source``, ``output``, ``ok``, ``status`` (a :class:`splice.Status` name), ``message`` and
    ``file`` (Splice's, on failure), ``written_by`` (``"this attempt"`` or ``"an earlier
    attempt"``), ``seconds``, ``worker`` and ``pid``. Never raises for a SpliceError.

    ``found_at_submit``: the identity of what was at ``dst`` when the task was submitted (see
    the module's note on retries)."""
    if job not in JOBS:
        raise ValueError(f"splice.dask: {job!r} is not one of {', '.join(JOBS)}")
    result: dict[str, Any] = {"job": job, "source": os.fsdecode(src), "output": os.fsdecode(dst), "ok": False,
                              "status": Status.OK.name, "message": None, "file": None, "written_by": None,
                              "seconds": 0.0, "worker": _worker_address(), "pid": os.getpid()}
    now = identity(dst)
    if now is not None and now != found_at_submit:
        result.update(ok=True, written_by="an earlier attempt")
        return result
    start = time.monotonic()
    if job == "export":
        options = with_task_threads(options)
    try:
        function = getattr(splice, job)
        if job == "add_subtitles":
            function(src, list(args), dst, progress=progress, **options)
        else:
            function(src, dst, *args, progress=progress, **options)
        result.update(ok=True, written_by="this attempt")
    except SpliceError as error:
        result.update(failure(error))
    result["seconds"] = round(time.monotonic() - start, 3)
    return result


def failure(error: SpliceError) -> dict[str, Any]:
    """A SpliceError as a result's ``status``, ``message`` and ``file``."""
    status = error.status.name if isinstance(error.status, Status) else str(error.status)
    return {"status": status, "message": error.message, "file": error.file}


def with_task_threads(options: dict[str, Any]) -> dict[str, Any]:
    """An export's options with ``threads`` set from ``OMP_NUM_THREADS`` when the caller set none:
    what a Dask worker's nanny sets for the native code of its tasks (1 by default, for a worker
    that runs a task per thread). Without it the encoder counts the machine's cores, and every
    task of a busy worker would start that many threads."""
    given = os.environ.get("OMP_NUM_THREADS", "")
    if "threads" in options or not given.isdigit() or int(given) < 1:
        return options
    return dict(options, threads=int(given))


def submit(client: Client, job: str, src: PathLike, dst: PathLike, *args: Any, **options: Any) -> Future[Result]:
    """:func:`run` as a Dask future, its key naming the job and the output (so that the same
    job submitted twice is one task)."""
    key = f"splice-{job}-{os.fsdecode(dst)}"
    return client.submit(run, job, os.fsdecode(src), os.fsdecode(dst), *args, key=key, pure=False,
                         found_at_submit=identity(dst), **options)


def folder(client: Client, job: str, source: PathLike, destination: PathLike, *,
           extension: Optional[str] = None, **options: Any) -> list[Future[Result]]:
    """One task per movie in ``source`` (by extension: .mp4, .mov, .mkv, …), writing into
    ``destination`` (made if missing) under the same name, or with ``extension`` (".mkv").
    For ``add_subtitles`` each movie's subtitle files are those beside it named after it
    (``film.es.srt``, ``film.fr.vtt`` for ``film.mp4``); a movie without any is left out."""
    source, destination = Path(os.fsdecode(source)), Path(os.fsdecode(destination))
    destination.mkdir(parents=True, exist_ok=True)
    futures: list[Future[Result]] = []
    for movie in sorted(p for p in source.iterdir() if p.suffix.lower() in MOVIES and p.is_file()):
        output = destination / (movie.stem + extension if extension else movie.name)
        args: Sequence[Path] = ()
        if job == "add_subtitles":
            args = _sidecars(movie)
            if not args:
                continue
        futures.append(submit(client, job, movie, output, *args, **options))
    return futures


def _sidecars(movie: Path) -> list[Path]:
    return sorted(p for p in movie.parent.iterdir()
                  if p.suffix.lower() in SUBTITLES and p.name.startswith(movie.stem + "."))


class VersionCheck(WorkerPlugin):
    """Refuses a worker whose Splice library is not the client's version (registered by
    :func:`check_workers`; runs on every worker, now and as workers join)."""

    name = "splice-version"

    def __init__(self, version: str):
        self.version = version

    def setup(self, worker: Any) -> None:
        import splice as worker_splice

        found = worker_splice.version()
        if found != self.version:
            raise RuntimeError(f"splice on worker {worker.address}: library {found} "
                               f"({worker_splice._native.path}), the client's is {self.version}")


def check_workers(client: Client) -> dict[str, str]:
    """Registers :class:`VersionCheck` with the cluster (raises when a worker's Splice is not the
    client's version), and returns each worker's library version by address."""
    client.register_plugin(VersionCheck(splice.version()))
    versions: dict[str, str] = client.run(splice.version)
    return versions


def _worker_address() -> Optional[str]:
    try:
        address: str = get_worker().address
        return address
    except ValueError:
        return None


def results(futures: Iterable[Future[Result]]) -> list[Result]:
    """The futures' results, in order."""
    return [future.result() for future in futures]


# ---------------------------------------------------------------------------------------------
# One long export spread over workers.


def export(src: PathLike, dst: PathLike, preset: str = "mediumQuality", *, client: Client,
           chunk_seconds: float = 60.0, shared_disk: Optional[bool] = None,
           progress: Optional[Callable[[float], Any]] = None, cancel: Optional[splice.CancelToken] = None,
           force: bool = False, **overrides: Any) -> dict[str, Any]:
    """``splice.export(src, dst, preset, **overrides)``, its video encoded in pieces on the
    cluster's workers.

    The first enabled video track is cut into chunks of about ``chunk_seconds`` at frame times
    (a chunk may start at any frame); each chunk is a task that exports that part with the
    preset's settings, decoding from the sync sample before it and starting its encode with a
    sync sample. Every other video and audio track is a task of its own, encoded once, whole
    (or copied where the preset copies it). The chunks are joined by Splice's lossless concat
    into one track with one sample description, and a last export on this machine writes the
    movie as a local export does — groups, languages, subtitle tracks, chapters, metadata —
    with the encoded tracks in their places (``--encoded-tracks``). Each task's encoder runs
    ``threads`` threads when given, else the worker's ``OMP_NUM_THREADS`` (which Dask's nanny
    sets to 1: a worker runs a task per thread), else as many as the encoder picks.

    ``shared_disk``: whether the workers see ``src`` and ``dst``'s directory at the same paths;
    None finds out (see :func:`shares_disk`). Without a shared disk each chunk's part of the
    source travels to its worker as bytes (an exact cut: the GOP before it and the frames it
    shows), and the encoded chunk comes back as bytes; a part may be at most 1 GiB.

    ``progress`` gets the fraction done, summed over the tasks by the media time each has
    encoded (told through Dask's events, ``Worker.log_event``), on the calling thread.
    ``cancel`` (or Ctrl-C while this waits) sets a ``distributed.Event`` that every task's
    progress callback polls: the tasks stop, and nothing is left. A task whose worker is lost is
    run again by Dask; one that fails for a reason in the file fails the export with Splice's
    message. Returns the result of the last export as :func:`run` describes it, with
    ``chunks``, ``tasks`` and ``shared_disk``."""
    from ._distributed import DistributedExport

    return DistributedExport(client, src, dst, preset, chunk_seconds, shared_disk, force, overrides).run(progress, cancel)


def shares_disk(client: Client, paths: Sequence[PathLike]) -> bool:
    """Whether every worker sees these files as this machine does: the same size and
    modification time at the same path (a file written here for the purpose, in the first
    path's directory, proves a directory)."""
    from ._distributed import shares_disk as check

    return check(client, paths)
