"""Batches on a Dask LocalCluster: results per file, a damaged file reported, a killed worker."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time

import pytest
from conftest import probe, streamhash, streams

distributed = pytest.importorskip("distributed")
import cloudpickle  # noqa: E402 — comes with distributed

import splice  # noqa: E402
import splice.dask  # noqa: E402

# The hooks below run on the workers, which cannot import this module: sent by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_every_worker_has_the_clients_library(client):
    versions = splice.dask.check_workers(client)
    assert len(versions) == 2 and set(versions.values()) == {splice.version()}
    try:
        with pytest.raises(Exception, match="the client's is 9.9.9"):
            client.register_plugin(splice.dask.VersionCheck("9.9.9"), name="splice-version-test")
    finally:
        client.unregister_worker_plugin("splice-version-test")


def test_a_folder_with_a_damaged_file(client, media, tmp_path):
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    for i in range(11):
        shutil.copy(media / ("movie.mp4" if i % 2 else "long.mp4"), source / f"film-{i:02d}.mp4")
    (source / "film-99.mp4").write_bytes((media / "movie.mp4").read_bytes()[:5000])
    (source / "notes.txt").write_text("not a movie")
    results = splice.dask.results(splice.dask.folder(client, "remux", source, out, faststart=True))
    assert len(results) == 12
    by_name = {os.path.basename(r["source"]): r for r in results}
    damaged = by_name.pop("film-99.mp4")
    assert not damaged["ok"] and damaged["status"] in ("INVALID_DATA", "TRUNCATED")
    assert str(source / "film-99.mp4") in damaged["message"] and damaged["file"] == str(source / "film-99.mp4")
    for name, result in by_name.items():
        assert result["ok"] and result["written_by"] == "this attempt", result
        assert streamhash(out / name) == streamhash(source / name)
    assert len({r["worker"] for r in results}) == 2, "both workers took tasks"
    assert sorted(os.listdir(out)) == sorted(by_name)
    # The same batch again: each output exists, and is kept.
    again = splice.dask.results(splice.dask.folder(client, "remux", source, out))
    assert {r["status"] for r in again if os.path.basename(r["source"]) != "film-99.mp4"} == {"FILE_EXISTS"}


def test_add_subtitles_and_export_a_folder(client, media, tmp_path):
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    for name in ("a", "b"):
        shutil.copy(media / "movie.mp4", source / f"{name}.mp4")
    shutil.copy(media / "es.srt", source / "a.es.srt")
    results = splice.dask.results(splice.dask.folder(client, "add_subtitles", source, out))
    assert [(os.path.basename(r["output"]), r["ok"]) for r in results] == [("a.mp4", True)]
    languages = [s["tags"]["language"] for s in streams(out / "a.mp4") if s["codec_type"] == "subtitle"]
    assert languages == ["eng", "spa"]
    results = splice.dask.results(splice.dask.folder(client, "export", source, out, extension=".mkv",
                                                             preset="lowQuality", exclude_tracks="subtitle"))
    assert all(r["ok"] for r in results) and sorted(os.listdir(out)) == ["a.mkv", "a.mp4", "b.mkv"]


def stall_first_attempt(marker: str):
    """A progress hook: the first attempt writes its worker's PID at its first call."""
    def progress(fraction: float) -> None:
        if not os.path.exists(marker):
            with open(marker + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(marker + ".tmp", marker)
    return progress


def test_a_worker_killed_mid_task_is_retried_and_the_output_is_whole(client, media, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    marker = str(tmp_path / "pid")
    # An export of 30 s (seconds of work): the worker is killed early in it.
    future = splice.dask.submit(client, "export", media / "long.mp4", out / "long.mp4", "lowQuality",
                                progress=stall_first_attempt(marker))
    deadline = time.monotonic() + 60
    while not os.path.exists(marker):
        assert time.monotonic() < deadline, "the task never started"
        time.sleep(0.05)
    killed = int(open(marker).read())
    os.kill(killed, signal.SIGKILL)
    result = future.result(timeout=120)
    assert result["ok"] and result["pid"] != killed, result
    assert result["written_by"] == "this attempt"
    info = probe(out / "long.mp4", "-count_frames")
    assert [s["nb_read_frames"] for s in info["streams"]][0] == "900"
    assert abs(float(info["format"]["duration"]) - 30) < 0.1
    assert os.listdir(out) == ["long.mp4"]
    client.wait_for_workers(2, timeout=60)
