"""make players: the outputs of Splice's cutting jobs played in the players people use, one row
per file and one column per player, each cell right or what the player got wrong."""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import jobs      # noqa: E402
import judge     # noqa: E402
import players   # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(prog="make players", description=__doc__)
    parser.add_argument("--splice", default=".build/debug/splice")
    parser.add_argument("--work", default=".build/players")
    parser.add_argument("--players", default=",".join(players.PLAYERS))
    parser.add_argument("--jobs", default=None, help="comma-separated job names (default: all)")
    args = parser.parse_args()
    work = Path(args.work)
    media, outputs = work / "media", work / "out"
    jobs.make_media(media)
    outputs.mkdir(parents=True, exist_ok=True)
    chosen = [j for j in jobs.jobs() if args.jobs is None or j.name in args.jobs.split(",")]
    names = args.players.split(",")
    cells, seconds = {}, {n: 0.0 for n in names}
    for job in chosen:
        out = outputs / f"{job.name}.mp4"
        job.make(job, media, args.splice, out)
        for name in names:
            began = time.monotonic()
            cells[job.name, name] = judge.judge(job, players.PLAYERS[name](out))
            seconds[name] += time.monotonic() - began
    for job in chosen:
        print(f"{job.name:10} {job.title}")
        for name in names:
            problems = cells[job.name, name]
            print(f"    {name:10} {'right' if not problems else '; '.join(problems)}")
    print("seconds per player: " + ", ".join(f"{n} {s:.1f}" for n, s in seconds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
