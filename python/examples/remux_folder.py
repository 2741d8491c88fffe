"""Remux every movie in a folder into another, four at a time, losing nothing.

    python remux_folder.py IN_DIR OUT_DIR [--faststart]

Each file is copied with its whole track structure; a damaged file is reported with Splice's
message and the others go on. Exits 1 when a file failed.
"""

from __future__ import annotations

import argparse
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import splice

MOVIES = {".mp4", ".mov", ".m4v", ".m4a", ".mkv", ".webm", ".ts"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("destination", type=Path)
    parser.add_argument("--faststart", action="store_true")
    args = parser.parse_args()
    args.destination.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in args.source.iterdir() if p.suffix.lower() in MOVIES)
    lock = threading.Lock()
    done: dict[Path, float] = {}

    def show(path: Path, fraction: float) -> None:
        with lock:
            done[path] = fraction
            print(f"\r{sum(done.values()) / len(files):6.1%}", end="", file=sys.stderr, flush=True)

    def remux(path: Path) -> str | None:
        try:
            splice.remux(path, args.destination / path.name, faststart=args.faststart,
                         progress=lambda fraction: show(path, fraction))
            return None
        except splice.SpliceError as error:
            return str(error)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(remux, files))
    print(file=sys.stderr)
    failed = 0
    for path, message in zip(files, results):
        print(f"{path.name}: {'copied' if message is None else message}")
        failed += message is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
