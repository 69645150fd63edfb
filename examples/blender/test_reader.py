#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python readers without Blender (ctest renderer_reader): python3 with numpy.

    python3 test_reader.py RUN.thr RUN.csv SCENE.yaml

RUN.thr and RUN.csv are the same run of SCENE.yaml with --fields all. The
readers are the importer's (io_import_throng/reader.py: stream and CSV) and
examples/read_stream.py (read from a file, a pipe and an io.BytesIO).

- Streams of both versions: RUN.thr (version 2) is also rewritten here as
  the version 1 stream of the same run; the damages below are made to
  both, and the version 2 frame's own (its size, its count, its ids).
- Agents that come and go: a churned stream and its CSV, written here from
  docs/FORMAT.md alone, read as the frames hold them, by id.

- Every damage docs/FORMAT.md calls corrupt or truncated, every header field
  out of range and every non-finite coordinate must fail in every reader
  with its own error type (a ValueError), the byte offset and the field, in
  the message and as attributes, at the offset throng's C reader names; a
  stream stopped at a frame boundary and an end record marked interrupted
  read whole.
- A damaged file costs nothing (issue 30, defect 4): a small file whose
  consistent header claims 2^28 or 2^30 agents is refused by each reader in
  a child process whose address space is limited to what it uses plus
  256 MiB, from a file and from a pipe.
- CSV (issue 30, defect 14): a row cut short names its line and the missing
  column, a UTF-8 byte-order mark and CRLF line ends import as the plain
  file does, nan and inf are refused with their line and column.
- read_stream.py's advice when numpy is missing names a Python that has it.
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, EXAMPLES)
from checks import check, failures, recrc  # noqa: E402
from io_import_throng import reader, scenefile  # noqa: E402
import read_stream  # noqa: E402  (examples/read_stream.py)




# ---------------------------------------------------------------------------
# Streams: every reader, every damage.

def read_whole(kind, data, tmp):
    """Reads the stream `data` whole with one reader. Returns (frames,
    complete, interrupted); a reader's error propagates."""
    path = os.path.join(tmp, "case.thr")
    if kind == "reader.py":
        with open(path, "wb") as f:
            f.write(data)
        c = reader.read(path)
        return c.frames, c.complete, bool(c.end_flags & 1)
    if kind == "read_stream.py, file":
        with open(path, "wb") as f:
            f.write(data)
        with open(path, "rb") as f:
            return read_stream_all(f)
    if kind == "read_stream.py, BytesIO":
        return read_stream_all(io.BytesIO(data))
    r, w = os.pipe()  # "read_stream.py, pipe": no size to check against

    def feed():
        try:
            with os.fdopen(w, "wb") as out:
                out.write(data)
        except OSError:  # the reader stopped early and closed its end
            pass
    t = threading.Thread(target=feed)
    t.start()
    try:
        with os.fdopen(r, "rb") as f:
            return read_stream_all(f)
    finally:
        t.join()


def read_stream_all(f):
    h = read_stream.read_header(f)
    frames = sum(1 for _ in read_stream.read_frames(f, h))
    return frames, h["complete"], h["interrupted"]


STREAM_READERS = ("reader.py", "read_stream.py, file", "read_stream.py, pipe", "read_stream.py, BytesIO")


def error_of(kind):
    return reader.ThrongReadError if kind == "reader.py" else read_stream.StreamError


def check_refusal(kind, name, e, offset, field, words, path=None):
    """e: what reader `kind` raised for case `name`; it must be the reader's own
    error type (a ValueError), name the byte offset and the field in its
    message and carry them as attributes."""
    at = f"byte offset {offset}: "
    msg = str(e)
    ok = (isinstance(e, error_of(kind)) and isinstance(e, ValueError) and e.offset == offset and e.field == field
          and at in msg and words in msg and (path is None or msg.startswith(f"{path}: {at}")))
    check(ok, f"{kind}, {name}: {type(e).__name__} {msg!r} (offset {getattr(e, 'offset', None)}, field "
              f"{getattr(e, 'field', None)!r}), expected {at}...{words}... (offset {offset}, field {field!r})")


def expect_refused(tmp, name, data, offset, field, words, kinds=STREAM_READERS):
    for kind in kinds:
        try:
            got = read_whole(kind, data, tmp)
            check(False, f"{kind}, {name}: read without error ({got}), expected byte offset {offset}: {words}")
        except Exception as e:  # noqa: BLE001  (any other type is a failure too)
            path = os.path.join(tmp, "case.thr") if kind == "reader.py" else None
            check_refusal(kind, name, e, offset, field, words, path)


def expect_read(tmp, name, data, frames, complete, interrupted, kinds=STREAM_READERS):
    for kind in kinds:
        try:
            got = read_whole(kind, data, tmp)
        except Exception as e:  # noqa: BLE001
            got = f"{type(e).__name__}: {e}"
        check(got == (frames, complete, interrupted),
              f"{kind}, {name}: {got}, expected {frames} frames, complete {complete}, interrupted {interrupted}")


def frames_of(raw):
    """The frames of the version 2 stream raw: [(start, size, count)]."""
    (hb,) = struct.unpack_from("<I", raw, 16)
    out, at = [], hb
    while raw[at:at + 4] == b"FRAM":
        fb, n = struct.unpack_from("<QI", raw, at + 32)
        out.append((at, fb, n))
        at += fb
    return out


