#!/usr/bin/env bash
# Builds the seed corpora in Fuzz/corpus/ from small movies made with the ffmpeg CLI and the
# bundled sample. Subtitle seeds are committed in Fuzz/corpus/subtitles.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/boxes corpus/tables corpus/writer
ff() { ffmpeg -nostdin -v error -y "$@"; }
if [ ! -f corpus/boxes/tiny.mp4 ]; then
    ff -f lavfi -i testsrc=size=16x16:rate=5:duration=0.4 -f lavfi -i sine=duration=0.2:sample_rate=8000 \
       -c:v libx264 -preset ultrafast -bf 2 -c:a aac -b:a 8k corpus/boxes/tiny.mp4
    ff -i corpus/boxes/tiny.mp4 -c copy -movflags frag_keyframe+empty_moov+default_base_moof corpus/boxes/tiny-fragmented.mp4
    ff -i corpus/boxes/tiny.mp4 -c copy corpus/boxes/tiny.mov
    ff -i corpus/boxes/tiny.mp4 -c copy -movflags faststart+negative_cts_offsets corpus/boxes/tiny-faststart.mp4
    ff -f lavfi -i sine=duration=0.3:sample_rate=8000 -c:a pcm_s16le corpus/boxes/pcm.mov
    printf '1\n00:00:00,100 --> 00:00:00,300\nhi\n' > /tmp/seed.srt
    ff -i corpus/boxes/tiny.mp4 -i /tmp/seed.srt -map 0 -map 1 -c copy -c:s mov_text corpus/boxes/tiny-subs.mp4
    cp ../Samples/Media/grouped.mp4 corpus/boxes/grouped.mp4
    cp corpus/boxes/*.mp4 corpus/boxes/*.mov corpus/tables/
fi
