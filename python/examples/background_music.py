"""Put background music under a video, with a fade in and out, without blocking an event loop.

    python background_music.py VIDEO MUSIC OUTPUT [--volume 0.3]

The video and every other track are copied; the music is mixed with the video's own sound.
Ctrl-C cancels the job and leaves nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import splice


async def mix(args: argparse.Namespace) -> None:
    def show(fraction: float) -> None:
        print(f"\rmixing {fraction:6.1%}", end="", file=sys.stderr, flush=True)

    await splice.aio.mix(args.video, args.music, args.output, music_volume=args.volume, fade_in=1, fade_out=1,
                         force=True, progress=show)
    print(file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("video", type=Path)
    parser.add_argument("music", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--volume", type=float, default=0.3)
    args = parser.parse_args()
    try:
        asyncio.run(mix(args))
    except splice.SpliceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ncancelled", file=sys.stderr)
        return 130
    print(f"{args.output}: {splice.inspect(args.output)['duration']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