def to_v1(raw):
    """The version 2 stream raw (every frame the same agents 0 .. N-1) as the
    version 1.0 stream of the same run: no size, count or ids in the frames,
    and only 1.x's fields (bits 0-7: health, 2.1's, is left out)."""
    (hb,) = struct.unpack_from("<I", raw, 16)
    (mask,) = struct.unpack_from("<I", raw, 28)
    fc = bin(mask & 0xFF).count("1")  # 1.x's fields come first in a frame
    frames = frames_of(raw)
    n = frames[0][2]
    fb = (32 + 4 * n * fc + 7) // 8 * 8
    head = bytearray(raw[:hb])
    struct.pack_into("<HH", head, 8, 1, 0)
    struct.pack_into("<I", head, 28, mask & 0xFF)
    struct.pack_into("<I", head, 80, fc)
    struct.pack_into("<Q", head, 32, fb)
    recrc(head, 0, hb, 20)
    out = bytearray(head)
    for at, _, count in frames:
        assert count == n and raw[at + 48:at + 48 + 4 * n] == np.arange(n, dtype="<u4").tobytes()
        fr = bytearray(fb)
        fr[:32] = raw[at:at + 32]
        fr[32:32 + 4 * n * fc] = raw[at + 48 + 4 * n:at + 48 + 4 * n * (1 + fc)]
        recrc(fr, 0, fb, 4)
        out += fr
    out += raw[frames[-1][0] + frames[-1][1]:]  # the end record
    return bytes(out)


