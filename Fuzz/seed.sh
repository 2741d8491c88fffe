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
    cp ../Examples/Media/grouped.mp4 corpus/boxes/grouped.mp4
    cp corpus/boxes/*.mp4 corpus/boxes/*.mov corpus/tables/
fi
# Codec seeds for FuzzCodecs: byte 0 picks the codec (its index in FuzzCodecs' table), byte 1
# the split between extradata and first packet (0: all packet), then a stream's first bytes.
mkdir -p corpus/codecs
seed() {  # seed <index> <split> <file> [bytes]
    { printf "\\x$(printf %02x "$1")\\x$(printf %02x "$2")"; head -c "${4:-4096}" "$3"; } > "corpus/codecs/$(basename "$3").bin"
}
if [ ! -f corpus/codecs/seed.h264.bin ]; then
    t=$(mktemp -d)
    v="-f lavfi -i testsrc=size=64x48:rate=5:duration=0.4"
    a="-f lavfi -i sine=duration=0.2:sample_rate=48000"
    ff $v -c:v libx264 -preset ultrafast "$t/seed.h264"
    ff $v -c:v libx265 -x265-params log-level=none "$t/seed.hevc"
    ff $v -c:v libaom-av1 -cpu-used 8 -f obu "$t/seed.obu"
    ff $v -c:v libvpx-vp9 "$t/seed.ivf" && tail -c +45 "$t/seed.ivf" > "$t/seed.vp9"  # IVF: 32-byte file, 12-byte frame headers
    ff $a -c:a aac "$t/seed.aac"
    ff $a -c:a ac3 "$t/seed.ac3"
    ff $a -c:a eac3 -f eac3 "$t/seed.eac3"
    ff $a -c:a flac "$t/seed.flac"
    printf 'OpusHead\x01\x02\x38\x01\x80\xbb\x00\x00\x00\x00\x00' > "$t/seed.opus"
    seed 0 0 "$t/seed.h264"; seed 1 0 "$t/seed.hevc"; seed 2 0 "$t/seed.obu"; seed 3 0 "$t/seed.vp9"
    seed 5 0 "$t/seed.aac"; seed 8 0 "$t/seed.ac3"; seed 9 0 "$t/seed.eac3"
    seed 6 255 "$t/seed.opus" 19; seed 7 255 "$t/seed.flac" 42
    rm -rf "$t"
fi
# Seeds for FuzzRemux (committed in corpus/remux, with what campaigns added: a later campaign
# resumes from them) — camera-style files: QuickTime sound v0/v1/v2, in24/lpcm, fragmented,
# timecode, chapters, subtitles; and for FuzzSampleEntries (corpus/entries): byte 0 the
# handler's index in FuzzSampleEntries' table, then one stsd entry of each seed.
mkdir -p corpus/remux corpus/entries
if [ ! -f corpus/remux/seed-tiny.mp4 ]; then
    t=$(mktemp -d)
    v="-f lavfi -i testsrc=size=16x16:rate=5:duration=0.4"
    a="-f lavfi -i sine=duration=0.2:sample_rate=8000"
    printf ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/10\nSTART=0\nEND=2\ntitle=One\n[CHAPTER]\nTIMEBASE=1/10\nSTART=2\nEND=4\ntitle=Two\n' > "$t/chapters.txt"
    printf '1\n00:00:00,100 --> 00:00:00,300\nhi\n' > "$t/seed.srt"
    ff $v $a -c:v libx264 -preset ultrafast -bf 2 -c:a aac -b:a 8k corpus/remux/seed-tiny.mp4
    ff -i corpus/remux/seed-tiny.mp4 -c copy -movflags frag_keyframe+empty_moov+default_base_moof corpus/remux/seed-fragmented.mp4
    ff $v $a -c:v libx264 -preset ultrafast -c:a pcm_s16le corpus/remux/seed-sound-v0.mov
    ff $v $a -c:v libx264 -preset ultrafast -c:a pcm_s24le corpus/remux/seed-in24.mov
    ff $a -c:a pcm_s16le -ar 96000 -t 0.05 corpus/remux/seed-sound-v2-lpcm.mov
    ff $a -c:a pcm_s16le -ac 3 -t 0.05 corpus/remux/seed-sound-v2-3ch.mov
    ff $a -c:a alac corpus/remux/seed-alac.m4a
    ff $v -c:v libx264 -preset ultrafast -timecode 01:00:00:00 corpus/remux/seed-timecode.mov
    ff $v $a -i "$t/chapters.txt" -map 0 -map 1 -map_metadata 2 -c:v libx264 -preset ultrafast -c:a aac -b:a 8k corpus/remux/seed-chapters.mp4
    ff -i corpus/remux/seed-tiny.mp4 -i "$t/seed.srt" -map 0 -map 1 -c copy -c:s mov_text corpus/remux/seed-subtitles.mp4
    ff -i corpus/remux/seed-tiny.mp4 -c copy corpus/remux/seed-tiny.mkv
    rm -rf "$t"
fi
# Seeds for FuzzMatroska (corpus/matroska, made here): the remux seed laced by mkvmerge, HEVC,
# and block groups with BlockDuration (mkvmerge --disable-lacing of a file with AAC). Also added
# to FuzzRemux's, so that it reads Matroska through the native reader.
mkdir -p corpus/matroska
if [ ! -f corpus/matroska/seed-mkvmerge.mkv ]; then
    t=$(mktemp -d)
    ff -f lavfi -i testsrc=size=16x16:rate=5:duration=0.4 -c:v libx265 -x265-params log-level=none:bframes=2 "$t/hevc.mp4"
    mkvmerge -q -o corpus/matroska/seed-mkvmerge.mkv corpus/remux/seed-tiny.mp4
    mkvmerge -q --disable-lacing -o corpus/matroska/seed-unlaced.mkv corpus/remux/seed-tiny.mp4
    mkvmerge -q -o corpus/matroska/seed-hevc.mkv "$t/hevc.mp4"
    cp corpus/remux/seed-tiny.mkv corpus/matroska/seed-ffmpeg.mkv
    cp -n corpus/matroska/seed-mkvmerge.mkv corpus/matroska/seed-hevc.mkv corpus/remux/
    rm -rf "$t"
fi
if [ ! -f corpus/entries/seed-avc1.bin ]; then
    python3 - corpus/remux/*.mp4 corpus/remux/*.mov corpus/remux/*.m4a <<'PY'
import struct, sys
handlers = [b"vide", b"soun", b"text", b"sbtl", b"subt", b"tmcd", b"meta", b"hint"]
def boxes(b, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", b[start:start + 8])
        if size < 8 or start + size > end: return
        yield kind, start, start + size
        start += size
def walk(b, start, end, handler=None):
    for kind, s, e in boxes(b, start, end):
        if kind in (b"moov", b"trak", b"mdia", b"minf", b"stbl"):
            h = handler
            if kind == b"mdia":
                for k2, s2, e2 in boxes(b, s + 8, e):
                    if k2 == b"hdlr": h = b[s2 + 16:s2 + 20]
            walk(b, s + 8, e, h)
        elif kind == b"stsd" and handler in handlers:
            for k2, s2, e2 in boxes(b, s + 16, e):
                name = "corpus/entries/seed-%s.bin" % k2.decode("latin-1").strip().replace(" ", "_")
                open(name, "wb").write(bytes([handlers.index(handler)]) + b[s2:e2])
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    walk(data, 0, len(data))
PY
fi
