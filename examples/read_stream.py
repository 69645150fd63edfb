#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a throng binary stream (docs/FORMAT.md) into numpy arrays.

    throng run circle --agents 200 --steps 20 --out - | python3 read_stream.py -
    python3 read_stream.py run.thr            # a file
    python3 read_stream.py --digest run.thr   # one line of bit digests per frame

As a module: ``for header, frame in read_stream(f): ...`` yields the header
(a dict) and one dict per frame with ``index``, ``step``, ``time`` and one
numpy array per field present, indexed by agent id. It makes every check
of docs/FORMAT.md ("What a reader checks"), as throng's C reader does:
checksums (zlib.crc32, the writer's CRC-32), the header's values, each
frame's index, step and time, the end record and that nothing follows it.
Needs numpy (Debian: python3-numpy).
"""
import math
import os
import struct
import sys
import zlib


def _numpy_hint():
    """What to do when this Python has no numpy: which Python has it, or how to add it."""
    exe = sys.executable or "python3"
    debian = "/usr/bin/python3"
    if os.path.realpath(exe) == os.path.realpath(debian):
        return f"install it with apt install python3-numpy (Debian), or {exe} -m pip install numpy"
    return (f"run it with Debian's {debian}, which has numpy once python3-numpy is installed "
            f"(apt install python3-numpy; scripts/setup does), or install numpy for this Python: "
            f"{exe} -m pip install numpy")


try:
    import numpy as np
except ImportError as e:  # the one dependency beyond the standard library
    message = f"read_stream.py: needs numpy, which {sys.executable or 'this Python'} does not have: {_numpy_hint()}"
    if __name__ == "__main__":
        sys.exit(message)
    raise ImportError(message) from e

MAGIC = b"\x89THRONG\n"
FIELDS = ["x", "y", "vx", "vy", "hx", "hy", "group", "archetype"]
DTYPES = {"group": "<u4", "archetype": "<u4"}  # the others are "<f4"
HEADER_FIXED = 88
HEADER_MAX = 65536
FRAME_HEAD = 32
FRAME_MAX = 1 << 31  # the largest frame throng's reader accepts (2 GiB)
END_BYTES = 16
END_FRAMES_MASK = (1 << 56) - 1  # the end record's u64: frames (low 56 bits) ...
END_FLAGS_SHIFT = 56             # ... and a flags byte (its top byte)
END_INTERRUPTED = 0x01           # the run was interrupted before its planned end


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
    if fixed[:8] != MAGIC[: len(fixed[:8])]:
        raise StreamError("byte offset 0: not a throng stream")
    if len(fixed) < HEADER_FIXED:
        raise StreamError(f"byte offset {len(fixed)}: the stream ends inside the header")
    major, minor, bom, header_bytes, crc = struct.unpack_from("<HHIII", fixed, 8)
    if major != 1:
        raise StreamError(f"byte offset 8: stream version {major}.{minor}, this reader reads 1.x")
    if bom != 0x01020304:
        raise StreamError("byte offset 12: bad byte-order mark")
    if header_bytes < HEADER_FIXED or header_bytes % 8 or header_bytes > HEADER_MAX:
        raise StreamError(f"byte offset 16: header size {header_bytes} is not a multiple of 8 from 88 to 65536")
    h = fixed + _read_exact(f, header_bytes - HEADER_FIXED, HEADER_FIXED, "the header")
    stored = crc
    computed = _crc_with_zeroed(h, 20)
    if computed != stored:
        raise StreamError(f"byte offset 20: header checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
    agents, mask, frame_bytes, dt, every, mode = struct.unpack_from("<IIQdII", h, 24)
    bounds = struct.unpack_from("<4f", h, 56)
    (seed,) = struct.unpack_from("<Q", h, 72)
    field_count, name_bytes = struct.unpack_from("<IH", h, 80)
    # The reserved u16 at 86 and the padding after the name are not checked:
    # writers write zeros, and a later 1.x version may use them (FORMAT.md).
    if agents == 0:
        raise StreamError("byte offset 24: agent count is 0")
    if mask == 0:
        raise StreamError("byte offset 28: field mask is 0 (no fields)")
    if field_count != bin(mask).count("1"):
        raise StreamError(f"byte offset 80: field count {field_count} does not match the field mask 0x{mask:08x}")
    expect = (FRAME_HEAD + 4 * agents * field_count + 7) // 8 * 8
    if frame_bytes != expect:
        raise StreamError(f"byte offset 32: frame size {frame_bytes}, but {agents} agents with {field_count} fields make {expect}")
    if frame_bytes > FRAME_MAX:
        raise StreamError(f"byte offset 32: frame size {frame_bytes} is larger than this reader accepts ({FRAME_MAX})")
    if not (dt > 0.0 and math.isfinite(dt)):
        raise StreamError(f"byte offset 40: dt {dt} is not a positive number of seconds")
    if every == 0:
        raise StreamError("byte offset 48: frame stride (every) is 0")
    if mode > 3:
        raise StreamError(f"byte offset 52: bounds mode {mode} is not 0 to 3")
    if not all(math.isfinite(b) for b in bounds):
        raise StreamError("byte offset 56: world bounds are not finite")
    if name_bytes > header_bytes - HEADER_FIXED:
        raise StreamError(f"byte offset 84: scenario name of {name_bytes} bytes does not fit a {header_bytes}-byte header")
    return {
        "version": (major, minor), "agents": agents, "fields": mask, "field_count": field_count,
        "frame_bytes": frame_bytes, "dt": dt, "every": every, "bounds_mode": mode,
        "bounds": bounds, "seed": seed, "header_bytes": header_bytes,
        "scenario": h[88:88 + name_bytes].decode("utf-8", "replace"),
        "complete": False, "interrupted": False,
    }


def read_stream(f):
    """Yields (header, frame) for every frame of the binary stream `f`."""
    header = read_header(f)
    for frame in read_frames(f, header):
        yield header, frame


def _read_end_record(f, header, start, frames_read):
    end = b"END!" + _read_exact(f, END_BYTES - 4, start + 4, f"the end record that starts at byte offset {start}")
    (stored, word) = struct.unpack_from("<IQ", end, 4)
    computed = _crc_with_zeroed(end, 4)
    if computed != stored:
        raise StreamError(f"byte offset {start + 4}: end record checksum mismatch "
                          f"(stored 0x{stored:08x}, computed 0x{computed:08x})")
    frames, flags = word & END_FRAMES_MASK, word >> END_FLAGS_SHIFT
    if flags & ~END_INTERRUPTED:
        raise StreamError(f"byte offset {start + 15}: the end record's flags byte is 0x{flags:02x} "
                          "(only bit 0, interrupted, is defined)")
    if frames != frames_read:
        raise StreamError(f"byte offset {start + 8}: the end record counts {frames} frames "
                          f"but the stream holds {frames_read}")
    if f.read(1):
        raise StreamError(f"byte offset {start + END_BYTES}: data after the end record")
    header["complete"] = True
    header["interrupted"] = bool(flags & END_INTERRUPTED)


def read_frames(f, header):
    """Yields the frames that follow `header`; sets header["complete"] (and
    header["interrupted"]) when the end record closes the stream."""
    n, frame_bytes, every, dt = header["agents"], header["frame_bytes"], header["every"], header["dt"]
    offset = header["header_bytes"]
    index = 0
    first_step = 0
    while True:
        marker = f.read(4)
        if not marker:
            return  # ends at a frame boundary: the writer stopped early (complete stays False)
        if len(marker) < 4:
            raise StreamError(f"byte offset {offset + len(marker)}: the stream ends inside the marker of frame {index}")
        if marker == b"END!":
            _read_end_record(f, header, offset, index)
            return
        if marker != b"FRAM":
            raise StreamError(f"byte offset {offset}: expected frame {index}'s marker \"FRAM\" or the end record "
                              f"\"END!\", found {marker.hex(' ')}")
        buf = marker + _read_exact(f, frame_bytes - 4, offset + 4, f"frame {index}")
        stored, idx, step, time = struct.unpack_from("<IQQd", buf, 4)
        computed = _crc_with_zeroed(buf, 4)
        if computed != stored:
            raise StreamError(f"byte offset {offset + 4}: frame {index} checksum mismatch "
                              f"(stored 0x{stored:08x}, computed 0x{computed:08x})")
        if idx != index:
            raise StreamError(f"byte offset {offset + 8}: frame index {idx} where {index} was expected")
        if index == 0:
            first_step = step
        elif step != first_step + index * every:
            raise StreamError(f"byte offset {offset + 16}: frame {index} has step {step}; frame 0 had step "
                              f"{first_step} and the stride is {every}")
        # Python floats are binary64: step * dt is the writer's one multiplication.
        if struct.pack("<d", time) != struct.pack("<d", float(step) * dt):
            raise StreamError(f"byte offset {offset + 24}: frame {index} has time {time!r} s, "
                              f"but step {step} times dt is {float(step) * dt!r} s")
        frame = {"index": idx, "step": step, "time": time}
        at = FRAME_HEAD
        for bit in range(32):  # bits this reader does not know still take 4 * n bytes
            if header["fields"] & (1 << bit):
                if bit < len(FIELDS):
                    name = FIELDS[bit]
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
    try:
        f = sys.stdin.buffer if paths[0] == "-" else open(paths[0], "rb")
    except OSError as e:
        print(f"read_stream.py: {paths[0]}: cannot open for reading: {e.strerror}", file=sys.stderr)
        return 1
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
    except OSError as e:
        print(f"read_stream.py: {paths[0]}: read failed: {e.strerror}", file=sys.stderr)
        return 1
    interrupted = " (interrupted)" if header["interrupted"] else ""
    print(f"frames {frames} complete {'yes' if header['complete'] else 'no'}{interrupted}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
