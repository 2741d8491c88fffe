"""Remux, add subtitles to, or export a folder of movies on a Dask cluster.

    python batch.py remux|add_subtitles|export IN_DIR OUT_DIR [--scheduler ADDRESS] [--workers N]
                    [--preset NAME] [--extension .mkv]

Without --scheduler, a LocalCluster of N single-threaded workers on this machine; with it, the
cluster at ADDRESS (tcp://host:8786), whose workers see IN_DIR and OUT_DIR at the same paths.
One line per file; a damaged file is reported with Splice's message and the others go on.
Exits 1 when a file failed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from distributed import Client, LocalCluster

import splice.dask


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("job", choices=["remux", "add_subtitles", "export"])
    parser.add_argument("source")
    parser.add_argument("destination")
    parser.add_argument("--scheduler")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--preset", default="mediumQuality")
    parser.add_argument("--extension")
    args = parser.parse_args()
    options: dict[str, Any] = {"preset": args.preset} if args.job == "export" else {}
    cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                                       dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        splice.dask.check_workers(client)
        futures = splice.dask.folder(client, args.job, args.source, args.destination,
                                     extension=args.extension, **options)
        failed = 0
        for result in splice.dask.results(futures):
            said = "done" if result["ok"] else f"{result['status']}: {result['message']}"
            print(f"{result['source']}: {said} ({result['seconds']:.2f} s on {result['worker']})")
            failed += not result["ok"]
    if cluster is not None:
        cluster.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
