"""The package's build backend (PEP 517), in the tree so that building needs nothing from PyPI.

``pip install ./python`` builds a pure-Python wheel (``py3-none-any``) that finds libsplice.so
at import (pkg-config, or the linker's path). ``make wheel`` builds one that carries the
library (``py3-none-linux_x86_64``): config setting ``library=<path to libsplice.so.N.N.N>``.
Wheels are reproducible: entries sorted, timestamps fixed.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "splice"
EPOCH = (1980, 1, 1, 0, 0, 0)


def _version() -> str:
    text = (ROOT / "src" / NAME / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _metadata() -> str:
    readme = (ROOT / "README.md").read_text()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            "Summary: Read, remux, cut, join, mix and re-encode movies without losing their track structure\n"
            "Requires-Python: >=3.9\nProvides-Extra: dask\nRequires-Dist: distributed>=2024.1.0; extra == \"dask\"\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Topic :: Multimedia :: Video :: Conversion\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def _package_files() -> list[tuple[str, bytes, int]]:
    files = []
    for path in sorted((ROOT / "src" / NAME).iterdir()):
        if path.suffix in (".py", ".typed"):
            files.append((f"{NAME}/{path.name}", path.read_bytes(), 0o644))
    return files


def _write_wheel(directory: str, files: list[tuple[str, bytes, int]], tag: str) -> str:
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: splice_build\nRoot-Is-Purelib: {'true' if tag.endswith('any') else 'false'}\nTag: {tag}\n"
    files = files + [(f"{dist_info}/METADATA", _metadata().encode(), 0o644),
                     (f"{dist_info}/WHEEL", wheel.encode(), 0o644)]
    record = []
    for name, data, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    filename = f"{NAME}-{version}-{tag}.whl"
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{filename}.tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    os.replace(temporary, os.path.join(directory, filename))
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = _package_files()
    library = (config_settings or {}).get("library") or os.environ.get("SPLICE_WHEEL_LIBRARY")
    if not library:
        return _write_wheel(wheel_directory, files, "py3-none-any")
    if not os.path.isabs(library):
        raise ValueError(f"splice_build: library={library}: give an absolute path (the backend runs in {ROOT})")
    data = Path(library).read_bytes()
    if not data.startswith(b"\x7fELF"):
        raise ValueError(f"splice_build: {library} is not a shared library")
    return _write_wheel(wheel_directory, files + [(f"{NAME}/libsplice.so.0", data, 0o755)], "py3-none-linux_x86_64")


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    pth = (f"{NAME}_editable.pth", (str(ROOT / "src") + "\n").encode(), 0o644)
    return _write_wheel(wheel_directory, [pth], "py3-none-any")


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    filename = f"{base}.tar.gz"
    paths = [p for p in sorted(ROOT.rglob("*")) if p.is_file()
             and not any(part.startswith((".", "__pycache__")) for part in p.relative_to(ROOT).parts)
             and not p.name.endswith((".so", ".so.0", ".whl"))]
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path in paths:
            info = archive.gettarinfo(str(path), f"{base}/{path.relative_to(ROOT)}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with path.open("rb") as f:
                archive.addfile(info, f)
        pkg_info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        pkg_info.size = len(data)
        archive.addfile(pkg_info, io.BytesIO(data))
    return filename
