"""Add a subtitle file to a movie as a track of its subtitle group, then read it back.

    python subtitles.py MOVIE SUBTITLES OUTPUT [--language CODE]

What Apple's subtitle writer sample does with AVAssetReader and AVAssetWriter: every track
copied, the subtitle track added to the movie's alternate group of subtitles.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import splice


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("movie", type=Path)
    parser.add_argument("subtitles", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--language")
    args = parser.parse_args()
    try:
        splice.add_subtitles(args.movie, [args.subtitles], args.output, args.language, force=True)
    except splice.SpliceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    info = splice.inspect(args.output)
    for track in info["tracks"]:
        print(f"track {track['id']}: {track['mediaType']} {track['codec']} {track['language']}"
              f" group {track['alternateGroup']}{' enabled' if track['enabled'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
