"""libsplice.so, found and declared to ctypes.

The library is looked for, in order: where ``SPLICE_LIBRARY`` points; beside this package (a
wheel carries it there); in the library directory pkg-config gives for ``splice`` (what ``make
install`` writes); on the dynamic linker's own search path.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from pathlib import Path

SONAME = "libsplice.so.0"
#: The library version this package is written against: the loaded one must have its major
#: version and at least its minor version.
REQUIRED = (0, 1)


PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.c_void_p)
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class SpliceJob(ctypes.Structure):
    """``struct splice_job``."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("progress", PROGRESS_FN),
        ("progress_context", ctypes.c_void_p),
        ("log", LOG_FN),
        ("log_context", ctypes.c_void_p),
        ("cancel", ctypes.c_void_p),
    ]


JOBS = ("remux", "add_subtitles", "extract_subtitles", "export", "trim", "concat", "merge", "mix",
        "images", "thumbnail", "package")


def _candidates() -> list[tuple[str, str]]:
    """Where the library may be, each with how it was found."""
    found = []
    if os.environ.get("SPLICE_LIBRARY"):
        found.append((os.environ["SPLICE_LIBRARY"], "SPLICE_LIBRARY"))
    found.append((str(Path(__file__).with_name(SONAME)), "package"))
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "splice"], capture_output=True,
                                text=True, check=True, timeout=30).stdout.strip()
        if libdir:
            found.append((os.path.join(libdir, SONAME), "pkg-config"))
    except (OSError, subprocess.SubprocessError):
        pass
    found.append((SONAME, "linker"))
    return found


def _load() -> tuple[ctypes.CDLL, str, str]:
    tried = []
    for path, how in _candidates():
        if how != "linker" and not os.path.exists(path):
            tried.append(f"{path} ({how}): no such file")
            continue
        try:
            return ctypes.CDLL(path), path, how
        except OSError as error:
            tried.append(f"{path} ({how}): {error}")
    raise ImportError(
        "splice: cannot load Splice's C library (" + "; ".join(tried) + "). Install a wheel that "
        "carries it, or `make install` Splice (its splice.pc on pkg-config's path), or set "
        "SPLICE_LIBRARY to the library's path.")


def _declare(lib: ctypes.CDLL) -> None:
    c_int, c_char_p, c_void_p, c_size_t = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
    for name, restype, argtypes in [
        ("splice_version", c_char_p, []),
        ("splice_version_major", c_int, []),
        ("splice_version_minor", c_int, []),
        ("splice_free", None, [c_void_p]),
        ("splice_error_status", c_int, [c_void_p]),
        ("splice_error_message", c_char_p, [c_void_p]),
        ("splice_error_file", c_char_p, [c_void_p]),
        ("splice_cancel_token_new", c_void_p, []),
        ("splice_cancel_token_cancel", None, [c_void_p]),
        ("splice_cancel_token_is_cancelled", c_int, [c_void_p]),
        ("splice_inspect_json", c_int, [c_char_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p)]),
    ]:
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    for job in JOBS:
        function = getattr(lib, "splice_" + job)
        function.restype = c_int
        function.argtypes = [ctypes.POINTER(c_char_p), c_size_t, c_char_p, c_char_p,
                             ctypes.POINTER(SpliceJob), ctypes.POINTER(c_void_p)]


lib, path, found_by = _load()
_declare(lib)
_version = (lib.splice_version_major(), lib.splice_version_minor())
if _version[0] != REQUIRED[0] or _version[1] < REQUIRED[1]:
    raise ImportError(f"splice: {path} is version {lib.splice_version().decode()}; this package needs "
                      f"{REQUIRED[0]}.{REQUIRED[1]} or a later {REQUIRED[0]}.x")
