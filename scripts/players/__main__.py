"""make players: the outputs of Splice's cutting jobs played in the players people use, one row
per file and one column per player, each cell right or what the player got wrong."""

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import jobs      # noqa: E402
import judge     # noqa: E402
import players   # noqa: E402

# (chromium-mse: Chromium playing a CMAF row through Media Source Extensions, segment by segment)
BROWSERS = {"chromium": "chromium", "firefox": "firefox-esr", "chromium-mse": "chromium"}


def main() -> int:
    parser = argparse.ArgumentParser(prog="make players", description=__doc__)
    parser.add_argument("--splice", default=".build/debug/splice")
    parser.add_argument("--work", default=".build/players")
    installed = [*players.PLAYERS, *(name for name, command in BROWSERS.items() if shutil.which(command))]
    parser.add_argument("--players", default=",".join(installed),
                        help=f"comma-separated, of {', '.join([*players.PLAYERS, *BROWSERS])} (default: those installed)")
    parser.add_argument("--jobs", default=None, help="comma-separated job names (default: all)")
    parser.add_argument("--experiments", action="store_true", help="add the rows of jobs.experiments()")
    parser.add_argument("--every-column", action="store_true", help="play every row in every player (HEVC rows in the browsers too)")
    parser.add_argument("--expected", default=str(Path(__file__).with_name("expected")),
                        help="the matrix as it stands: a cell listed right that comes out wrong fails the run")
    args = parser.parse_args()
    work = Path(args.work)
    media, outputs = work / "media", work / "out"
    jobs.make_media(media)
    outputs.mkdir(parents=True, exist_ok=True)
    every = jobs.jobs() + jobs.cmaf_jobs() + jobs.package_jobs() + jobs.hevc_jobs() + jobs.container_jobs() + jobs.webm_jobs() + (jobs.experiments() if args.experiments or args.jobs else [])
    chosen = [j for j in every if args.jobs is None or j.name in args.jobs.split(",")]
    names = args.players.split(",")
    unknown = [n for n in names if n not in players.PLAYERS and n not in BROWSERS]
    if unknown:
        parser.error(f"unknown player {unknown[0]}")
    browsers = None
    if any(n in BROWSERS for n in names):
        import browsers as web
        browsers = web.Browsers(outputs)
    cells, seconds = {}, {n: 0.0 for n in names}
    expected = _expected(Path(args.expected))
    try:
        for job in chosen:
            # (a manifest by its absolute path: ffmpeg 5.1's DASH reader doubles a relative one's folder)
            out = (outputs / job.name / job.entry).resolve() if job.entry else outputs / f"{job.name}.{job.suffix}"
            job.make(job, media / job.media, args.splice, out)
            for name in names:
                if job.players and name not in job.players and not args.every_column:
                    continue
                if name == "chromium-mse" and not job.mse:
                    continue
                began = time.monotonic()
                cells[job.name, name] = _play(job, name, out, browsers)
                if name in BROWSERS and cells[job.name, name][0] and expected.get((job.name, name)) == "right":
                    # Real-time playback on a loaded machine: a browser gets a second try.
                    cells[job.name, name] = _play(job, name, out, browsers)
                seconds[name] += time.monotonic() - began
    finally:
        if browsers:
            browsers.close()
    print(f"{'':12} " + " ".join(f"{n:10}" for n in names))
    for job in chosen:
        print(f"{job.name:12} " + " ".join(f"{_cell(cells, job.name, n):10}" for n in names))
    print()
    for job in chosen:
        print(f"{job.name:10} {job.title}")
        for name in names:
            if (job.name, name) not in cells:
                continue
            problems, remarks = cells[job.name, name]
            aside = f" ({'; '.join(remarks)})" if remarks else ""
            print(f"    {name:10} {'right' if not problems else '; '.join(problems)}{aside}")
    print("seconds per player: " + ", ".join(f"{n} {s:.1f}" for n, s in seconds.items()))
    return _compare(cells, expected, args.expected)


def _cell(cells, job, name):
    if (job, name) not in cells:
        return "-"
    return "right" if not cells[job, name][0] else "WRONG"


def _play(job, name, out, browsers):
    playback = browsers.play(name, out, job) if name in BROWSERS else players.PLAYERS[name](out)
    return judge.judge(job, playback), playback.remarks


def _expected(path: Path) -> dict:
    """{(job, player): "right" or "wrong"} from lines `job player right|wrong` (# comments)."""
    table = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        words = line.split("#")[0].split()
        if len(words) == 3:
            table[words[0], words[1]] = words[2]
    return table


def _compare(cells, expected, path) -> int:
    regressed = [k for k, (problems, _) in cells.items() if problems and expected.get(k) == "right"]
    fixed = [k for k, (problems, _) in cells.items() if not problems and expected.get(k) == "wrong"]
    for job, player in fixed:
        print(f"now right: {job} in {player} (mark it right in {path})")
    for job, player in regressed:
        print(f"REGRESSED: {job} in {player} was right ({path})")
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