def stream_cases(raw, tmp):
    """A version 1 stream's damages (the header, the frames, the end record)."""
    (hb,) = struct.unpack_from("<I", raw, 16)
    (agents, mask, fb) = struct.unpack_from("<IIQ", raw, 24)
    (every,) = struct.unpack_from("<I", raw, 48)
    fields = bin(mask).count("1")
    assert mask == 0xFF and hb > 88 + raw[84], "the run has every field of 1.x and header padding"
    end = len(raw) - 16
    frames = (end - hb) // fb
    f0, f2 = hb, hb + 2 * fb

    def edit(*changes, record=None):
        """raw with the changes (offset, struct format, value) made and the
        record's checksum recomputed, so the check under test is the one that fires."""
        b = bytearray(raw)
        for at, fmt, value in changes:
            struct.pack_into(fmt, b, at, value)
        if record == "header":
            recrc(b, 0, hb, 20)
        elif record == "frame":
            recrc(b, f2, fb, 4)
        elif record == "frame 0":
            recrc(b, f0, fb, 4)
        elif record == "end":
            recrc(b, end, 16, 4)
        return bytes(b)

    def header(*changes):
        return edit(*changes, record="header")

    big = 1 << 30  # the header: 2^30 agents of 6 fields, 24 GiB frames
    big_fb = (32 + 4 * big * 6 + 7) // 8 * 8
    nan, inf = float("nan"), float("inf")
    cases = [
        # The header, in the C reader's order (core/io/stream_read.c).
        ("magic", edit((1, "<B", 0x55)), 0, "magic", "not a throng stream"),
        ("version", edit((8, "<H", 3)), 8, "version_major",
         "stream version 3.0, but this reader reads versions 1.x and 2.x only"),
        ("byte order", edit((12, "<I", 0x04030201)), 12, "byte_order", "byte-order mark 0x04030201"),
        ("header size 100", edit((16, "<I", 100)), 16, "header_bytes", "header size 100 is not a multiple of 8"),
        ("header size 80", edit((16, "<I", 80)), 16, "header_bytes", "header size 80 is not a multiple of 8"),
        ("header size 65544", edit((16, "<I", 65544)), 16, "header_bytes", "header size 65544 is not"),
        ("header of 65536 bytes in a smaller file", edit((16, "<I", 65536)), len(raw), "header",
         f"the stream ends inside the header ({len(raw)} of 65536 bytes)"),
        ("header checksum", edit((90, "<B", raw[90] ^ 1)), 20, "header_crc", "header checksum mismatch"),
        ("agents 0", header((24, "<I", 0)), 24, "agents", "agent count is 0"),
        ("field mask 0", header((28, "<I", 0)), 28, "field_mask", "field mask is 0 (no fields)"),
        ("field count", header((80, "<I", fields + 1)), 80, "field_count",
         f"field count {fields + 1} does not match the field mask 0x000000ff (8 bits)"),
        ("frame size", header((32, "<Q", fb + 8)), 32, "frame_bytes",
         f"frame size {fb + 8}, but {agents} agents with {fields} fields make {fb}"),
        ("2^30 agents: a 24 GiB frame", header((24, "<I", big), (28, "<I", 0x3F), (80, "<I", 6), (32, "<Q", big_fb)),
         32, "frame_bytes", f"frame size {big_fb} is larger than this reader accepts (2147483648)"),
        ("dt -1", header((40, "<d", -1.0)), 40, "dt", "dt -1 is not a positive number of seconds"),
        ("dt 0", header((40, "<d", 0.0)), 40, "dt", "dt 0 is not a positive number of seconds"),
        ("dt nan", header((40, "<d", nan)), 40, "dt", "dt nan is not a positive number of seconds"),
        ("dt inf", header((40, "<d", inf)), 40, "dt", "dt inf is not a positive number of seconds"),
        ("every 0", header((48, "<I", 0)), 48, "every", "frame stride (every) is 0"),
        ("bounds mode 4", header((52, "<I", 4)), 52, "bounds_mode", "bounds mode 4 is not 0 to 3"),
        ("bounds mode 2^32-1", header((52, "<I", 0xFFFFFFFF)), 52, "bounds_mode", "bounds mode 4294967295 is not"),
    ]
    for k, corner in enumerate(("min x", "min y", "max x", "max y")):
        v = (inf, -inf, nan)[k % 3]
        cases.append((f"bounds {corner} {v}", header((56 + 4 * k, "<f", v)), 56, "bounds",
                      f"world bounds are not finite ({corner} is {v:g})"))
    cases += [
        ("name length", header((84, "<H", 4000)), 84, "name_bytes",
         f"scenario name of 4000 bytes does not fit a {hb}-byte header"),
        # Two faults: the C reader checks every 0 before the frame size's consistency.
        ("every 0 and a wrong frame size", header((48, "<I", 0), (32, "<Q", fb + 8)), 48, "every", "frame stride"),
        # Frames and the end record.
        ("frame checksum", edit((f2 + 40, "<B", raw[f2 + 40] ^ 0x10)), f2 + 4, "frame_crc",
         "frame 2 checksum mismatch"),
        ("frame index", edit((f2 + 8, "<Q", 7), record="frame"), f2 + 8, "index", "frame index 7 where 2 was expected"),
        ("frame step", edit((f2 + 16, "<Q", 2 * every + 1), record="frame"), f2 + 16, "step",
         f"frame 2 has step {2 * every + 1}"),
        ("frame time", edit((f2 + 24, "<d", 99.0), record="frame"), f2 + 24, "time", "frame 2 has time 99.0 s"),
        ("frame marker", edit((f2, "4s", b"FRAX")), f2, "marker", "expected frame 2's marker"),
        ("cut inside a frame", raw[:f2 + 100], f2 + 100, "frame",
         f"the stream ends inside frame 2 (100 of {fb} bytes; the frame starts at byte offset {f2})"),
        ("cut inside a marker", raw[:f2 + 2], f2 + 2, "marker", "the stream ends inside the marker of frame 2"),
        ("cut inside the end record", raw[:end + 10], end + 10, "end_record",
         "the stream ends inside the end record"),
        ("end checksum", edit((end + 8, "<B", raw[end + 8] ^ 1)), end + 4, "end_crc", "end record checksum"),
        ("end count", edit((end + 8, "<Q", 3), record="end"), end + 8, "frames", "the end record counts 3 frames"),
        ("end flags 0x02", edit((end + 15, "<B", 0x02), record="end"), end + 15, "flags",
         "the end record's flags byte is 0x02"),
        ("a byte after the end record", raw + b"\0", len(raw), "end_record", "data after the end record"),
        # Non-finite coordinates (arrays: x, y, vx, vy, hx, hy, group, archetype; 4 * agents bytes each).
        ("x nan", edit((f2 + 32 + 4 * 2, "<f", nan), record="frame"), f2 + 32 + 4 * 2, "x",
         "frame 2: agent 2's x is nan (positions, velocities, headings and health must be finite)"),
        ("y nan in frame 0", edit((f0 + 32 + 4 * agents, "<f", nan), record="frame 0"), f0 + 32 + 4 * agents, "y",
         "frame 0: agent 0's y is nan"),
        ("vx -inf", edit((f2 + 32 + 4 * (2 * agents + 8), "<f", -inf), record="frame"),
         f2 + 32 + 4 * (2 * agents + 8), "vx", "frame 2: agent 8's vx is -inf"),
        ("hy inf", edit((f2 + 32 + 4 * (5 * agents + 3), "<f", inf), record="frame"),
         f2 + 32 + 4 * (5 * agents + 3), "hy", "frame 2: agent 3's hy is inf"),
    ]
    for name, data, offset, field, words in cases:
        expect_refused(tmp, name, data, offset, field, words)
    expect_refused(tmp, "no frame", raw[:hb], hb, "frame", "the stream holds no frame", kinds=("reader.py",))
    expect_read(tmp, "no frame", raw[:hb], 0, False, False, kinds=STREAM_READERS[1:])

    # Read whole: what FORMAT.md leaves unchecked (reserved and padding bytes;
    # group and archetype are whole numbers, so any bits are a label), a run
    # stopped at a frame boundary, and an end record marking an interrupted run.
    group_nan = edit((f2 + 32 + 4 * (6 * agents + 1), "<I", 0x7FC00000), record="frame")
    for name, data, complete, interrupted in (
            ("reserved bytes", header((86, "<H", 0xFFFF)), True, False),
            ("header padding", header((hb - 1, "<B", 0x7F)), True, False),
            ("a group label with a NaN's bits", group_nan, True, False),
            ("stopped", raw[:end], False, False),
            ("interrupted", edit((end + 15, "<B", 0x01), record="end"), True, True)):
        expect_read(tmp, name, data, frames, complete, interrupted)
    path = os.path.join(tmp, "group.thr")
    with open(path, "wb") as f:
        f.write(group_nan)
    check(int(reader.read(path).frame(2)["group"][1]) == 0x7FC00000, "the group label 0x7fc00000 reads back")
    c = reader.read(os.path.join(tmp, "case.thr"))  # the interrupted stream, written last
    check(c.complete and c.end_flags == 1 and c.frames == frames, f"interrupted: {c.complete}, {c.end_flags}")


