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


# ------------------------------------------------------------------------------ splice.dask.export

import re  # noqa: E402
import subprocess  # noqa: E402


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """640x360, 20 s at 25 fps, a sync sample every 2 s; English AAC above mediumQuality's rate
    (encoded) and a disabled French one in its group; Spanish subtitles."""
    d = tmp_path_factory.mktemp("film")
    (d / "es.srt").write_text("1\n00:00:01,000 --> 00:00:05,000\nHola\n")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=20",
                    "-f", "lavfi", "-i", "sine=f=440:d=20", "-f", "lavfi", "-i", "sine=f=660:d=20", "-i", str(d / "es.srt"),
                    "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-preset", "veryfast", "-g", "50",
                    "-c:a", "aac", "-b:a", "256k", "-c:s", "mov_text", "-metadata:s:a:0", "language=eng",
                    "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=spa", "-disposition:a:1", "0",
                    str(d / "film.mp4")], check=True)
    splice.export(d / "film.mp4", d / "local.mp4", "mediumQuality")
    return d


def frame_times(path) -> list[str]:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                          "-of", "csv=p=0", str(path)], check=True, capture_output=True, text=True).stdout
    return [line.split(",")[0] for line in out.split()]


def ssim_per_frame(path, reference) -> list[float]:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-i", str(reference), "-lavfi",
                          "[0:v][1:v]ssim=stats_file=-", "-f", "null", "-"], check=True, capture_output=True, text=True).stdout
    return [float(m) for m in re.findall(r"All:([\d.]+)", out)]


def gray(path) -> list[bytes]:
    data = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-vf", "scale=160:90,format=gray",
                           "-f", "rawvideo", "-"], check=True, capture_output=True).stdout
    return [data[i:i + 14400] for i in range(0, len(data), 14400)]


def audio_hash(path) -> list[str]:
    return [h for h in streamhash(path) if ",a," in h]


@pytest.mark.parametrize("shared", [None, False], ids=["shared-disk", "bytes-only"])
def test_a_distributed_export_is_the_local_one(client, film, tmp_path, shared):
    out, seen = tmp_path / "distributed.mp4", []
    result = splice.dask.export(film / "film.mp4", out, "mediumQuality", client=client, chunk_seconds=4.2,
                                shared_disk=shared, progress=seen.append)
    assert result["ok"] and result["chunks"] == 5 and result["tasks"] == 7, result
    assert result["shared_disk"] is (shared is None)
    assert seen == sorted(seen) and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert os.listdir(tmp_path) == ["distributed.mp4"]
    local = film / "local.mp4"
    # Frames, their times, the duration; one sample description; the sound bit for bit.
    assert frame_times(out) == frame_times(local) and len(frame_times(out)) == 500
    assert probe(out)["format"]["duration"] == probe(local)["format"]["duration"]
    data = out.read_bytes()
    data = data[data.index(b"moov"):]
    assert data.count(b"avc1") == 1 and int.from_bytes(data[data.index(b"stsd") + 8:data.index(b"stsd") + 12], "big") == 1
    assert audio_hash(out) == audio_hash(local)
    # Each chunk's x264 ran one thread: the worker's OMP_NUM_THREADS, set by Dask's nanny.
    whole = out.read_bytes()
    seis, at = [], whole.find(b"x264 - core")
    while at >= 0:
        seis.append(whole[at:at + 2000])
        at = whole.find(b"x264 - core", at + 1)
    assert len(seis) >= 5 and all(b" threads=1 lookahead_threads=1 " in s for s in seis), seis[:1]
    # The structure of a local export.
    mine, theirs = splice.inspect(out), splice.inspect(local)
    keys = ["mediaType", "language", "enabled", "alternateGroup", "codec", "sampleCount", "associations"]
    assert [[t[k] for k in keys] for t in mine["tracks"]] == [[t[k] for k in keys] for t in theirs["tracks"]]
    assert mine["groups"] == theirs["groups"]
    # Quality: as the local export's, frame by frame.
    distributed, single = ssim_per_frame(out, film / "film.mp4"), ssim_per_frame(local, film / "film.mp4")
    assert len(distributed) == len(single) == 500
    assert abs(sum(distributed) / 500 - sum(single) / 500) < 0.002
    assert all(d > s - 0.01 for d, s in zip(distributed, single))
    # Around each join (frames 105, 210, 315, 420) each frame is its own time's.
    shown, source = gray(out), gray(film / "film.mp4")
    for join in (105, 210, 315, 420):
        for t in range(join - 3, join + 3):
            errors = {j: sum((a - b) ** 2 for a, b in zip(shown[t], source[j])) for j in range(t - 2, t + 3)}
            assert min(errors, key=errors.get) == t, (join, t, errors)


