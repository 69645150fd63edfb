#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a throng binary stream (docs/FORMAT.md) into numpy arrays.

    throng run circle --agents 200 --steps 20 --out - | python3 read_stream.py -
    python3 read_stream.py run.thr            # a file
    python3 read_stream.py --digest run.thr   # one line of bit digests per frame
    python3 read_stream.py --agents run.thr   # every agent of every frame: id and x, y bits

Reads versions 1.x (every frame holds agents 0 .. N-1) and 2.x (agents come
and go: each frame holds its own count and its agents' ids). As a module:
``for header, frame in read_stream(f): ...`` yields the header (a dict) and
one dict per frame with ``index``, ``step``, ``time``, ``count``, ``ids``
(the agents' ids, increasing; 0 .. N-1 in a 1.x stream) and one numpy
array per field present, element k being agent ids[k]. It makes every check
of docs/FORMAT.md ("What a reader checks"), as throng's C reader
(core/io/stream_read.c) does, in the same order and with the same byte
offsets: checksums (zlib.crc32, the writer's CRC-32), the header's values,
each frame's index, step, time and finite coordinates, the end record and
that nothing follows it.

A damaged stream costs nothing: no size the header claims is allocated
before it is held against FRAME_MAX (2 GiB) and, for a regular file (or an
io.BytesIO), against the bytes the file holds. A pipe has no size: there a
frame is read in pieces (1 MiB, then doubling) until the first whole frame
has arrived, so a lying header costs at most about twice what was sent.
Every problem raises StreamError (a ValueError) with the byte offset and
the field: ``e.offset``, ``e.field`` (docs/FORMAT.md's name) and ``e.what``.
Needs numpy (Debian: python3-numpy).
"""
import math
import os
import stat
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
FIELDS = ["x", "y", "vx", "vy", "hx", "hy", "group", "archetype",  # bit order
          "health", "combat_state"]  # since 2.1
DTYPES = {"group": "<u4", "archetype": "<u4", "combat_state": "<u4"}  # the others are "<f4", and must be finite
HEADER_FIXED = 88
HEADER_MAX = 65536  # the largest header a reader accepts
FRAME_HEAD = 32  # a 1.x frame's head: marker, crc, index, step, time
FRAME2_HEAD = 48  # a 2.x frame's: also its size (u64), its count (u32) and a reserved u32; the ids follow
NO_AGENT = 0xFFFFFFFF  # names no agent
FRAME_MAX = 1 << 31  # the largest frame this reader accepts (2 GiB), as throng's C reader
PIPE_CHUNK = 1 << 20  # from a source without a size, a frame arrives in pieces of 1 MiB, then doubling
END_BYTES = 16
END_FRAMES_MASK = (1 << 56) - 1  # the end record's u64: frames (low 56 bits) ...
END_FLAGS_SHIFT = 56             # ... and a flags byte (its top byte)
END_INTERRUPTED = 0x01           # the run was interrupted before its planned end
BOUNDS_CORNERS = ("min x", "min y", "max x", "max y")


class StreamError(ValueError):
    """A truncated or malformed stream.

    str(e) is "byte offset N: what"; e.offset is N, e.field the field at
    fault by its docs/FORMAT.md name ("agents", "frame_bytes", "frame_crc",
    "x", ...; for a stream cut short, the record it ends in: "header",
    "marker", "frame", "end_record"), e.what the message after the offset.
    """

    def __init__(self, offset, field, what):
        super().__init__(f"byte offset {offset}: {what}")
        self.offset, self.field, self.what = offset, field, what


def _source_left(f):
    """Bytes left in `f` when it has a size (a regular file, an io.BytesIO), else None (a pipe)."""
    try:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode):
            return max(st.st_size - f.tell(), 0)
        return None
    except (AttributeError, OSError, ValueError):
        pass
    getbuffer = getattr(f, "getbuffer", None)  # io.BytesIO
    if getbuffer is not None:
        try:
            return max(len(getbuffer()) - f.tell(), 0)
        except (OSError, ValueError):
            return None
    return None


def _read_into(f, view):
    """Fills `view` from f; returns the bytes read (fewer only at the end of the stream)."""
    got = 0
    readinto = getattr(f, "readinto", None)
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:])
        else:
            data = f.read(len(view) - got)
            n = len(data) if data else 0
            view[got:got + n] = data or b""
        if not n:
            break
        got += n
    return got


def _read_rest(f, first, size, sized, start, field, what):
    """Returns a record of `size` bytes that starts with the bytes `first`
    already read, the rest read from f. `sized`: allocate the record at once
    (a source whose size was checked to hold it, or a size the documented
    caps bound); otherwise it arrives in pieces of PIPE_CHUNK, then of what
    has arrived so far, so a header that lies costs at most about twice what
    was sent. Cut short: StreamError at the offset where the bytes end, with
    field and what(bytes of the record received)."""
    have = len(first)
    if sized:
        buf = bytearray(size)
        buf[:have] = first
        have += _read_into(f, memoryview(buf)[have:])
        if have < size:
            raise StreamError(start + have, field, what(have))
        return buf
    pieces = [bytes(first)]
    while have < size:
        data = f.read(min(size - have, max(PIPE_CHUNK, have)))
        if not data:
            raise StreamError(start + have, field, what(have))
        pieces.append(data)
        have += len(data)
    return b"".join(pieces)


def _crc_with_zeroed(buf, at):
    """CRC-32 of buf with its 4-byte checksum field at `at` taken as zero (no copy of buf)."""
    mv = memoryview(buf)
    crc = zlib.crc32(mv[:at])
    crc = zlib.crc32(b"\0\0\0\0", crc)
    return zlib.crc32(mv[at + 4:], crc) & 0xFFFFFFFF


def _pad8(n):
    return (n + 7) // 8 * 8


def _check_fields(agents, mask, field_count, frame_bytes, dt, every, mode, bounds, v2):
    """The checks throng's C reader makes on the header's fields (thr_header_check,
    then the frame size's consistency), in its order; raises StreamError. In a
    2.x header agents is the count the stream began with (0 allowed) and
    frame_bytes is 0: every frame gives its own."""
    bits = bin(mask).count("1")
    if agents == 0 and not v2:
        raise StreamError(24, "agents", "agent count is 0")
    if mask == 0:
        raise StreamError(28, "field_mask", "field mask is 0 (no fields)")
    if field_count != bits:
        raise StreamError(80, "field_count",
                          f"field count {field_count} does not match the field mask 0x{mask:08x} ({bits} bits)")
    if frame_bytes > FRAME_MAX:
        raise StreamError(32, "frame_bytes", f"frame size {frame_bytes} is larger than this reader accepts ({FRAME_MAX})")
    if not (dt > 0.0 and math.isfinite(dt)):
        raise StreamError(40, "dt", f"dt {dt:g} is not a positive number of seconds")
    if every == 0:
        raise StreamError(48, "every", "frame stride (every) is 0")
    if mode > 3:
        raise StreamError(52, "bounds_mode", f"bounds mode {mode} is not 0 to 3")
    for corner, b in zip(BOUNDS_CORNERS, bounds):
        if not math.isfinite(b):
            raise StreamError(56, "bounds", f"world bounds are not finite ({corner} is {b:g})")
    if v2:
        if frame_bytes != 0:
            raise StreamError(32, "frame_bytes", f"frame size {frame_bytes} in a version 2 header, which must be 0 "
                                                 "(every frame gives its own)")
        return
    expect = _pad8(FRAME_HEAD + 4 * agents * field_count)
    if frame_bytes != expect:
        raise StreamError(32, "frame_bytes",
                          f"frame size {frame_bytes}, but {agents} agents with {field_count} fields make {expect}")


def read_header(f):
    fixed = f.read(HEADER_FIXED)
    if fixed[:8] != MAGIC[: len(fixed[:8])]:
        raise StreamError(0, "magic", "not a throng stream (the first 8 bytes are not the magic "
                                      "89 54 48 52 4F 4E 47 0A)")
    if len(fixed) < HEADER_FIXED:
        raise StreamError(len(fixed), "header",
                          f"the stream ends inside the header ({len(fixed)} of at least {HEADER_FIXED} bytes)")
    major, minor, bom, header_bytes, crc = struct.unpack_from("<HHIII", fixed, 8)
    if major not in (1, 2):
        raise StreamError(8, "version_major",
                          f"stream version {major}.{minor}, but this reader reads versions 1.x and 2.x only")
    if bom != 0x01020304:
        raise StreamError(12, "byte_order", f"byte-order mark 0x{bom:08x}, expected 0x01020304 stored little-endian")
    if header_bytes < HEADER_FIXED or header_bytes % 8 or header_bytes > HEADER_MAX:
        raise StreamError(16, "header_bytes",
                          f"header size {header_bytes} is not a multiple of 8 from {HEADER_FIXED} to {HEADER_MAX}")
    left = _source_left(f)
    if left is not None and left < header_bytes - HEADER_FIXED:
        raise StreamError(HEADER_FIXED + left, "header",
                          f"the stream ends inside the header ({HEADER_FIXED + left} of {header_bytes} bytes)")
    # At most 64 KiB (HEADER_MAX): allocated at once.
    h = _read_rest(f, fixed, header_bytes, True, 0, "header",
                   lambda have: f"the stream ends inside the header ({have} of {header_bytes} bytes)")
    computed = _crc_with_zeroed(h, 20)
    if computed != crc:
        raise StreamError(20, "header_crc", f"header checksum mismatch (stored 0x{crc:08x}, computed 0x{computed:08x})")
    agents, mask, frame_bytes, dt, every, mode = struct.unpack_from("<IIQdII", h, 24)
    bounds = struct.unpack_from("<4f", h, 56)
    (seed,) = struct.unpack_from("<Q", h, 72)
    field_count, name_bytes = struct.unpack_from("<IH", h, 80)
    # The reserved u16 at 86 and the padding after the name are not checked:
    # writers write zeros, and a later 1.x version may use them (FORMAT.md).
    _check_fields(agents, mask, field_count, frame_bytes, dt, every, mode, bounds, major == 2)
    if name_bytes > header_bytes - HEADER_FIXED:
        raise StreamError(84, "name_bytes",
                          f"scenario name of {name_bytes} bytes does not fit a {header_bytes}-byte header")
    return {
        "version": (major, minor), "agents": agents, "fields": mask, "field_count": field_count,
        "frame_bytes": frame_bytes, "dt": dt, "every": every, "bounds_mode": mode,
        "bounds": bounds, "seed": seed, "header_bytes": header_bytes,
        "scenario": bytes(h[88:88 + name_bytes]).decode("utf-8", "replace"),
        "complete": False, "interrupted": False,
    }


def read_stream(f):
    """Yields (header, frame) for every frame of the binary stream `f`."""
    header = read_header(f)
    for frame in read_frames(f, header):
        yield header, frame


def _read_end_record(f, header, start, frames_read):
    end = bytearray(b"END!") + bytes(END_BYTES - 4)
    got = _read_into(f, memoryview(end)[4:])
    if got < END_BYTES - 4:
        raise StreamError(start + 4 + got, "end_record",
                          f"the stream ends inside the end record that starts at byte offset {start}")
    (stored, word) = struct.unpack_from("<IQ", end, 4)
    computed = _crc_with_zeroed(end, 4)
    if computed != stored:
        raise StreamError(start + 4, "end_crc", f"end record checksum mismatch "
                                                f"(stored 0x{stored:08x}, computed 0x{computed:08x})")
    frames, flags = word & END_FRAMES_MASK, word >> END_FLAGS_SHIFT
    if flags & ~END_INTERRUPTED:
        raise StreamError(start + 15, "flags", f"the end record's flags byte is 0x{flags:02x} "
                                               "(only bit 0, interrupted, is defined)")
    if frames != frames_read:
        raise StreamError(start + 8, "frames", f"the end record counts {frames} frames "
                                               f"but the stream holds {frames_read}")
    if f.read(1):
        raise StreamError(start + END_BYTES, "end_record", "data after the end record")
    header["complete"] = True
    header["interrupted"] = bool(flags & END_INTERRUPTED)


def first_nonfinite(buf, offset, count):
    """Index of the first non-finite f32 (an infinity or a NaN) among `count`
    at buf[offset:], or None; a piece at a time, so the check costs little
    memory beside the frame."""
    step = 1 << 20
    for at in range(0, count, step):
        k = min(step, count - at)
        ok = np.isfinite(np.frombuffer(buf, dtype="<f4", count=k, offset=offset + 4 * at))
        if not ok.all():
            return at + int(np.argmin(ok))
    return None


def check_coordinates(buf, header, start, index, data_at, n, ids):
    """Refuses a frame whose positions, velocities, headings or health are
    not all finite (a renderer would put an agent nowhere), naming the first
    one as throng's C reader does: its byte offset, the agent's id and the
    field. The arrays start at buf[data_at:], n values each, in bit order."""
    mask = header["fields"]
    present = [FIELDS[b] for b in range(len(FIELDS)) if mask & (1 << b)]
    for slot, name in enumerate(present):
        if name in DTYPES or n == 0:
            continue  # group, archetype and combat_state are whole numbers
        k = first_nonfinite(buf, data_at + 4 * n * slot, n)
        if k is None:
            continue
        at = data_at + 4 * (n * slot + k)
        (value,) = struct.unpack_from("<f", buf, at)
        raise StreamError(start + at, name, f"frame {index}: agent {int(ids[k])}'s {name} is {value:g} "
                                            "(positions, velocities, headings and health must be finite)")


def check_ids(ids, start, index):
    """A 2.x frame's ids must increase, none of them NO_AGENT: refuses the
    first that does not, as throng's C reader does."""
    if len(ids) == 0:
        return
    bad = ids == NO_AGENT
    bad[1:] |= ids[1:] <= ids[:-1]
    if not bad.any():
        return
    k = int(np.argmax(bad))
    at = start + FRAME2_HEAD + 4 * k
    if ids[k] == NO_AGENT:
        raise StreamError(at, "ids", f"frame {index}: agent {k}'s id is 0x{NO_AGENT:08x}, which names no agent")
    raise StreamError(at, "ids", f"frame {index}: agent {k}'s id {int(ids[k])} is not above the id before it, "
                                 f"{int(ids[k - 1])} (ids must increase)")


def _read_frame2_head(f, marker, header, offset, index):
    """Reads the rest of a 2.x frame's 48-byte head and checks that its size
    is what its count and the header's fields make, within FRAME_MAX;
    returns (head, frame_bytes, count)."""
    head = bytearray(marker) + bytearray(FRAME2_HEAD - 4)
    got = _read_into(f, memoryview(head)[4:])
    if got < FRAME2_HEAD - 4:
        raise StreamError(offset + 4 + got, "frame", f"the stream ends inside frame {index} "
                                                     f"({4 + got} of the {FRAME2_HEAD} bytes of its head; the "
                                                     f"frame starts at byte offset {offset})")
    frame_bytes, count = struct.unpack_from("<QI", head, 32)
    fc = header["field_count"]
    expect = _pad8(FRAME2_HEAD + 4 * count * (1 + fc))
    if frame_bytes != expect:
        raise StreamError(offset + 32, "frame_bytes", f"frame {index}: frame size {frame_bytes}, but {count} agents "
                                                      f"with their ids and {fc} fields make {expect}")
    if frame_bytes > FRAME_MAX:
        raise StreamError(offset + 32, "frame_bytes", f"frame {index}: frame size {frame_bytes} ({count} agents) is "
                                                      f"larger than this reader accepts ({FRAME_MAX})")
    return head, frame_bytes, count


def read_frames(f, header):
    """Yields the frames that follow `header`; sets header["complete"] (and
    header["interrupted"]) when the end record closes the stream."""
    every, dt = header["every"], header["dt"]
    v2 = header["version"][0] == 2
    offset = header["header_bytes"]
    iota = None  # a 1.x stream's ids, 0 .. N-1, made with its first frame
    index = 0
    first_step = 0
    whole = 0  # the largest frame that has arrived whole: a frame up to that size is allocated at once
    while True:
        marker = f.read(4)
        if not marker:
            return  # ends at a frame boundary: the writer stopped early (complete stays False)
        if len(marker) < 4:
            raise StreamError(offset + len(marker), "marker", f"the stream ends inside the marker of frame {index} "
                                                              f"(which starts at byte offset {offset})")
        if marker == b"END!":
            _read_end_record(f, header, offset, index)
            return
        if marker != b"FRAM":
            raise StreamError(offset, "marker", f"expected frame {index}'s marker \"FRAM\" or the end record "
                                                f"\"END!\", found {marker.hex(' ')}")
        if v2:
            first, frame_bytes, n = _read_frame2_head(f, marker, header, offset, index)
            data_at = FRAME2_HEAD + 4 * n
        else:
            first, frame_bytes, n, data_at = marker, header["frame_bytes"], header["agents"], FRAME_HEAD
        cut = lambda have, index=index, start=offset, fb=frame_bytes: (  # noqa: E731
            f"the stream ends inside frame {index} ({have} of {fb} bytes; the frame starts at byte offset {start})")
        # A source with a size must hold the whole frame before it is allocated;
        # from a pipe, the frame's bytes are read as they arrive until a frame
        # of that size has come once (then a frame costs no more than what was sent).
        left = _source_left(f)
        if left is not None and left < frame_bytes - len(first):
            raise StreamError(offset + len(first) + left, "frame", cut(len(first) + left))
        buf = _read_rest(f, first, frame_bytes, left is not None or frame_bytes <= whole, offset, "frame", cut)
        whole = max(whole, frame_bytes)
        stored, idx, step, time = struct.unpack_from("<IQQd", buf, 4)
        computed = _crc_with_zeroed(buf, 4)
        if computed != stored:
            raise StreamError(offset + 4, "frame_crc", f"frame {index} checksum mismatch "
                                                       f"(stored 0x{stored:08x}, computed 0x{computed:08x})")
        if idx != index:
            raise StreamError(offset + 8, "index", f"frame index {idx} where {index} was expected")
        if index == 0:
            first_step = step
        elif step != first_step + index * every:
            raise StreamError(offset + 16, "step", f"frame {index} has step {step}; frame 0 had step "
                                                   f"{first_step} and the stride is {every}")
        # Python floats are binary64: step * dt is the writer's one multiplication.
        if struct.pack("<d", time) != struct.pack("<d", float(step) * dt):
            raise StreamError(offset + 24, "time", f"frame {index} has time {time!r} s, "
                                                   f"but step {step} times dt is {float(step) * dt!r} s")
        if v2:
            ids = np.frombuffer(buf, dtype="<u4", count=n, offset=FRAME2_HEAD)
            check_ids(ids, offset, index)
        else:
            if iota is None:
                iota = np.arange(n, dtype="<u4")
            ids = iota
        ids.flags.writeable = False
        check_coordinates(buf, header, offset, index, data_at, n, ids)
        frame = {"index": idx, "step": step, "time": time, "count": n, "ids": ids}
        at = data_at
        for bit in range(32):  # bits this reader does not know still take 4 * n bytes
            if header["fields"] & (1 << bit):
                if bit < len(FIELDS):
                    name = FIELDS[bit]
                    a = np.frombuffer(buf, dtype=DTYPES.get(name, "<f4"), count=n, offset=at)
                    a.flags.writeable = False  # read-only, whatever buffer the frame arrived in
                    frame[name] = a
                at += 4 * n
        yield frame
        offset += frame_bytes
        index += 1


def main(argv):
    digest, agents = "--digest" in argv, "--agents" in argv
    paths = [a for a in argv[1:] if a not in ("--digest", "--agents")]
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: read_stream.py [--digest | --agents] FILE|-", file=sys.stderr)
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
            elif agents:
                # Every agent by id, its position as the raw bits of its floats.
                print(f"frame {frame['index']} step {frame['step']} count {frame['count']}")
                x, y = frame.get("x"), frame.get("y")
                for k, i in enumerate(frame["ids"]):
                    where = f" {int(x.view('<u4')[k]):08x} {int(y.view('<u4')[k]):08x}" if x is not None and y is not None else ""
                    print(f"{int(i)}{where}")
            else:
                x, y = frame.get("x"), frame.get("y")
                where = (f" agent {int(frame['ids'][0])} at ({x[0]:.3f}, {y[0]:.3f})"
                         if x is not None and y is not None and frame["count"] else "")
                print(f"frame {frame['index']} step {frame['step']} t={frame['time']:.3f}s "
                      f"{frame['count']} agents{where}")
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