def stream2_cases(raw, tmp):
    """A version 2 stream's own damages: the header's frame size, a frame's
    size and count, which are checked before its checksum (they say how much
    to read), and its ids; and the coordinates after the ids."""
    (hb,) = struct.unpack_from("<I", raw, 16)
    (fc,) = struct.unpack_from("<I", raw, 80)
    frames = frames_of(raw)
    f2, fb, n = frames[2]

    def edit(*changes, frame=False):
        b = bytearray(raw)
        for at, fmt, value in changes:
            struct.pack_into(fmt, b, at, value)
        if frame:
            recrc(b, f2, fb, 4)
        recrc(b, 0, hb, 20)
        return bytes(b)
    big = 1 << 28
    big_fb = (48 + 4 * big * (1 + fc) + 7) // 8 * 8
    cases = [
        ("a frame size in the header", edit((32, "<Q", fb)), 32, "frame_bytes",
         f"frame size {fb} in a version 2 header, which must be 0"),
        ("a frame size its count does not make", edit((f2 + 32, "<Q", fb + 8)), f2 + 32, "frame_bytes",
         f"frame 2: frame size {fb + 8}, but {n} agents with their ids and {fc} fields make {fb}"),
        ("a count its frame size does not hold", edit((f2 + 40, "<I", n + 1)), f2 + 32, "frame_bytes",
         f"frame 2: frame size {fb}, but {n + 1} agents with their ids and {fc} fields make "
         f"{(48 + 4 * (n + 1) * (1 + fc) + 7) // 8 * 8}"),
        ("2^28 agents in a frame", edit((f2 + 40, "<I", big), (f2 + 32, "<Q", big_fb)), f2 + 32, "frame_bytes",
         f"frame 2: frame size {big_fb} ({big} agents) is larger than this reader accepts (2147483648)"),
        ("ids that do not increase", edit((f2 + 48 + 4 * 3, "<I", 1), frame=True), f2 + 48 + 4 * 3, "ids",
         "frame 2: agent 3's id 1 is not above the id before it, 2 (ids must increase)"),
        ("an id that names no agent", edit((f2 + 48 + 4 * (n - 1), "<I", 0xFFFFFFFF), frame=True),
         f2 + 48 + 4 * (n - 1), "ids", f"frame 2: agent {n - 1}'s id is 0xffffffff, which names no agent"),
        ("cut inside a frame's head", raw[:f2 + 20], f2 + 20, "frame",
         f"the stream ends inside frame 2 (20 of the 48 bytes of its head; the frame starts at byte offset {f2})"),
        ("x nan after the ids", edit((f2 + 48 + 4 * n + 4 * 2, "<f", float("nan")), frame=True),
         f2 + 48 + 4 * n + 4 * 2, "x", "frame 2: agent 2's x is nan"),
    ]
    for name, data, offset, field, words in cases:
        expect_refused(tmp, name, data, offset, field, words)
    # Accepted: agents 0 in the header (the run began empty), the reserved word.
    for name, data in (("agents 0 in the header", edit((24, "<I", 0))),
                       ("a frame's reserved word", edit((f2 + 44, "<I", 7), frame=True))):
        expect_read(tmp, name, data, len(frames), True, False)


def write_stream2(frames, fields=("x", "y", "group"), dt=0.1):
    """A version 2 stream, from docs/FORMAT.md: frames are (ids, {field: values})."""
    mask = sum(1 << reader.FIELDS.index(name) for name in fields)
    b = bytearray(96)
    b[:8] = b"\x89THRONG\n"
    struct.pack_into("<HHII", b, 8, 2, 0, 0x01020304, 96)
    struct.pack_into("<IIQdII4fQIH", b, 24, len(frames[0][0]), mask, 0, dt, 1, 3, -10, -10, 10, 10, 1,
                     len(fields), 5)
    b[88:93] = b"churn"
    recrc(b, 0, 96, 20)
    for k, (ids, values) in enumerate(frames):
        n = len(ids)
        fb = (48 + 4 * n * (1 + len(fields)) + 7) // 8 * 8
        fr = bytearray(fb)
        struct.pack_into("<4sIQQdQI", fr, 0, b"FRAM", 0, k, k, k * dt, fb, n)
        fr[48:48 + 4 * n] = np.asarray(ids, dtype="<u4").tobytes()
        for j, name in enumerate(sorted(fields, key=reader.FIELDS.index)):
            kind = "<u4" if name in reader.INT_FIELDS else "<f4"
            fr[48 + 4 * n * (1 + j):48 + 4 * n * (2 + j)] = np.asarray(values[name], dtype=kind).tobytes()
        recrc(fr, 0, fb, 4)
        b += fr
    end = bytearray(16)
    struct.pack_into("<4sIQ", end, 0, b"END!", 0, len(frames))
    recrc(end, 0, 16, 4)
    return bytes(b + end)


