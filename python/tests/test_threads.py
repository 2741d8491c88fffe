"""Jobs in parallel, interrupted, cancelled, and under asyncio."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import streamhash

import splice
from splice import SpliceError, Status


def test_four_remuxes_run_at_once(media, tmp_path):
    """Each job's first progress call waits at one barrier: it opens only when all four jobs are
    in flight at the same time (the GIL released while they run)."""
    barrier = threading.Barrier(4, timeout=30)

    def job(index: int) -> list[float]:
        seen: list[float] = []

        def progress(fraction: float) -> None:
            if not seen:
                barrier.wait()
            seen.append(fraction)

        splice.remux(media / "movie.mp4", tmp_path / f"copy-{index}.mp4", progress=progress)
        return seen

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(job, range(4)))
    assert not barrier.broken
    expected = streamhash(media / "movie.mp4")
    for index, seen in enumerate(results):
        assert seen[-1] == 1.0
        assert streamhash(tmp_path / f"copy-{index}.mp4") == expected


def test_keyboard_interrupt_in_a_callback_cancels(media, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    started = []

    def progress(fraction: float) -> None:
        if not started:
            started.append(time.monotonic())
        elif fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        splice.export(media / "long.mp4", out / "export.mp4", progress=progress)
    assert time.monotonic() - started[0] < 5
    assert os.listdir(out) == []
    splice.remux(media / "movie.mp4", out / "after.mp4")
    assert streamhash(out / "after.mp4") == streamhash(media / "movie.mp4")


def test_another_exception_in_a_callback_cancels_and_is_raised(media, tmp_path):
    def progress(fraction: float) -> None:
        raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        splice.export(media / "long.mp4", tmp_path / "export.mp4", progress=progress)
    assert os.listdir(tmp_path) == []


def test_sigint_cancels_an_export(media, tmp_path):
    """Ctrl-C: the process's own SIGINT, while the main thread waits for the job."""
    program = textwrap.dedent(f"""
        import os, sys, time
        import splice
        out = {str(tmp_path / "out")!r}
        os.mkdir(out)
        def progress(fraction):
            if fraction > 0 and not getattr(progress, "said", False):
                progress.said = True
                print("started", flush=True)
        try:
            splice.export({str(media / "long.mp4")!r}, out + "/export.mp4", progress=progress)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", sorted(os.listdir(out)), flush=True)
        splice.remux({str(media / "movie.mp4")!r}, out + "/after.mp4")
        print("remuxed", flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    line = child.stdout.readline().strip()
    elapsed = time.monotonic() - sent
    rest = child.stdout.read()
    assert child.wait(timeout=60) == 0
    assert line == "interrupted []" and elapsed < 5, (line, elapsed)
    assert rest.strip() == "remuxed"
    assert streamhash(tmp_path / "out" / "after.mp4") == streamhash(media / "movie.mp4")


def test_a_cancel_token(media, tmp_path):
    token = splice.CancelToken()
    timer = threading.Timer(0.5, token.cancel)
    timer.start()
    with pytest.raises(SpliceError) as caught:
        splice.export(media / "long.mp4", tmp_path / "export.mp4", cancel=token)
    assert caught.value.status == Status.CANCELLED and token.cancelled
    assert os.listdir(tmp_path) == []
    with pytest.raises(SpliceError) as caught:  # cancelled before it starts
        splice.remux(media / "movie.mp4", tmp_path / "copy.mp4", cancel=token)
    assert caught.value.status == Status.CANCELLED


def test_asyncio(media, tmp_path):
    async def main() -> list[float]:
        seen: list[float] = []
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.ensure_future(tick())
        await asyncio.gather(splice.aio.remux(media / "movie.mp4", tmp_path / "a.mp4", progress=seen.append),
                             splice.aio.trim(media / "movie.mp4", tmp_path / "b.mp4", 1, 3),
                             splice.aio.export(media / "movie.mp4", tmp_path / "c.mp4", "lowQuality"))
        info = await splice.aio.inspect(tmp_path / "b.mp4")
        assert abs(info["duration"] - 2) < 0.05
        # Cancelling the task cancels the job, and leaves nothing.
        (tmp_path / "cancelled").mkdir()
        task = asyncio.ensure_future(splice.aio.export(media / "long.mp4", tmp_path / "cancelled/x.mp4"))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert os.listdir(tmp_path / "cancelled") == []
        ticker.cancel()
        assert ticks > 20, "the loop was blocked"
        return seen

    seen = asyncio.run(main())
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert streamhash(tmp_path / "a.mp4") == streamhash(media / "movie.mp4")


def test_a_child_forked_after_splice_ran_gets_an_error_not_a_hang(media, tmp_path):
    splice.remux(media / "movie.mp4", tmp_path / "parent.mp4")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            splice.remux(media / "movie.mp4", tmp_path / "child.mp4")
            os.write(write, b"ran")
        except SpliceError as error:
            os.write(write, f"{int(error.status)} {error.message}".encode())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 30
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        time.sleep(0.05)
    said = os.read(read, 4096).decode()
    os.close(read)
    assert said.startswith(f"{int(Status.INVALID_OPERATION)} splice: this process was forked"), said
    assert not (tmp_path / "child.mp4").exists()
