#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a throng binary stream (docs/FORMAT.md) into numpy arrays.

    throng run circle --agents 200 --steps 20 --out - | python3 read_stream.py -
    python3 read_stream.py run.thr            # a file
    python3 read_stream.py --digest run.thr   # one line of bit digests per frame

As a module: ``for header, frame in read_stream(f): ...`` yields the header
(a dict) and one dict per frame with ``index``, ``step``, ``time`` and one
numpy array per field present, indexed by agent id. Checksums are verified
with zlib.crc32 (the same CRC-32 the writer uses).
"""
import struct
import sys
import zlib

import numpy as np

MAGIC = b"\x89THRONG\n"
FIELDS = ["x", "y", "vx", "vy", "hx", "hy", "group", "archetype"]
DTYPES = {"group": "<u4", "archetype": "<u4"}  # the others are "<f4"
HEADER_FIXED = 88
FRAME_HEAD = 32


class StreamError(Exception):
    """A truncated or malformed stream; the message names the byte offset."""


def _read_exact(f, n, offset, what):
    data = f.read(n)
    if len(data) != n:
        raise StreamError(f"byte offset {offset + len(data)}: the stream ends inside {what}")
    return data


def _crc_with_zeroed(buf, at):
    """CRC-32 of buf with its 4-byte checksum field at `at` taken as zero."""
    return zlib.crc32(bytes(buf[:at]) + b"\0\0\0\0" + bytes(buf[at + 4:])) & 0xFFFFFFFF


def read_header(f):
    fixed = f.read(HEADER_FIXED)
    if fixed[:8] != MAGIC[: len(fixed[:8])] or len(fixed) < 8:
        raise StreamError("byte offset 0: not a throng stream")
    if len(fixed) < HEADER_FIXED:
        raise StreamError(f"byte offset {len(fixed)}: the stream ends inside the header")
    major, minor, bom, header_bytes, crc = struct.unpack_from("<HHIII", fixed, 8)
    if major != 1:
        raise StreamError(f"byte offset 8: version {major}.{minor}, this reader reads 1.x")
    if bom != 0x01020304:
        raise StreamError("byte offset 12: bad byte-order mark")
    if header_bytes < HEADER_FIXED or header_bytes % 8 or header_bytes > 65536:
        raise StreamError(f"byte offset 16: bad header size {header_bytes}")
    h = fixed + _read_exact(f, header_bytes - HEADER_FIXED, HEADER_FIXED, "the header")
    if _crc_with_zeroed(h, 20) != crc:
        raise StreamError("byte offset 20: header checksum mismatch")
    agents, mask, frame_bytes, dt, every, mode = struct.unpack_from("<IIQdII", h, 24)
    bounds = struct.unpack_from("<4f", h, 56)
    (seed,) = struct.unpack_from("<Q", h, 72)
    field_count, name_bytes = struct.unpack_from("<IH", h, 80)
    if agents == 0 or mask == 0 or field_count != bin(mask).count("1"):
        raise StreamError("byte offset 24: inconsistent agent count or fields")
    if frame_bytes != (FRAME_HEAD + 4 * agents * field_count + 7) // 8 * 8:
        raise StreamError("byte offset 32: frame size does not match agents and fields")
    return {
        "version": (major, minor), "agents": agents, "fields": mask, "field_count": field_count,
        "frame_bytes": frame_bytes, "dt": dt, "every": every, "bounds_mode": mode,
        "bounds": bounds, "seed": seed, "header_bytes": header_bytes,
        "scenario": h[88:88 + name_bytes].decode("utf-8", "replace"),
    }


def read_stream(f):
    """Yields (header, frame) for every frame of the binary stream `f`."""
    header = read_header(f)
    for frame in read_frames(f, header):
        yield header, frame


def read_frames(f, header):
    """Yields the frames that follow `header`; sets header["complete"]."""
    n, frame_bytes = header["agents"], header["frame_bytes"]
    offset = header["header_bytes"]
    index = 0
    while True:
        marker = f.read(4)
        if not marker:
            header["complete"] = False  # stopped at a frame boundary
            return
        if marker == b"END!":
            rest = _read_exact(f, 12, offset + 4, "the end record")
            (frames,) = struct.unpack_from("<Q", rest, 4)
            if frames != index:
                raise StreamError(f"byte offset {offset + 8}: end record counts {frames} frames, read {index}")
            header["complete"] = True
            return
        if marker != b"FRAM":
            raise StreamError(f"byte offset {offset}: expected a frame marker, found {marker!r}")
        buf = marker + _read_exact(f, frame_bytes - 4, offset + 4, f"frame {index}")
        crc, idx, step, time = struct.unpack_from("<IQQd", buf, 4)
        if _crc_with_zeroed(buf, 4) != crc:
            raise StreamError(f"byte offset {offset + 4}: frame {index} checksum mismatch")
        if idx != index:
            raise StreamError(f"byte offset {offset + 8}: frame index {idx}, expected {index}")
        frame = {"index": idx, "step": step, "time": time}
        at = FRAME_HEAD
        for bit, name in enumerate(FIELDS):
            if header["fields"] & (1 << bit):
                frame[name] = np.frombuffer(buf, dtype=DTYPES.get(name, "<f4"), count=n, offset=at)
                at += 4 * n
        yield frame
        offset += frame_bytes
        index += 1


def main(argv):
    digest = "--digest" in argv
    paths = [a for a in argv[1:] if a != "--digest"]
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: read_stream.py [--digest] FILE|-", file=sys.stderr)
        return 2
    f = sys.stdin.buffer if paths[0] == "-" else open(paths[0], "rb")
    frames = 0
    try:
        header = read_header(f)
        for frame in read_frames(f, header):
            frames += 1
            if digest:
                # XOR of each field's raw 32-bit words: an exact, order-free digest.
                words = [f"{int(np.bitwise_xor.reduce(frame[k].view('<u4'))):08x}"
                         for k in FIELDS if k in frame]
                print(frame["index"], frame["step"], repr(frame["time"]), " ".join(words))
            else:
                x, y = frame.get("x"), frame.get("y")
                where = f" agent 0 at ({x[0]:.3f}, {y[0]:.3f})" if x is not None and y is not None else ""
                print(f"frame {frame['index']} step {frame['step']} t={frame['time']:.3f}s{where}")
    except StreamError as e:
        print(f"read_stream.py: {paths[0]}: {e}", file=sys.stderr)
        return 1
    print(f"frames {frames} complete {'yes' if header['complete'] else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