def churn_cases(tmp):
    """Agents that come and go: 3, 5 and 8 are there from the start, 5 leaves
    after frame 1, 9 comes in at frame 2, frame 3 is empty, 5 never comes
    back and 12 comes in at frame 4. Read from the stream and from its CSV,
    by both readers, frame by frame, by id."""
    frames = [([3, 5, 8], [1.0, 2.0, 3.0]), ([3, 5, 8], [1.5, 2.5, 3.5]), ([3, 8, 9], [2.0, 4.0, -1.0]),
              ([], []), ([8, 12], [5.0, 7.0])]
    data = [(ids, {"x": xs, "y": [-v for v in xs], "group": [i % 2 for i in ids]}) for ids, xs in frames]
    raw = write_stream2(data)
    path = os.path.join(tmp, "churn.thr")
    with open(path, "wb") as f:
        f.write(raw)
    csv = os.path.join(tmp, "churn.csv")
    with open(csv, "w") as f:
        f.write("id,frame,time,x,y,group\n")
        for k, (ids, values) in enumerate(data):
            for j, i in enumerate(ids):
                f.write(f"{i},{k},{k * 0.1:.9g},{values['x'][j]:.9g},{values['y'][j]:.9g},{values['group'][j]}\n")
    for source in (path, csv):
        c = reader.read(source)
        check(c.churn and c.frames == 5 and c.agents == 5 and c.ids.tolist() == [3, 5, 8, 9, 12],
              f"{source}: churn {c.churn}, {c.frames} frames, ids {c.ids.tolist()}")
        for k, (ids, values) in enumerate(data):
            f = c.frame(k)
            got = c.ids[f["present"]].tolist()
            at = [c.ids.tolist().index(i) for i in ids]
            check(got == ids and f["x"][at].tolist() == values["x"] and f["y"][at].tolist() == values["y"]
                  and f["group"][at].tolist() == values["group"] and not f["x"][~f["present"]].any(),
                  f"{source}, frame {k}: ids {got}, x {f['x'].tolist()}, expected ids {ids}, x {values['x']}")
        check(c.first_values("group").tolist() == [1, 1, 0, 1, 0], f"{source}: first groups "
              f"{c.first_values('group').tolist()}")
        check(abs(c.period - 0.1) < 1e-6, f"{source}: period {c.period}")
    got = [(fr["ids"].tolist(), fr["x"].tolist()) for _, fr in read_stream.read_stream(io.BytesIO(raw))]
    check(got == frames, f"read_stream.py: {got}")
    expect_read(tmp, "a churned stream", raw, 5, True, False)
    # A CSV whose ids go back within a frame, or whose frames go back.
    lines = open(csv).read().splitlines(keepends=True)
    csv_refused(tmp, "ids back within a frame", "".join(lines[:2] + [lines[3], lines[2]] + lines[4:]), 4, "id",
                "agent 5 of frame 0 after agent 8 of frame 0 (rows go by frame, then increasing id)")
    csv_refused(tmp, "frames back", "".join(lines[:-1] + [lines[5]]), len(lines), "frame",
                "agent 5 of frame 1 after agent 8 of frame 4")


def forged(agents, mask, tail, header_bytes=96):
    """A consistent header (checksum right) for `agents` agents with the fields
    `mask`, then `tail` bytes (a frame marker and zeros)."""
    fc = bin(mask).count("1")
    b = bytearray(header_bytes)
    b[:8] = b"\x89THRONG\n"
    struct.pack_into("<HHII", b, 8, 1, 0, 0x01020304, header_bytes)
    struct.pack_into("<IIQdII4fQIH", b, 24, agents, mask, (32 + 4 * agents * fc + 7) // 8 * 8, 0.01, 1, 0,
                     -10, -10, 10, 10, 1, fc, 6)
    b[88:94] = b"forged"
    recrc(b, 0, header_bytes, 20)
    return bytes(b) + (b"FRAM" + bytes(max(tail - 4, 0)))[:tail]


# Run in a child: the reader, with the address space limited to what the
# child uses once numpy and the readers are loaded, plus 256 MiB. A reader
# that allocates the frame a header claims fails there with MemoryError.
CHILD = r"""
import json, os, resource, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import numpy
import read_stream
from io_import_throng import reader
kind, path = sys.argv[3], sys.argv[4]
pages = int(open("/proc/self/statm").read().split()[0])
limit = pages * os.sysconf("SC_PAGE_SIZE") + (256 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    if kind == "reader.py":
        reader.read(path)
    else:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
        h = read_stream.read_header(f)
        for _ in read_stream.read_frames(f, h):
            pass
    out = {"type": None}
except BaseException as e:
    out = {"type": type(e).__name__, "valueerror": isinstance(e, ValueError), "msg": str(e),
           "offset": getattr(e, "offset", None), "field": getattr(e, "field", None)}
print(json.dumps(out))
"""


