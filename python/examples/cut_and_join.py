"""Cut the best parts out of movies and join them, frame-exact, into one movie.

    python cut_and_join.py OUTPUT MOVIE START END [MOVIE START END ...]

Only the frames of each cut's partial GOPs are re-encoded; the rest is copied.
"""

from __future__ import annotations

import sys

import splice


def main() -> int:
    if len(sys.argv) < 5 or (len(sys.argv) - 2) % 3:
        print(__doc__, file=sys.stderr)
        return 64
    output, rest = sys.argv[1], sys.argv[2:]
    clips = [(rest[i], float(rest[i + 1]), float(rest[i + 2])) for i in range(0, len(rest), 3)]
    try:
        splice.concat(clips, output, force=True)
    except splice.SpliceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{output}: {splice.inspect(output)['duration']:.2f} s from {len(clips)} clips")
    return 0


if __name__ == "__main__":
    sys.exit(main())
