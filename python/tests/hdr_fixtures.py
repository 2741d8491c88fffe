"""Fixtures no Debian tool writes, made from ffmpeg's output by editing bytes: Dolby Vision
configuration records in an HEVC sample entry (Dolby's ISO binding), HDR10+ SEI in an HEVC
stream (SMPTE ST 2094-40 in ITU-T T.35, as the HDR10+ system specification lays it out),
HDR10+ in Matroska block additions (BlockAdditionMapping type 4, BlockAdditional ID 4), and
MV-HEVC's sample-entry boxes (lhvC, vexu, hfov)."""

from __future__ import annotations

import struct
from pathlib import Path

# --- ISO BMFF ---------------------------------------------------------------------------------

CONTAINERS = {"moov", "trak", "mdia", "minf", "stbl"}
ENTRY_FIELDS = {"stsd": 8, "hvc1": 78, "hev1": 78, "dvh1": 78, "avc1": 78}


def _boxes(data: bytes | bytearray, start: int, end: int):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        if size < 8 or start + size > end:
            return
        yield kind.decode("latin-1"), start, size
        start += size


def _path_to_entry(data: bytearray) -> list[int]:
    """Offsets of moov … stsd and the first video sample entry (moov must follow mdat)."""
    path: list[int] = []
    start, end = 0, len(data)
    for name in ["moov", "trak", "mdia", "minf", "stbl", "stsd", "entry"]:
        for kind, at, size in _boxes(data, start, end):
            if kind == name or (name == "entry" and kind in ENTRY_FIELDS):
                path.append(at)
                start, end = at + 8 + ENTRY_FIELDS.get(kind, 0), at + size
                break
            if name == "trak" and kind == "trak":
                break
        else:
            raise ValueError(f"no {name} box")
    kinds = [k for k, _, _ in _boxes(data, 0, len(data))]
    assert kinds.index("moov") > kinds.index("mdat"), "moov before mdat: chunk offsets would move"
    return path


def add_to_sample_entry(src: Path, dst: Path, boxes: bytes, entry_type: str | None = None) -> None:
    """``src`` with ``boxes`` appended inside its first track's sample entry (and the entry
    renamed ``entry_type``), every enclosing box's size grown to match."""
    data = bytearray(src.read_bytes())
    path = _path_to_entry(data)
    entry = path[-1]
    entry_size = struct.unpack(">I", data[entry:entry + 4])[0]
    data[entry + entry_size:entry + entry_size] = boxes
    for at in path:
        data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + len(boxes))
    if entry_type:
        data[entry + 4:entry + 8] = entry_type.encode()
    dst.write_bytes(bytes(data))