def huge_header_cases(tmp):
    """Issue 30, defect 4: a small file whose header claims a huge frame."""
    cases = [
        # 2^28 agents of x: 1 GiB frames, under the 2 GiB cap; the file has
        # the header, a marker and 15 KB, so frame 0 ends where the file does.
        ("2^28 agents, 15 KB", forged(1 << 28, 0x01, 15000), 96 + 15000, "frame",
         f"the stream ends inside frame 0 ({15000} of {32 + 4 * (1 << 28)} bytes"),
        # 2^26 agents of x, y, vx, vy, hx, hy: 1.5 GiB frames.
        ("2^26 agents of 6 fields, 15 KB", forged(1 << 26, 0x3F, 15000), 96 + 15000, "frame",
         "the stream ends inside frame 0"),
        # The file: 2^30 agents of 6 fields, 24 GiB frames: over the cap.
        ("2^30 agents of 6 fields, 15 KB", forged(1 << 30, 0x3F, 15000), 32, "frame_bytes",
         "is larger than this reader accepts (2147483648)"),
        ("2^30 agents of every field, 15 KB", forged(1 << 30, 0xFF, 15000), 32, "frame_bytes",
         "is larger than this reader accepts (2147483648)"),
    ]
    short = bytearray(forged(5, 0x01, 104))
    struct.pack_into("<I", short, 16, 65536)  # a header of 64 KiB in a 200-byte file
    cases.append(("a 64 KiB header, 200 bytes", bytes(short), 200, "header",
                  "the stream ends inside the header (200 of 65536 bytes)"))
    path = os.path.join(tmp, "huge.thr")
    for name, data, offset, field, words in cases:
        with open(path, "wb") as f:
            f.write(data)
        for kind, source in (("reader.py", path), ("read_stream.py, file", path), ("read_stream.py, pipe", "-")):
            p = subprocess.run([sys.executable, "-c", CHILD, HERE, EXAMPLES, kind, source],
                               input=data if source == "-" else None, capture_output=True, timeout=120)
            try:
                out = json.loads(p.stdout.decode().strip().splitlines()[-1])
            except (IndexError, ValueError):
                out = {"type": f"no result (exit {p.returncode}): {p.stderr.decode()[-300:]}"}
            want_type = "ThrongReadError" if kind == "reader.py" else "StreamError"
            at = f"byte offset {offset}: "
            ok = (out.get("type") == want_type and out.get("valueerror") and out.get("offset") == offset
                  and out.get("field") == field and at in out.get("msg", "") and words in out.get("msg", ""))
            check(ok, f"{kind}, {name}, in 256 MiB: {out}, expected {want_type} {at}...{words}... field {field!r}")


def pipe_cases(tmp):
    """read_stream.py from a pipe (no size): 3 MiB frames arrive in pieces
    (1 MiB, 2, then the rest); a cut anywhere names its offset and frame."""
    agents = 3 << 18  # x only: 3 MiB + 32 bytes a frame
    head = forged(agents, 0x01, 0)
    fb = 32 + 4 * agents
    s = bytearray(head + bytes(2 * fb))
    for k in range(2):
        at = len(head) + k * fb
        struct.pack_into("<4sIQQd", s, at, b"FRAM", 0, k, k, k * 0.01)
        struct.pack_into("<f", s, at + 32 + 4 * (agents - 1), float(k + 1))
        recrc(s, at, fb, 4)
    h = len(head)
    for cut in (h + 100, h + (1 << 20), h + (1 << 20) + 1, h + (3 << 20), h + fb + 5, h + 2 * fb - 1):
        index = (cut - h) // fb
        expect_refused(tmp, f"3 MiB frames cut at {cut}", bytes(s[:cut]), cut, "frame",
                       f"the stream ends inside frame {index} ({cut - h - index * fb} of {fb} bytes",
                       kinds=STREAM_READERS)
    expect_read(tmp, "3 MiB frames", bytes(s), 2, False, False)
    got = [float(fr["x"][-1]) for _, fr in read_stream.read_stream(io.BytesIO(bytes(s)))]
    check(got == [1.0, 2.0], f"3 MiB frames: the last agent's x {got}")


# ---------------------------------------------------------------------------
# CSV (issue 30, defect 14).

def csv_refused(tmp, name, data, line, field, words, mode="w"):
    path = os.path.join(tmp, "case.csv")
    with open(path, mode) as f:
        f.write(data)
    try:
        reader.read(path)
        check(False, f"csv {name}: read without error, expected line {line}: {words}")
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        ok = (isinstance(e, reader.ThrongReadError) and isinstance(e, ValueError) and e.line == line
              and e.field == field and msg.startswith(f"{path}: line {line}: ") and words in msg
              and "usecols" not in msg and "float64" not in msg)
        check(ok, f"csv {name}: {type(e).__name__} {msg!r} (line {getattr(e, 'line', None)}, field "
                  f"{getattr(e, 'field', None)!r}), expected line {line}: ...{words}... (field {field!r})")