def test_plays_in_ffmpeg_gstreamer_and_mpv(client, film, tmp_path):
    out = tmp_path / "distributed.mp4"
    splice.dask.export(film / "film.mp4", out, "mediumQuality", client=client, chunk_seconds=4.2)
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-xerror", "-i", str(out), "-map", "0:v", "-f", "null", "-"],
                             capture_output=True, text=True)
    assert decoded.returncode == 0 and decoded.stderr == ""
    gst = subprocess.run(["gst-launch-1.0", "-v", "filesrc", f"location={out}", "!", "qtdemux", "!", "h264parse", "!",
                          "avdec_h264", "!", "identity", "name=frames", "silent=false", "!", "fakesink"],
                         capture_output=True, text=True, timeout=120)
    assert gst.returncode == 0 and gst.stdout.count("chain   ******* (frames:sink)") == 500, gst.stderr[-500:]
    shown = tmp_path / "mpv"
    shown.mkdir()
    mpv = subprocess.run(["mpv", "--no-config", "--untimed", "--no-audio", "--ao=null", "--vf=scale=32:18", "--vo=image",
                          "--vo-image-format=png", f"--vo-image-outdir={shown}", str(out)], capture_output=True, text=True, timeout=120)
    assert mpv.returncode == 0 and len(os.listdir(shown)) == 500, mpv.stdout[-500:]


def test_a_failing_or_cancelled_distributed_export_leaves_nothing(client, film, tmp_path):
    with pytest.raises(splice.SpliceError) as caught:
        splice.dask.export(film / "film.mp4", tmp_path / "bad.mp4", "mediumQuality", client=client, chunk_seconds=4.2,
                           crf=99)
    assert caught.value.status == splice.Status.USAGE and "--crf" in caught.value.message
    token = splice.CancelToken()

    def progress(fraction: float) -> None:
        if fraction > 0:
            token.cancel()

    with pytest.raises(splice.SpliceError) as caught:
        splice.dask.export(film / "film.mp4", tmp_path / "cancelled.mp4", "mediumQuality", client=client,
                           chunk_seconds=4.2, progress=progress, cancel=token)
    assert caught.value.status == splice.Status.CANCELLED
    assert os.listdir(tmp_path) == []
    client.run(lambda: None)  # the workers still answer


@pytest.mark.parametrize("shared", [None, False], ids=["shared-disk", "bytes-only"])
def test_chunks_of_a_rate_whose_frame_times_are_not_whole_milliseconds(client, tmp_path, shared):
    """24 fps with B-frames, chunks of 31 frames (1.2916… s): the bounds fall between
    milliseconds, where the movie's edit lists round; every frame is in exactly one chunk."""
    src = tmp_path / "src" / "24.mp4"
    src.parent.mkdir()
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=6",
                    "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "48", str(src)], check=True)
    out = tmp_path / "out.mp4"
    result = splice.dask.export(src, out, "highestQuality", client=client, chunk_seconds=1.3, shared_disk=shared)
    assert result["ok"] and result["chunks"] == 5, result
    splice.export(src, tmp_path / "local.mp4", "highestQuality")
    assert frame_times(out) == frame_times(tmp_path / "local.mp4") and len(frame_times(out)) == 144
    assert [t["edits"] for t in splice.inspect(out)["tracks"]] == [t["edits"] for t in splice.inspect(tmp_path / "local.mp4")["tracks"]]


def test_a_variable_frame_rate_is_refused_by_name(client, tmp_path):
    src = tmp_path / "vfr.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                    "-vf", "setpts='if(lt(N,50),N*2,100+(N-50)*3)'", "-fps_mode", "passthrough", "-time_base", "1/50",
                    "-c:v", "libx264", "-preset", "veryfast", str(src)], check=True)
    with pytest.raises(splice.SpliceError) as caught:
        splice.dask.export(src, tmp_path / "out.mp4", "lowQuality", client=client, chunk_seconds=1)
    assert caught.value.status == splice.Status.UNSUPPORTED and "variable frame rate" in caught.value.message
    assert sorted(os.listdir(tmp_path)) == ["vfr.mp4"]