def box(kind: str, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def dovi_record(profile: int, level: int, compatibility: int) -> bytes:
    """The 24-byte DOVIDecoderConfigurationRecord: version 1.0, RPU and base layer present."""
    record = bytearray(24)
    record[0] = 1
    record[2] = (profile << 1) | (level >> 5)
    record[3] = ((level & 0x1F) << 3) | 0b101
    record[4] = compatibility << 4
    return bytes(record)


def add_dolby_vision(src: Path, dst: Path, profile: int, compatibility: int, level: int = 4) -> bytes:
    """``src`` (HEVC in MP4) as Dolby Vision: dvcC (profile ≤ 7) or dvvC, and ``dvh1`` for
    profile 5 (no compatible base layer). Returns the box written."""
    record = box("dvcC" if profile <= 7 else "dvvC", dovi_record(profile, level, compatibility))
    add_to_sample_entry(src, dst, record, "dvh1" if compatibility == 0 else None)
    return record


def mv_hevc_boxes() -> bytes:
    """lhvC (an L-HEVC configuration: no arrays), vexu (eyes: stereo, both views) and hfov."""
    lhvc = box("lhvC", bytes([1, 0xF0, 0x00, 0xFC, 0xCF, 0x00]))
    eyes = box("eyes", box("stri", bytes([0, 0, 0, 0, 0b11])))
    vexu = box("vexu", eyes)
    hfov = box("hfov", struct.pack(">I", 63400))
    return lhvc + vexu + hfov


# --- HEVC HDR10+ SEI --------------------------------------------------------------------------

class _Bits:
    def __init__(self) -> None:
        self.bits: list[int] = []

    def put(self, value: int, n: int) -> None:
        self.bits += [(value >> (n - 1 - i)) & 1 for i in range(n)]

    def bytes(self) -> bytes:
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def hdr10plus_t35(target_nits: int = 400) -> bytes:
    """An ST 2094-40 payload behind its T.35 header (country 0xB5, provider 0x003C, oriented
    code 0x0001, application 4 version 1): one window, nine percentiles, no curve."""
    b = _Bits()
    b.put(0xB5, 8)
    b.put(0x003C, 16)
    b.put(0x0001, 16)
    b.put(4, 8)                     # application_identifier
    b.put(1, 8)                     # application_version
    b.put(1, 2)                     # num_windows
    b.put(target_nits, 27)          # targeted_system_display_maximum_luminance
    b.put(0, 1)                     # targeted_system_display_actual_peak_luminance_flag
    for _ in range(3):
        b.put(50000, 17)            # maxscl (0.00001 units)
    b.put(10000, 17)                # average_maxrgb
    percentages = [1, 5, 10, 25, 50, 75, 90, 95, 99]
    b.put(len(percentages), 4)
    for i, p in enumerate(percentages):
        b.put(p, 7)
        b.put(1000 * (i + 1), 17)
    b.put(0, 10)                    # fraction_bright_pixels
    b.put(0, 1)                     # mastering_display_actual_peak_luminance_flag
    b.put(0, 1)                     # tone_mapping_flag
    b.put(0, 1)                     # color_saturation_mapping_flag
    return b.bytes()


def _escape(rbsp: bytes) -> bytes:
    out, zeros = bytearray(), 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def hdr10plus_sei(payload: bytes) -> bytes:
    """A prefix SEI NAL unit (type 39) holding one user_data_registered_itu_t_t35 message."""
    assert len(payload) < 255
    return bytes([39 << 1, 1]) + _escape(bytes([4, len(payload)]) + payload + b"\x80")


def add_hdr10plus_to_annexb(src: Path, dst: Path) -> None:
    """An Annex B HEVC stream with the HDR10+ SEI before the first slice of every picture."""
    data = src.read_bytes()
    starts = []
    i = data.find(b"\x00\x00\x01")
    while i >= 0:
        starts.append(i + 3)
        i = data.find(b"\x00\x00\x01", i + 3)
    out = bytearray()
    sei = b"\x00\x00\x00\x01" + hdr10plus_sei(hdr10plus_t35())
    previous = 0
    for s in starts:
        nal_type = (data[s] >> 1) & 0x3F
        first_slice = nal_type < 32 and data[s + 2] & 0x80
        if first_slice:
            head = s - 3 - (1 if s >= 4 and data[s - 4] == 0 else 0)
            out += data[previous:head] + sei
            previous = head
    out += data[previous:]
    dst.write_bytes(bytes(out))


# --- Matroska block additions ------------------------------------------------------------------

def _vint(data: bytes, at: int) -> tuple[int, int]:
    """(value, length) of the EBML variable-size integer at ``at`` (marker bit removed)."""
    first = data[at]
    length = 1
    while not first & (0x80 >> (length - 1)):
        length += 1
    value = first & (0xFF >> length)
    for b in data[at + 1:at + length]:
        value = value << 8 | b
    return value, length


def _element_id(data: bytes, at: int) -> tuple[int, int]:
    first = data[at]
    length = 1
    while not first & (0x80 >> (length - 1)):
        length += 1
    return int.from_bytes(data[at:at + length], "big"), length


def _size(n: int) -> bytes:
    """An 8-byte EBML size."""
    return bytes([0x01]) + n.to_bytes(7, "big")


def element(element_id: int, payload: bytes) -> bytes:
    return element_id.to_bytes((element_id.bit_length() + 7) // 8, "big") + _size(len(payload)) + payload


def _uint(element_id: int, value: int) -> bytes:
    return element(element_id, value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def add_hdr10plus_block_additions(src: Path, dst: Path) -> None:
    """An ffmpeg-made Matroska file (one HEVC track, SimpleBlocks, no Cues needed) rewritten
    with a BlockAdditionMapping (type 4, ITU-T T.35) in its track and every frame as a
    BlockGroup with the HDR10+ payload as BlockAdditional 4; sizes rewritten, SeekHead and
    Cues dropped (players find clusters by reading)."""
    data = src.read_bytes()
    payload = hdr10plus_t35()

    def children(start: int, end: int):
        while start < end:
            eid, n = _element_id(data, start)
            size, m = _vint(data, start + n)
            body = start + n + m
            if size == (1 << (7 * m)) - 1:      # unknown size: to the parent's end
                size = end - body
            yield eid, start, body, min(body + size, end)
            start = body + size

    out = bytearray()
    for eid, head, body, end in children(0, len(data)):
        if eid != 0x18538067:                   # not the Segment: as it is (EBML header)
            out += data[head:end]
            continue
        segment = bytearray()
        for cid, chead, cbody, cend in children(body, end):
            if cid in (0x114D9B74, 0x1C53BB6B, 0xEC):   # SeekHead, Cues, Void
                continue
            if cid == 0x1654AE6B:                # Tracks: the mapping into the (one) TrackEntry
                entry = next(e for e in children(cbody, cend) if e[0] == 0xAE)
                mapping = element(0x41E4, _uint(0x41F0, 4) + _uint(0x41E7, 4) + element(0x41ED, b""))
                segment += element(0x1654AE6B, element(0xAE, data[entry[2]:entry[3]] + mapping))
            elif cid == 0x1F43B675:              # Cluster: SimpleBlocks into BlockGroups
                cluster = bytearray()
                for bid, bhead, bbody, bend in children(cbody, cend):
                    if bid == 0xA3:
                        block = data[bbody:bend]
                        track, n = _vint(block, 0)
                        keyframe = block[n + 2] & 0x80
                        block = block[:n + 2] + bytes([block[n + 2] & 0x0F & ~0x08]) + block[n + 3:]
                        more = element(0xA6, _uint(0xEE, 4) + element(0xA5, payload))
                        group = element(0xA1, block) + element(0x75A1, more)
                        if not keyframe:
                            group += element(0xFB, b"\x00")   # ReferenceBlock: not a keyframe
                        cluster += element(0xA0, group)
                    else:
                        cluster += data[bhead:bend]
                segment += element(0x1F43B675, bytes(cluster))
            else:
                segment += data[chead:cend]
        out += element(0x18538067, bytes(segment))
    dst.write_bytes(bytes(out))