def csv_cases(csv_path, crowd, tmp):
    text = open(csv_path).read()
    lines = text.splitlines(keepends=True)
    agents = crowd.agents
    head = lines[0].rstrip("\n").split(",")
    assert head[3:5] == ["x", "y"] and len(head) == 13, head

    def with_line(k, new):
        """The CSV with line k (1-based) replaced."""
        return "".join(lines[:k - 1] + [new] + lines[k:])

    def value(k, col, v):
        cells = lines[k - 1].rstrip("\n").split(",")
        cells[head.index(col)] = v
        return with_line(k, ",".join(cells) + "\n")

    swapped = lines[:5] + [lines[6], lines[5]] + lines[7:]
    short7 = ",".join(lines[6].split(",")[:4]) + "\n"
    cases = [
        ("swapped", "".join(swapped), 7, "id",
         "agent 4 of frame 0 after agent 5 of frame 0 (rows go by frame, then increasing id)"),
        ("unknown column", "id,frame,time,x,y,z\n" + "".join(lines[1:]), 1, "z", "unknown column 'z'"),
        ("a column twice", "id,frame,time,x,x\n" + "".join(lines[1:]), 1, "x", "column 'x' is named twice"),
        # A row cut short: its line and the column it stops before, without numpy's advice.
        ("a row cut short", with_line(7, short7), 7, "y", "4 of 13 values: the row is cut short before column 'y'"),
        ("the last row cut short", "".join(lines[:-1]) + lines[-1][:9], len(lines), None, "of 13 values: the row is "
         "cut short before column"),
        ("a row too long", with_line(9, lines[8].rstrip("\n") + ",0\n"), 9, "row", "14 values, but line 1 names 13"),
        ("not a number", value(12, "y", "abc"), 12, "y", "column 'y': 'abc' is not a number"),
        ("1_0", value(12, "x", "1_0"), 12, "x", "column 'x': '1_0' is not a number"),
        ("an empty line", with_line(20, "\n" + lines[19]), 20, "row", "an empty line among the rows"),
        ("a blank line", with_line(20, "  \n" + lines[19]), 20, "row", "an empty line among the rows"),
        ("a lone carriage return", with_line(5, lines[4].rstrip("\n") + "\r" + lines[5]), 5, "row",
         "a carriage return inside the row"),
        # Non-finite values, and floats beyond 32 bits.
        ("x inf", value(9, "x", "inf"), 9, "x", "column 'x' is inf (positions, velocities, headings and health must be finite)"),
        ("heading_y nan", value(30, "heading_y", "nan"), 30, "heading_y", "column 'heading_y' is nan"),
        ("velocity_x -inf", value(31, "velocity_x", "-inf"), 31, "velocity_x", "column 'velocity_x' is -inf"),
        ("x 1e999", value(9, "x", "1e999"), 9, "x", "column 'x' is inf"),
        ("time nan", value(2, "time", "nan"), 2, "time", "column 'time' is nan (every value must be a finite number)"),
        ("y 1e39", value(40, "y", "1e39"), 40, "y", "column 'y' is 1e+39, beyond a 32-bit float's range"),
        ("group 1.5", value(11, "group", "1.5"), 11, "group", "column 'group' is 1.5, not a whole number"),
        ("archetype -1", value(11, "archetype", "-1"), 11, "archetype", "column 'archetype' is -1, not a whole number"),
        ("group 2^32", value(11, "group", "4294967296"), 11, "group", "not a whole number from 0 to 4294967295"),
        ("group inf", value(11, "group", "inf"), 11, "group", "column 'group' is inf (every value must be"),
        ("no row", lines[0], 2, "row", "the CSV holds no row"),
    ]
    for name, data, line, field, words in cases:
        if field is None:  # the column the last row stops before
            field = head[len(lines[-1][:9].split(","))]
        csv_refused(tmp, name, data, line, field, words)
    csv_refused(tmp, "not UTF-8", value(13, "x", "1\xff").encode("latin-1"), 13, "row", "not UTF-8 text", mode="wb")
    csv_refused(tmp, "UTF-16", text.encode("utf-16"), 1, "header", "UTF-16 text", mode="wb")

    # As spreadsheets save: a UTF-8 byte-order mark, CRLF line ends, blank lines at the end.
    for name, data in (("a byte-order mark", "\ufeff" + text), ("CRLF", text.replace("\n", "\r\n")),
                       ("a byte-order mark and CRLF", "\ufeff" + text.replace("\n", "\r\n")),
                       ("blank lines at the end", text + "\n \n\n")):
        path = os.path.join(tmp, "case.csv")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(data)
        try:
            v = reader.read(path)
            same = (v.frames, v.agents, v.fields) == (crowd.frames, crowd.agents, crowd.fields) and all(
                np.array_equal(v.frame(k)[n], crowd.frame(k)[n]) for k in range(v.frames) for n in v.fields)
            check(same, f"csv with {name}: not the stream's positions")
        except Exception as e:  # noqa: BLE001
            check(False, f"csv with {name}: {type(e).__name__}: {e}")

    # The documented caps, made small to try them: values, and a line's length
    # (also across the pieces the CSV is counted in).
    caps = reader.CSV_MAX_VALUES, reader.CSV_MAX_LINE, reader.CSV_CHUNK
    try:
        reader.CSV_MAX_VALUES = 100
        csv_refused(tmp, "over the value cap", text, 100 // 13 + 2, "row",
                    f"the CSV has {len(lines) - 1} rows of 13 values, more than this reader takes (100 values)")
        reader.CSV_MAX_VALUES, reader.CSV_MAX_LINE, reader.CSV_CHUNK = caps[0], 300, 64
        for k in (2, 5, len(lines)):
            long_line = lines[k - 1].rstrip("\n") + " " * 300 + "\n"
            csv_refused(tmp, f"line {k} over the line cap", with_line(k, long_line), k, "row", "longer than 300 bytes")
        csv_refused(tmp, "line 1 over the line cap", "id,frame,time" + " " * 300 + "\n" + "".join(lines[1:]), 1,
                    "row", "longer than 300 bytes")
        path = os.path.join(tmp, "case.csv")
        with open(path, "w") as f:
            f.write(text)
        check(reader.read(path).frames == crowd.frames, "the CSV read in 64-byte pieces")
    finally:
        reader.CSV_MAX_VALUES, reader.CSV_MAX_LINE, reader.CSV_CHUNK = caps


def fifo_case(tmp):
    """A pipe by name is refused by the importer's reader, without waiting for a writer."""
    fifo = os.path.join(tmp, "fifo.thr")
    os.mkfifo(fifo)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from io_import_throng import reader\n"
            "try:\n    reader.read(sys.argv[2])\nexcept reader.ThrongReadError as e:\n    print(e)")
    try:
        p = subprocess.run([sys.executable, "-c", code, HERE, fifo], capture_output=True, timeout=30)
        out = p.stdout.decode()
    except subprocess.TimeoutExpired:
        out = "(waited 30 s for a writer)"
    check(out.startswith(f"{fifo}: not a regular file"), f"a FIFO: {out!r}")


