"""The distributed export's row of the bench: splice.dask.export on one worker and on two
against a plain ``splice export``, all of 20 s of 1080p with ``--preset 1280x720``.

    make bench-dask        (BENCH_ROUNDS=n for more rounds; BENCH_CHUNK_SECONDS=s)

Both clusters — ``LocalCluster(n_workers=1 | 2, threads_per_worker=1)`` — are started before
the timer, and a warm-up round runs first (each worker loads the library and FFmpeg's once).
Then rounds alternate the three runs. Each task's encoder runs one thread (the workers'
``OMP_NUM_THREADS``, which Dask's nanny sets to 1), and each worker is pinned to a core of its
own (BENCH_PIN=0: not) — a task's decoder, scaler and encoder are threads of a pipeline that,
unpinned, spread over 1.4 cores, so "one worker" would not be one core's work; the plain
export leaves the encoder to count the cores and runs where the kernel puts it, as a user's
would. Wall time is the call's; CPU time is user + system of the
workers (each one's getrusage, before and after) and of this process (the scheduler, the
client, the join and the last export run here; the idle nannies are not counted); peak RSS is
each worker's (getrusage's maximum over the whole run). The plain export is a child process
measured by wait4. Medians are printed, with the goals of the issue: two workers at most 0.6×
one worker's wall time and 1.15× the plain export's.

Usage: dask_export.py <media directory> <splice CLI>
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import distributed

import splice
import splice.dask

PRESET = "1280x720"


def make_source(media: Path) -> Path:
    """The goals table's src.mp4 (Benchmarks/SpliceBench/Goals.swift makes the same)."""
    src = media / "src.mp4"
    if not src.exists():
        media.mkdir(parents=True, exist_ok=True)
        print("generating src.mp4 (once)…", flush=True)
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=s=1920x1080:r=25,noise=alls=2:allf=t", "-f", "lavfi", "-i", "sine=frequency=440",
                        "-t", "20", "-c:v", "libx264", "-c:a", "aac", "-b:a", "128k", str(src)], check=True)
    return src


def cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def worker_usage() -> tuple[float, int]:
    """On a worker: its CPU seconds so far and its peak RSS in bytes."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return cpu(usage), usage.ru_maxrss * 1024


def pin(cores: list[int]) -> None:
    """On a worker: every thread of the process (and so every thread it starts) on these cores."""
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), cores)
        except OSError:  # (a thread that has just ended)
            pass


def pin_workers(client: distributed.Client) -> None:
    """Worker i on core i: a worker of one task thread is one core's work, as on a cluster of
    one-core workers (its decoder, scaler and encoder are threads of a pipeline, which
    unpinned spread over more than one core)."""
    cores = sorted(os.sched_getaffinity(0))
    for i, address in enumerate(sorted(client.scheduler_info()["workers"])):
        client.run(pin, [cores[i % len(cores)]], workers=[address])


def plain(binary: str, src: Path, out: Path) -> dict[str, Any]:
    start = time.monotonic()
    process = subprocess.Popen([binary, "export", str(src), "-o", str(out), "--preset", PRESET, "--force", "--quiet"])
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        raise SystemExit(f"splice export failed ({status})")
    return {"wall": wall, "cpu": cpu(usage), "rss": [usage.ru_maxrss * 1024]}


def spread(client: distributed.Client, src: Path, out: Path, chunk_seconds: float) -> dict[str, Any]:
    before = client.run(worker_usage)
    here = cpu(resource.getrusage(resource.RUSAGE_SELF))
    start = time.monotonic()
    result = splice.dask.export(src, out, PRESET, client=client, chunk_seconds=chunk_seconds, force=True)
    wall = time.monotonic() - start
    here = cpu(resource.getrusage(resource.RUSAGE_SELF)) - here
    after = client.run(worker_usage)
    if not result["ok"]:
        raise SystemExit(f"splice.dask.export failed: {result}")
    workers = sum(after[w][0] - before[w][0] for w in after)
    return {"wall": wall, "cpu": workers + here, "rss": sorted(rss for _, rss in after.values()),
            "tasks": result["tasks"], "chunks": result["chunks"]}


def frames(path: Path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_packets", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    media, binary = Path(sys.argv[1]), sys.argv[2]
    rounds = max(1, int(os.environ.get("BENCH_ROUNDS", "3")))
    chunk_seconds = float(os.environ.get("BENCH_CHUNK_SECONDS", "10"))
    src = make_source(media)
    options = {"dashboard_address": ":0", "worker_dashboard_address": None, "threads_per_worker": 1}
    with tempfile.TemporaryDirectory(dir=media) as scratch, \
            distributed.LocalCluster(n_workers=1, **options) as one_cluster, distributed.Client(one_cluster) as one, \
            distributed.LocalCluster(n_workers=2, **options) as two_cluster, distributed.Client(two_cluster) as two:
        out = Path(scratch)
        if os.environ.get("BENCH_PIN", "1") != "0":
            pin_workers(one)
            pin_workers(two)
        runs: dict[str, list[dict[str, Any]]] = {"plain": [], "one": [], "two": []}
        for round_ in range(rounds + 1):
            measured = {"plain": plain(binary, src, out / "plain.mp4"),
                        "one": spread(one, src, out / "one.mp4", chunk_seconds),
                        "two": spread(two, src, out / "two.mp4", chunk_seconds)}
            counts = {name: frames(out / f"{name}.mp4") for name in measured}
            if len(set(counts.values())) != 1:
                raise SystemExit(f"the outputs' frame counts differ: {counts}")
            if round_ > 0:  # (the first is the warm-up)
                for name, m in measured.items():
                    runs[name].append(m)
            print(f"round {round_}{' (warm-up)' if round_ == 0 else ''}: "
                  + ", ".join(f"{n} {m['wall']:.2f} s" for n, m in measured.items()), flush=True)
    tasks, chunks = runs["two"][0]["tasks"], runs["two"][0]["chunks"]
    mb = 1 << 20
    print(f"\nsplice.dask.export of src.mp4 (20 s 1080p) --preset {PRESET}, chunks of {chunk_seconds:g} s "
          f"({chunks} chunks, {tasks} tasks), medians of {rounds} rounds, {counts['plain']} frames each\n")
    print("| run | wall s | CPU s | peak RSS |")
    print("|---|---|---|---|")
    labels = {"plain": "`splice export` (encoder's own thread count)",
              "one": "1 worker, encoder at 1 thread", "two": "2 workers, encoder at 1 thread each"}
    for name, label in labels.items():
        rss = " + ".join(f"{max(r['rss'][i] for r in runs[name]) / mb:.0f} MB" for i in range(len(runs[name][0]["rss"])))
        print(f"| {label} | {median(runs[name], 'wall'):.2f} | {median(runs[name], 'cpu'):.2f} | {rss} |")
    one_ratio = median(runs["two"], "wall") / median(runs["one"], "wall")
    plain_ratio = median(runs["two"], "wall") / median(runs["plain"], "wall")
    print(f"\ntwo workers: {one_ratio:.2f}× one worker's wall time (goal ≤ 0.6: {'met' if one_ratio <= 0.6 else 'not met'}), "
          f"{plain_ratio:.2f}× the plain export's (goal ≤ 1.15: {'met' if plain_ratio <= 1.15 else 'not met'})")


if __name__ == "__main__":
    main()
