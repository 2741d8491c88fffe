"""Failures: SpliceError with the message, status and file; bad input never ends the process."""

from __future__ import annotations

import glob
import os
import pickle

import pytest
from conftest import REPO

import splice
from splice import SpliceError, Status


def test_a_missing_input(tmp_path):
    with pytest.raises(SpliceError) as caught:
        splice.remux(tmp_path / "nothing.mp4", tmp_path / "out.mp4")
    assert caught.value.status == Status.FILE_NOT_FOUND
    assert caught.value.file == str(tmp_path / "nothing.mp4")
    assert str(tmp_path / "nothing.mp4") in str(caught.value)
    assert os.listdir(tmp_path) == []


def test_an_existing_output_is_kept_unless_forced(media, tmp_path):
    (tmp_path / "out.mp4").write_bytes(b"mine")
    with pytest.raises(SpliceError) as caught:
        splice.remux(media / "movie.mp4", tmp_path / "out.mp4")
    assert caught.value.status == Status.FILE_EXISTS
    assert (tmp_path / "out.mp4").read_bytes() == b"mine"
    splice.remux(media / "movie.mp4", tmp_path / "out.mp4", force=True)
    assert (tmp_path / "out.mp4").stat().st_size > 1000


def test_a_damaged_movie_names_the_file_and_the_box(media, tmp_path):
    data = bytearray((media / "movie.mp4").read_bytes())
    at = data.index(b"stsz")
    data[at + 12:at + 16] = b"\xff\xff\xff\xf0"  # the sample count
    (tmp_path / "bad.mp4").write_bytes(bytes(data))
    with pytest.raises(SpliceError) as caught:
        splice.inspect(tmp_path / "bad.mp4")
    assert caught.value.status in (Status.INVALID_DATA, Status.TRUNCATED)
    assert caught.value.file == str(tmp_path / "bad.mp4")
    assert "stsz" in caught.value.message


def test_usage_errors(media, tmp_path):
    with pytest.raises(SpliceError) as caught:
        splice.export(media / "movie.mp4", tmp_path / "out.mp4", no_such_option=1)
    assert caught.value.status == Status.USAGE and "--no-such-option" in caught.value.message
    with pytest.raises(SpliceError) as caught:
        splice.export(media / "movie.mp4", tmp_path / "out.mp4", preset="noSuchPreset")
    assert caught.value.status == Status.USAGE
    with pytest.raises(TypeError):
        splice.remux(media / "movie.mp4", tmp_path / "out.mp4", no_such_option=1)
    with pytest.raises(ValueError):
        splice.trim(media / "movie.mp4", tmp_path / "out.mp4", -1, 2)
    with pytest.raises(ValueError):
        splice.concat([(media / "movie.mp4", None, None)], tmp_path / "out.mp4")
    assert os.listdir(tmp_path) == []


def test_the_error_survives_pickling():
    error = SpliceError("a.mp4: moov/trak[1]/mdia/minf/stbl/stsz: 7 entries, 9 samples", Status.INVALID_DATA, "a.mp4")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.message, copy.status, copy.file, str(copy)) == \
           (SpliceError, error.message, Status.INVALID_DATA, "a.mp4", str(error))
    assert pickle.loads(pickle.dumps(SpliceError("newer", 99))).status == 99


def _damage(movie: bytes, directory) -> list[str]:
    """The movie cut short at ten places, and with each of its tables' counts and its boxes'
    sizes made huge."""
    made = []
    for i in range(1, 11):
        made.append((f"cut-{i}.mp4", movie[:len(movie) * i // 11]))
    for box in (b"ftyp", b"moov", b"trak", b"stsd", b"stts", b"stsc", b"stsz", b"stco", b"ctts", b"stss", b"elst"):
        at = movie.find(box)
        if at >= 4:
            made.append((f"size-{box.decode()}.mp4", movie[:at - 4] + b"\x7f\xff\xff\xf0" + movie[at:]))
            if box not in (b"ftyp", b"moov", b"trak"):
                made.append((f"count-{box.decode()}.mp4", movie[:at + 8] + b"\xff\xff\xff\xf0" + movie[at + 12:]))
    for name, data in made:
        (directory / name).write_bytes(data)
    return [str(directory / name) for name, _ in made]


def test_damaged_and_crafted_inputs_in_one_process(media, tmp_path):
    """Every damaged or crafted input of the project's tests and fuzz corpus, and damaged
    copies of a movie, through inspect and remux: a SpliceError naming the file, or a success;
    nothing else, and never a partial output. The damaged ones each fail at least once."""
    (tmp_path / "in").mkdir()
    damaged = sorted(p for ext in ("mp4", "mov", "bin") for p in glob.glob(str(REPO / f"Tests/*/Regressions/*.{ext}")))
    damaged += _damage((media / "movie.mp4").read_bytes(), tmp_path / "in")
    crafted = sorted(glob.glob(str(REPO / "Fuzz/corpus/remux/*")))
    assert len(damaged) >= 30 and len(crafted) > 100
    failures = {}
    for path in damaged + crafted:
        failed = 0
        for call in ("inspect", "remux"):
            try:
                splice.inspect(path) if call == "inspect" else splice.remux(path, tmp_path / "out.mp4", force=True)
            except SpliceError as error:
                assert path in error.message or str(tmp_path) in error.message, error
                assert isinstance(error.status, Status) and error.status != Status.OK
                assert call == "inspect" or not (tmp_path / "out.mp4").exists(), f"{path}: a failed remux left its output"
                failed += 1
        (tmp_path / "out.mp4").unlink(missing_ok=True)
        assert [p for p in os.listdir(tmp_path) if p not in ("in", "out.mp4")] == [], path
        failures[path] = failed
    assert all(failures[path] > 0 for path in damaged), [p for p in damaged if failures[p] == 0]
    assert sum(1 for p in crafted if failures[p]) > len(crafted) // 4