def numpy_hint_cases(tmp):
    """read_stream.py without numpy: exit 1 and advice that fits the Python."""
    script = os.path.join(EXAMPLES, "read_stream.py")
    for exe, words in (("/opt/python/3.12/bin/python3", ("/usr/bin/python3", "python3-numpy",
                                                         "/opt/python/3.12/bin/python3 -m pip install numpy")),
                       ("/usr/bin/python3", ("apt install python3-numpy", "-m pip install numpy"))):
        code = (f"import sys, runpy; sys.modules['numpy'] = None; sys.executable = {exe!r}; "
                f"sys.argv = [{script!r}, '-']; runpy.run_path({script!r}, run_name='__main__')")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, input=b"")
        err = p.stderr.decode()
        check(p.returncode == 1 and err.startswith(f"read_stream.py: needs numpy, which {exe} does not have")
              and all(w in err for w in words), f"numpy missing under {exe}: exit {p.returncode}, {err!r}")


def per_agent_cases(c, s):
    """Radii by group label with a group field (ids dealt in any order), by id without one."""
    shuffled = reader.Crowd("shuffled", c.agents, 1, ["x", "y", "group"], 1.0)
    perm = np.array([8, 3, 0, 5, 1, 7, 2, 4, 6])
    shuffled._arrays = {"x": c._arrays["x"][:1], "y": c._arrays["y"][:1], "group": c._arrays["group"][:1, perm]}
    labels, radii = scenefile.per_agent(shuffled, s)
    check(labels.tolist() == s["labels"][perm].tolist() and radii.tolist() == s["radii"][perm].tolist(),
          f"radii by label: {labels.tolist()}, {radii.tolist()}")
    plain = reader.Crowd("plain", c.agents, 1, ["x", "y"], 1.0)
    plain._arrays = {"x": c._arrays["x"][:1], "y": c._arrays["y"][:1]}
    labels, radii = scenefile.per_agent(plain, s)
    check(labels.tolist() == s["labels"].tolist() and radii.tolist() == s["radii"].tolist(), "radii by id")
    labels, radii = scenefile.per_agent(plain, None)
    check(labels.tolist() == [0] * 9 and radii.tolist() == [np.float32(0.3)] * 9, "no scene file: group 0, 0.3 m")
    more = reader.Crowd("more", 10, 1, ["x", "y"], 1.0)
    try:
        scenefile.per_agent(more, s)
        check(False, "a 10-agent stream took a 9-agent scene file")
    except scenefile.SceneFileError as e:
        check(str(e) == f"{s['path']}: groups: 9 agents, but the stream more has 10", str(e))


def main(run, csv_path, scene_path):
    c = reader.read(run)
    check(c.complete and c.end_flags == 0 and c.frames == 31 and c.agents == 9, "the good stream reads whole")
    check(abs(c.fps - 15.0) < 1e-5 and c.every == 4, f"frame rate {c.fps}, every {c.every}")
    v = reader.read(csv_path)
    check(v.frames == c.frames and v.agents == c.agents and v.fields == c.fields, "CSV shape")
    for k in (0, c.frames - 1):
        a, b = c.frame(k), v.frame(k)
        check(all(np.array_equal(a[n], b[n]) for n in c.fields), f"frame {k}: CSV differs from the stream")
    s = scenefile.read_scene(scene_path)
    check(list(s["labels"]) == list(c.frame(0)["group"]), "scene file labels are the stream's groups")
    check(list(s["radii"]) == [np.float32(r) for r in [0.4] * 3 + [0.6] * 3 + [0.9] * 3], "radii")
    check(s["walls"].tolist() == [[-8, 8, 8, 8]] and s["obstacles"].tolist() == [[0, -9.5, 1]], "walls, obstacles")
    per_agent_cases(c, s)
    # A preset's groups that state no radius have the preset's body's.
    p = scenefile.read_scene(os.path.join(HERE, "..", "pedestrians.yaml"))
    check(p["radii"].tolist() == [np.float32(scenefile.PRESET_RADIUS["pedestrian"])] * 80,
          f"pedestrians.yaml: radii {sorted(set(p['radii'].tolist()))}")
    with tempfile.TemporaryDirectory() as tmp:
        raw = open(run, "rb").read()
        check(struct.unpack_from("<H", raw, 8)[0] == 2, "throng writes version 2")
        stream_cases(to_v1(raw), tmp)
        stream2_cases(raw, tmp)
        churn_cases(tmp)
        # A frame short of the others: its agents are the rows it has.
        lines = open(csv_path).read().splitlines(keepends=True)
        path = os.path.join(tmp, "short.csv")
        with open(path, "w") as f:
            f.write("".join(lines[:-1]))
        v = reader.read(path)
        check(v.churn and v.agents == 9 and v.frame(v.frames - 1)["present"].tolist() == [True] * 8 + [False],
              "a CSV whose last frame lacks its last agent")
        huge_header_cases(tmp)
        pipe_cases(tmp)
        csv_cases(csv_path, c, tmp)
        fifo_case(tmp)
        numpy_hint_cases(tmp)
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("groups:\n  a: {count: 0, archetype: w}\n")
        try:
            scenefile.read_scene(bad)
            check(False, "a group of 0 agents was read")
        except scenefile.SceneFileError as e:
            check(str(e).startswith(f"{bad}: groups.a.count: expected a whole number >= 1"), str(e))
    if failures:
        print(f"test_reader.py: {len(failures)} check(s) failed")
        return 1
    print("test_reader.py: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
