# SPDX-License-Identifier: MIT
"""Reads throng's outputs for the Blender importer: the binary stream and CSV.

Written from docs/FORMAT.md alone (no bpy here, so it runs and is tested in
any Python with numpy). The design follows what a renderer needs at 100,000
agents x 600 frames (a 1 GB stream):

- The whole stream is **checked before anything is built** (every header
  field, every frame's checksum, index, step and time, the end record), so a
  damaged stream fails with the reader's error and no half crowd appears.
  Checking streams the file through one reusable frame buffer: no frame is
  kept in memory.
- The frames are then **memory-mapped** (numpy.memmap), and `Crowd.frame(k)`
  returns views of frame k's arrays without copying: the importer reads one
  frame per displayed frame, and only the pages it touches are ever loaded.
- Agents come and go (stream version 2, docs/FORMAT.md): every frame holds
  its own agents, by id. A Crowd's agents are every agent the run ever
  held (`Crowd.ids`, increasing); `frame(k)` gives each field for all of
  them (0 for an agent absent from frame k) and `present`, which of them
  frame k holds. A run whose frames all hold the same agents (a version 1
  stream, or a version 2 one without churn) keeps the no-copy views;
  otherwise frame(k) scatters frame k's agents into fresh arrays.

A damaged file costs nothing: no size a stream's header claims is allocated
before it is held against FRAME_MAX (2 GiB, as throng's C reader) and the
file's size, and a CSV is counted (rows, line lengths) before it is parsed
and refused above CSV_MAX_VALUES values. Non-finite positions, velocities
and headings are refused in both.

Errors are `ThrongReadError` (a ValueError) with the file and the byte
offset (stream) or line (CSV) and the field, worded like the C reader's
(core/io/stream_read.c); the same facts are its attributes.
"""
import math
import os
import stat
import struct
import warnings
import zlib

import numpy as np

MAGIC = b"\x89THRONG\n"
FIELDS = ("x", "y", "vx", "vy", "hx", "hy", "group", "archetype",  # bit order
          "health", "combat_state")  # since 2.1
CSV_COLUMNS = ("x", "y", "velocity_x", "velocity_y", "heading_x", "heading_y", "group", "archetype",
               "health", "combat_state")
INT_FIELDS = ("group", "archetype", "combat_state")
HEADER_FIXED = 88
HEADER_MAX = 65536
FRAME_HEAD = 32  # a version 1 frame's head
FRAME2_HEAD = 48  # a version 2 frame's: also its size, its count and a reserved word; its ids follow
NO_AGENT = 0xFFFFFFFF
FRAME_MAX = 1 << 31  # the largest frame the readers accept (2 GiB), as throng's C reader
END_BYTES = 16
BOUNDS_MODES = ("contain", "wrap", "bounce", "open")
BOUNDS_CORNERS = ("min x", "min y", "max x", "max y")
CSV_MAX_VALUES = 1 << 27  # a CSV is parsed whole into float64: at most 1 GiB of them
CSV_MAX_LINE = 1 << 20    # bytes in a CSV line (a throng row has well under 200)
CSV_CHUNK = 1 << 20       # a CSV is counted this many bytes at a time
UTF8_BOM = b"\xef\xbb\xbf"


class ThrongReadError(ValueError):
    """A file throng's readers reject; the message names the file and where.

    Attributes: path, offset (byte offset, a stream) or line (a CSV), field
    (docs/FORMAT.md's name of the field at fault: "agents", "frame_crc",
    "x", a CSV column; for a file cut short, the record it ends in:
    "header", "marker", "frame", "end_record"; for a CSV's shape, "row"),
    and what (the message after the place). Any of them may be None.
    """

    def __init__(self, message, path=None, offset=None, line=None, field=None, what=None):
        super().__init__(message)
        self.path, self.offset, self.line, self.field, self.what = path, offset, line, field, what


class Crowd:
    """A checked throng output: its header facts and its frames by agent id.

    agents (every agent the run held, in any frame), ids (their throng ids,
    increasing: agent j is throng's agent ids[j]), frames, dt (s per step),
    every (steps per frame), period (s per frame), bounds ((min x, min y,
    max x, max y), m), bounds_mode, scenario, complete (an end record
    closed the stream), end_flags (the end record's flags byte: bit 0, the
    run was interrupted), fields (names), churn (agents come and go: some
    frame lacks some agent). frame(k) returns {field: array of `agents`
    values} for frame k and "present", which agents frame k holds; an
    absent agent's values are 0. Without churn the arrays are views into
    the memory map of a stream, no copy.
    """

    def __init__(self, path, agents, frames, fields, period, dt=None, every=None,
                 bounds=None, bounds_mode="open", scenario="", complete=True, ids=None):
        self.path, self.agents, self.frames, self.fields = path, agents, frames, fields
        self.period, self.dt, self.every = period, dt, every
        self.bounds, self.bounds_mode, self.scenario, self.complete = bounds, bounds_mode, scenario, complete
        self.end_flags = 0
        self.ids = np.arange(agents, dtype=np.uint32) if ids is None else ids
        self._arrays = {}  # every frame holds every agent: {field: (frames, agents) array}
        self._sparse = None  # else: k -> (frame k's ids, {field: its values}), the ids increasing

    @property
    def churn(self):
        return self._sparse is not None

    def frame(self, k):
        k = min(max(int(k), 0), self.frames - 1)
        if self._sparse is None:
            out = {name: a[k] for name, a in self._arrays.items()}
            out["present"] = np.ones(self.agents, dtype=bool)
            return out
        ids, arrays = self._sparse(k)
        at = np.searchsorted(self.ids, ids)
        present = np.zeros(self.agents, dtype=bool)
        present[at] = True
        out = {"present": present}
        for name, a in arrays.items():
            full = np.zeros(self.agents, dtype=a.dtype)
            full[at] = a
            out[name] = full
        return out

    def first_values(self, name):
        """Each agent's `name` in the first frame that holds it (a label, say)."""
        if self._sparse is None:
            return self._arrays[name][0]
        out = np.zeros(self.agents, dtype=np.uint32 if name in INT_FIELDS else np.float32)
        seen = np.zeros(self.agents, dtype=bool)
        for k in range(self.frames):
            ids, arrays = self._sparse(k)
            at = np.searchsorted(self.ids, ids)
            new = ~seen[at]
            out[at[new]] = arrays[name][new]
            seen[at] = True
            if seen.all():
                break
        return out

    @property
    def fps(self):
        return 1.0 / self.period


def _fail(path, offset, field, what):
    """A damaged stream: "<path>: byte offset <offset>: <what>"."""
    raise ThrongReadError(f"{path}: byte offset {offset}: {what}", path=path, offset=offset, field=field, what=what)


def _fail_line(path, line, field, what):
    """A damaged CSV: "<path>: line <line>: <what>"."""
    raise ThrongReadError(f"{path}: line {line}: {what}", path=path, line=line, field=field, what=what)


def _crc_zeroed(buf, at):
    """CRC-32 (zlib's) of buf with the 4 bytes at `at` taken as zero."""
    mv = memoryview(buf)
    crc = zlib.crc32(mv[:at])
    crc = zlib.crc32(b"\0\0\0\0", crc)
    return zlib.crc32(mv[at + 4:], crc) & 0xFFFFFFFF


def _left(f):
    """Bytes of the (regular) file f after its position, as the file is now."""
    return max(os.fstat(f.fileno()).st_size - f.tell(), 0)


def _read_into(f, view):
    """Fills view from f; returns the bytes read (fewer only at the end of the file)."""
    got = 0
    while got < len(view):
        n = f.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def _check_fields(path, agents, mask, field_count, frame_bytes, dt, every, mode, bounds, v2):
    """The checks throng's C reader makes on the header's fields (thr_header_check,
    then the frame size's consistency), in its order and at its offsets. A
    version 2 header's agents is the count the run began with (0 allowed),
    its frame_bytes 0 (every frame gives its own)."""
    bits = bin(mask).count("1")
    if agents == 0 and not v2:
        _fail(path, 24, "agents", "agent count is 0")
    if mask == 0:
        _fail(path, 28, "field_mask", "field mask is 0 (no fields)")
    if field_count != bits:
        _fail(path, 80, "field_count", f"field count {field_count} does not match the field mask 0x{mask:08x} "
                                       f"({bits} bits)")
    if frame_bytes > FRAME_MAX:
        _fail(path, 32, "frame_bytes", f"frame size {frame_bytes} is larger than this reader accepts ({FRAME_MAX})")
    if not (math.isfinite(dt) and dt > 0):
        _fail(path, 40, "dt", f"dt {dt:g} is not a positive number of seconds")
    if every == 0:
        _fail(path, 48, "every", "frame stride (every) is 0")
    if mode > 3:
        _fail(path, 52, "bounds_mode", f"bounds mode {mode} is not 0 to 3")
    for corner, b in zip(BOUNDS_CORNERS, bounds):
        if not math.isfinite(b):
            _fail(path, 56, "bounds", f"world bounds are not finite ({corner} is {b:g})")
    if v2:
        if frame_bytes != 0:
            _fail(path, 32, "frame_bytes", f"frame size {frame_bytes} in a version 2 header, which must be 0 "
                                           "(every frame gives its own)")
        return
    expect = (FRAME_HEAD + 4 * agents * field_count + 7) // 8 * 8
    if frame_bytes != expect:
        _fail(path, 32, "frame_bytes", f"frame size {frame_bytes}, but {agents} agents with {field_count} fields "
                                       f"make {expect}")


def _read_header(f, path):
    fixed = f.read(HEADER_FIXED)
    if fixed[:8] != MAGIC[:len(fixed[:8])]:
        _fail(path, 0, "magic", "not a throng stream (the first 8 bytes are not the magic 89 54 48 52 4F 4E 47 0A)")
    if len(fixed) < HEADER_FIXED:
        _fail(path, len(fixed), "header",
              f"the stream ends inside the header ({len(fixed)} of at least {HEADER_FIXED} bytes)")
    major, minor, bom, header_bytes, stored = struct.unpack_from("<HHIII", fixed, 8)
    if major not in (1, 2):
        _fail(path, 8, "version_major",
              f"stream version {major}.{minor}, but this reader reads versions 1.x and 2.x only")
    if bom != 0x01020304:
        _fail(path, 12, "byte_order", f"byte-order mark 0x{bom:08x}, expected 0x01020304 stored little-endian")
    if header_bytes % 8 or not HEADER_FIXED <= header_bytes <= HEADER_MAX:
        _fail(path, 16, "header_bytes",
              f"header size {header_bytes} is not a multiple of 8 from {HEADER_FIXED} to {HEADER_MAX}")
    left = _left(f)
    if left < header_bytes - HEADER_FIXED:
        _fail(path, HEADER_FIXED + left, "header",
              f"the stream ends inside the header ({HEADER_FIXED + left} of {header_bytes} bytes)")
    h = bytearray(header_bytes)
    h[:HEADER_FIXED] = fixed
    got = HEADER_FIXED + _read_into(f, memoryview(h)[HEADER_FIXED:])
    if got < header_bytes:
        _fail(path, got, "header", f"the stream ends inside the header ({got} of {header_bytes} bytes)")
    computed = _crc_zeroed(h, 20)
    if computed != stored:
        _fail(path, 20, "header_crc", f"header checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
    agents, mask, frame_bytes, dt, every, mode = struct.unpack_from("<IIQdII", h, 24)
    bounds = struct.unpack_from("<4f", h, 56)
    field_count, name_bytes = struct.unpack_from("<IH", h, 80)
    _check_fields(path, agents, mask, field_count, frame_bytes, dt, every, mode, bounds, major == 2)
    if HEADER_FIXED + name_bytes > header_bytes:
        _fail(path, 84, "name_bytes", f"scenario name of {name_bytes} bytes does not fit a {header_bytes}-byte header")
    return {
        "v2": major == 2, "agents": agents, "mask": mask, "field_count": field_count, "frame_bytes": frame_bytes,
        "dt": dt, "every": every, "bounds_mode": BOUNDS_MODES[mode], "bounds": bounds,
        "header_bytes": header_bytes, "scenario": bytes(h[88:88 + name_bytes]).decode("utf-8", "replace"),
    }


def _check_coordinates(path, buf, h, start, index, data_at, n, ids):
    """Refuses a frame (in buf, n agents, arrays from data_at, in bit order)
    whose positions, velocities, headings or health are not all finite,
    naming the first as the C reader does: offset, agent (by its id), field."""
    mask = h["mask"]
    present = [FIELDS[b] for b in range(len(FIELDS)) if mask & (1 << b)]
    for slot, name in enumerate(present):
        if name in INT_FIELDS or n == 0:
            continue  # group, archetype and combat_state are whole numbers
        ok = np.isfinite(np.frombuffer(buf, dtype="<f4", count=n, offset=data_at + 4 * n * slot))
        if ok.all():
            continue
        k = int(np.argmin(ok))
        at = data_at + 4 * (n * slot + k)
        (value,) = struct.unpack_from("<f", buf, at)
        _fail(path, start + at, name, f"frame {index}: agent {int(ids[k])}'s {name} is {value:g} "
                                      "(positions, velocities, headings and health must be finite)")


def _check_ids(path, ids, start, index):
    """A version 2 frame's ids must increase, none NO_AGENT (as the C reader)."""
    if len(ids) == 0:
        return
    bad = ids == NO_AGENT
    bad[1:] |= ids[1:] <= ids[:-1]
    if not bad.any():
        return
    k = int(np.argmax(bad))
    at = start + FRAME2_HEAD + 4 * k
    if ids[k] == NO_AGENT:
        _fail(path, at, "ids", f"frame {index}: agent {k}'s id is 0x{NO_AGENT:08x}, which names no agent")
    _fail(path, at, "ids", f"frame {index}: agent {k}'s id {int(ids[k])} is not above the id before it, "
                           f"{int(ids[k - 1])} (ids must increase)")


def _frame2_head(f, path, h, marker, offset, index):
    """Reads the rest of a version 2 frame's head; checks that its size is the
    one its count and the header's fields make, within FRAME_MAX, before
    anything of that size is allocated. Returns (head, frame_bytes, count)."""
    head = bytearray(marker) + bytearray(FRAME2_HEAD - 4)
    got = _read_into(f, memoryview(head)[4:])
    if got < FRAME2_HEAD - 4:
        _fail(path, offset + 4 + got, "frame", f"the stream ends inside frame {index} "
              f"({4 + got} of the {FRAME2_HEAD} bytes of its head; the frame starts at byte offset {offset})")
    frame_bytes, count = struct.unpack_from("<QI", head, 32)
    fc = h["field_count"]
    expect = (FRAME2_HEAD + 4 * count * (1 + fc) + 7) // 8 * 8
    if frame_bytes != expect:
        _fail(path, offset + 32, "frame_bytes", f"frame {index}: frame size {frame_bytes}, but {count} agents with "
                                                f"their ids and {fc} fields make {expect}")
    if frame_bytes > FRAME_MAX:
        _fail(path, offset + 32, "frame_bytes", f"frame {index}: frame size {frame_bytes} ({count} agents) is larger "
                                                f"than this reader accepts ({FRAME_MAX})")
    return head, frame_bytes, count


class _Frames:
    """Where a stream's frames are: each frame's offset and count (version 2),
    every id the run held, and whether every frame holds the same agents."""

    def __init__(self):
        self.offsets, self.counts = [], []
        self.ids = None  # the union of the frames' ids
        self.same = True  # every frame holds the first frame's agents


def _check_frames(f, path, h, where):
    """Reads every frame after the header; returns (frames, complete, end record flags)
    and fills `where` (a _Frames).

    Each frame must be in the file before its buffer is allocated; one
    buffer serves every frame (nothing is kept but the ids)."""
    every, dt, v2 = h["every"], h["dt"], h["v2"]
    buf = None
    marker = bytearray(4)
    offset, index, step0 = h["header_bytes"], 0, 0
    first_ids = None
    while True:
        got = _read_into(f, memoryview(marker))
        if got == 0:
            return index, False, 0  # the writer stopped at a frame boundary: every frame is whole
        if got < 4:
            _fail(path, offset + got, "marker",
                  f"the stream ends inside the marker of frame {index} (which starts at byte offset {offset})")
        if marker == b"END!":
            end = bytearray(b"END!") + f.read(END_BYTES - 4)
            if len(end) < END_BYTES:
                _fail(path, offset + len(end), "end_record",
                      f"the stream ends inside the end record that starts at byte offset {offset}")
            stored, frames = struct.unpack_from("<IQ", end, 4)
            # The top byte of `frames` carries flags: bit 0, a writer stopped
            # by a signal marks its end record interrupted; no other is defined.
            flags, frames = frames >> 56, frames & ((1 << 56) - 1)
            computed = _crc_zeroed(end, 4)
            if computed != stored:
                _fail(path, offset + 4, "end_crc",
                      f"end record checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
            if flags & ~0x01:
                _fail(path, offset + 15, "flags",
                      f"the end record's flags byte is 0x{flags:02x} (only bit 0, interrupted, is defined)")
            if frames != index:
                _fail(path, offset + 8, "frames", f"the end record counts {frames} frames but the stream holds {index}")
            if f.read(1):
                _fail(path, offset + END_BYTES, "end_record", "data after the end record")
            return index, True, flags
        if marker != b"FRAM":
            found = " ".join(f"{b:02x}" for b in marker)
            _fail(path, offset, "marker",
                  f"expected frame {index}'s marker \"FRAM\" or the end record \"END!\", found {found}")
        if v2:
            first, frame_bytes, n = _frame2_head(f, path, h, marker, offset, index)
            data_at = FRAME2_HEAD + 4 * n
        else:
            first, frame_bytes, n, data_at = marker, h["frame_bytes"], h["agents"], FRAME_HEAD
        left = _left(f)
        have = len(first) + min(left, frame_bytes - len(first))
        if have < frame_bytes:  # checked before the frame's buffer is allocated
            _fail(path, offset + have, "frame", f"the stream ends inside frame {index} "
                  f"({have} of {frame_bytes} bytes; the frame starts at byte offset {offset})")
        if buf is None or len(buf) < frame_bytes:
            buf = bytearray(frame_bytes)
        buf[:len(first)] = first
        have = len(first) + _read_into(f, memoryview(buf)[len(first):frame_bytes])
        if have < frame_bytes:  # the file shrank meanwhile
            _fail(path, offset + have, "frame", f"the stream ends inside frame {index} "
                  f"({have} of {frame_bytes} bytes; the frame starts at byte offset {offset})")
        stored, idx, step, time = struct.unpack_from("<IQQd", buf, 4)
        computed = _crc_zeroed(memoryview(buf)[:frame_bytes], 4)
        if computed != stored:
            _fail(path, offset + 4, "frame_crc",
                  f"frame {index} checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
        if idx != index:
            _fail(path, offset + 8, "index", f"frame index {idx} where {index} was expected")
        if index == 0:
            step0 = step
        elif step != step0 + index * every:
            _fail(path, offset + 16, "step", f"frame {index} has step {step}; "
                  f"frame 0 had step {step0} and the stride is {every}")
        if struct.pack("<d", time) != struct.pack("<d", step * dt):  # bit for bit, as the C reader
            _fail(path, offset + 24, "time",
                  f"frame {index} has time {time!r} s, but step {step} times dt is {step * dt!r} s")
        if v2:
            ids = np.frombuffer(buf, dtype="<u4", count=n, offset=FRAME2_HEAD).copy()
            _check_ids(path, ids, offset, index)
        else:
            ids = np.arange(n, dtype=np.uint32) if first_ids is None else first_ids
        _check_coordinates(path, buf, h, offset, index, data_at, n, ids)
        if first_ids is None:
            first_ids, where.ids = ids, ids
        elif where.same and not np.array_equal(ids, first_ids):
            where.same = False
        if not where.same and not np.array_equal(ids, where.ids):
            where.ids = np.union1d(where.ids, ids).astype(np.uint32)
        where.offsets.append(offset)
        where.counts.append(n)
        offset += frame_bytes
        index += 1


def _open_regular(path):
    """Opens path for reading; a pipe, a device or a directory is refused,
    before it is opened (opening a FIFO would wait for a writer): the
    importer memory-maps a stream and reads a file more than once."""
    try:
        mode = os.stat(path).st_mode
        f = open(path, "rb") if stat.S_ISREG(mode) else None
        if f is not None:
            mode = os.fstat(f.fileno()).st_mode  # what was opened, should the name have changed meanwhile
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}", path=path) from e
    if not stat.S_ISREG(mode):
        if f is not None:
            f.close()
        raise ThrongReadError(f"{path}: not a regular file (a pipe, a device or a directory): the importer "
                              "reads a throng output saved to a file", path=path)
    return f


def read_stream(path):
    """Checks the binary stream at `path` whole and returns a Crowd over a memory map of it.

    Raises ThrongReadError (file, byte offset, field, what) for anything
    docs/FORMAT.md calls truncated or corrupt, for non-finite coordinates,
    and for a stream without frames.
    """
    path = os.fspath(path)
    f = _open_regular(path)
    where = _Frames()
    try:
        with f:
            h = _read_header(f, path)
            frames, complete, flags = _check_frames(f, path, h, where)
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}", path=path) from e
    if frames == 0:
        _fail(path, h["header_bytes"], "frame", "the stream holds no frame")
    present = [name for bit, name in enumerate(FIELDS) if h["mask"] & (1 << bit)]
    crowd = Crowd(path, len(where.ids), frames, present, h["dt"] * h["every"], h["dt"], h["every"],
                  h["bounds"], h["bounds_mode"], h["scenario"], complete, ids=where.ids)
    crowd.end_flags = flags
    kind = lambda name: "<u4" if name in INT_FIELDS else "<f4"  # noqa: E731
    head = FRAME2_HEAD if h["v2"] else FRAME_HEAD
    if where.same:  # every frame holds the same agents: frames of one size, views of a memory map
        n = where.counts[0]
        fb = (head + 4 * n * ((1 if h["v2"] else 0) + h["field_count"]) + 7) // 8 * 8
        raw = np.memmap(path, dtype=np.uint8, mode="r", offset=h["header_bytes"], shape=(frames, fb))
        data_at = head + (4 * n if h["v2"] else 0)
        for j, name in enumerate(present):  # known fields come first (bits 0-7), in bit order
            at = data_at + 4 * n * j
            crowd._arrays[name] = raw[:, at:at + 4 * n].view(kind(name))
        return crowd
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    offsets, counts = where.offsets, where.counts

    def sparse(k):
        at, n = offsets[k], counts[k]
        ids = raw[at + FRAME2_HEAD:at + FRAME2_HEAD + 4 * n].view("<u4")
        data_at = at + FRAME2_HEAD + 4 * n
        return ids, {name: raw[data_at + 4 * n * j:data_at + 4 * n * (j + 1)].view(kind(name))
                     for j, name in enumerate(present)}
    crowd._sparse = sparse
    return crowd


def _csv_header(f, path):
    """Reads line 1 (binary f): the column names, without a UTF-8 byte-order mark or line end."""
    line = f.readline(CSV_MAX_LINE + 1)
    if len(line) > CSV_MAX_LINE:
        _fail_line(path, 1, "row", f"longer than {CSV_MAX_LINE} bytes: not a throng CSV")
    if line.startswith(UTF8_BOM):  # as spreadsheets save "CSV UTF-8"
        line = line[len(UTF8_BOM):]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail_line(path, 1, "header", f"not UTF-8 text (byte {e.start + 1} of the line)")
    head = text.rstrip("\r\n").split(",")
    if head[:3] != ["id", "frame", "time"]:
        _fail_line(path, 1, "header", f"columns {','.join(head[:3])!r}, expected a throng CSV starting id,frame,time")
    known = dict(zip(CSV_COLUMNS, FIELDS))
    for j, col in enumerate(head[3:], 3):
        if col not in known:
            _fail_line(path, 1, col, f"unknown column {col!r} (expected some of {', '.join(CSV_COLUMNS)})")
        if col in head[3:j]:
            _fail_line(path, 1, col, f"column {col!r} is named twice")
    return head


def _csv_count(f, path, ncols):
    """Counts the rows after line 1 (binary f at line 2) a megabyte at a time:
    returns the number of lines up to the last that is not blank. Refuses a
    line longer than CSV_MAX_LINE and more than CSV_MAX_VALUES values, before
    anything the size of the file is allocated."""
    lines = rows = 0
    since = 0  # bytes of the line in progress
    while True:
        chunk = f.read(CSV_CHUNK)
        if not chunk:
            break
        first = chunk.find(b"\n")
        if first >= 0 and since + first > CSV_MAX_LINE:
            _fail_line(path, lines + 2, "row", f"longer than {CSV_MAX_LINE} bytes: not a throng row")
        count = chunk.count(b"\n")
        since = since + len(chunk) if first < 0 else len(chunk) - chunk.rfind(b"\n") - 1
        if since > CSV_MAX_LINE:
            _fail_line(path, lines + count + 2, "row", f"longer than {CSV_MAX_LINE} bytes: not a throng row")
        k = len(chunk.rstrip(b" \t\r\n"))
        if k:
            rows = lines + chunk.count(b"\n", 0, k) + 1
        lines += count
    if rows * ncols > CSV_MAX_VALUES:
        _fail_line(path, CSV_MAX_VALUES // ncols + 2, "row",
                   f"the CSV has {rows} rows of {ncols} values, more than this reader takes ({CSV_MAX_VALUES} "
                   "values): write the binary stream (--out run.thr) for a run this large")
    return rows


def _csv_find_fault(path, head, rows):
    """Reads the CSV's rows one by one to name the first that does not parse
    (the line, the column, what); called only when numpy's parser failed."""
    ncols = len(head)
    blank = None
    with open(path, "rb") as f:
        f.readline()
        for line_no, raw in enumerate(f, 2):
            if line_no > rows + 1:
                break
            try:
                line = raw.decode("utf-8").rstrip("\n")
            except UnicodeDecodeError as e:
                _fail_line(path, line_no, "row", f"not UTF-8 text (byte {e.start + 1} of the line)")
            line = line[:-1] if line.endswith("\r") else line
            if not line.strip():
                blank = blank or line_no
                continue
            if blank is not None:
                _fail_line(path, blank, "row", "an empty line among the rows")
            if "\r" in line:
                _fail_line(path, line_no, "row", "a carriage return inside the row")
            values = line.split(",")
            if len(values) < ncols:
                _fail_line(path, line_no, head[len(values)],
                           f"{len(values)} of {ncols} values: the row is cut short before column {head[len(values)]!r}")
            if len(values) > ncols:
                _fail_line(path, line_no, "row", f"{len(values)} values, but line 1 names {ncols} columns")
            for col, v in zip(head, values):
                try:
                    if "_" in v:  # Python's float() takes 1_0, numpy's parser does not
                        raise ValueError(v)
                    float(v)
                except ValueError:
                    _fail_line(path, line_no, col, f"column {col!r}: {v.strip()!r} is not a number")
    raise ThrongReadError(f"{path}: the rows after line 1 do not read as {ncols} numbers each", path=path, field="row")


def read_csv(path):
    """Reads a throng CSV (docs/FORMAT.md) whole into memory and checks it.

    Meant for small runs: CSV is text, 10x larger and far slower to parse
    than the stream; more than CSV_MAX_VALUES values are refused. A UTF-8
    byte-order mark and CRLF line ends (as spreadsheets save) are taken.
    Every value must be a finite number (a 32-bit float for positions,
    velocities and headings, a whole number for group and archetype), and
    rows go by frame, then id: frames from 0 never going back, ids
    increasing within a frame. A frame's agents are its rows (agents come
    and go; a frame without agents has no row). The frame period comes from
    the time column (float precision); dt and every are not in a CSV.
    """
    path = os.fspath(path)
    try:
        with _open_regular(path) as f:
            head = _csv_header(f, path)
            rows = _csv_count(f, path, len(head))
        if rows == 0:
            _fail_line(path, 2, "row", "the CSV holds no row")
        data = None
        try:
            with open(path, "r", encoding="utf-8-sig", newline="\n") as f, warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numpy 1.23's note on empty lines: found below
                f.readline()
                data = np.loadtxt(f, delimiter=",", dtype=np.float64, ndmin=2, comments=None, max_rows=rows)
        except ValueError:  # numpy's words name neither the line nor the column: find them
            pass
        if data is None or data.shape != (rows, len(head)):  # a blank line skipped, or a row that does not parse
            _csv_find_fault(path, head, rows)
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}", path=path) from e
    known = dict(zip(CSV_COLUMNS, FIELDS))
    present = [known[c] for c in head[3:]]
    finite = np.isfinite(data)
    if not finite.all():
        r, c = divmod(int(np.argmin(finite.ravel())), len(head))
        rule = ("positions, velocities, headings and health must be finite" if c >= 3 and present[c - 3] not in INT_FIELDS
                else "every value must be a finite number")
        _fail_line(path, r + 2, head[c], f"column {head[c]!r} is {data[r, c]:g} ({rule})")
    ids, frame_col = data[:, 0], data[:, 1]
    if frame_col[0] != 0:
        _fail_line(path, 2, "frame", f"frame {frame_col[0]:g}, expected frame 0")
    for col, values in (("id", ids), ("frame", frame_col)):
        wrong = (values != np.floor(values)) | (values < 0) | (values >= NO_AGENT)
        if wrong.any():
            r = int(np.argmax(wrong))
            _fail_line(path, r + 2, col, f"column {col!r} is {values[r]:g}, not a whole number from 0 to "
                                         f"{NO_AGENT - 1}")
    step = np.diff(frame_col)
    same = step == 0
    bad = (step < 0) | (same & (np.diff(ids) <= 0))
    if bad.any():
        r = int(np.argmax(bad)) + 1
        _fail_line(path, r + 2, "frame" if step[r - 1] < 0 else "id",
                   f"agent {ids[r]:g} of frame {frame_col[r]:g} after agent {ids[r - 1]:g} of frame "
                   f"{frame_col[r - 1]:g} (rows go by frame, then increasing id)")
    frames = int(frame_col[-1]) + 1
    starts = np.flatnonzero(np.concatenate(([True], ~same)))  # each frame's first row
    frame_of = frame_col[starts].astype(np.int64)
    first = np.full(frames + 1, rows, dtype=np.int64)  # frame k's rows: first[k] .. first[k + 1]
    first[frame_of] = starts
    for k in range(frames - 1, -1, -1):  # a frame without rows starts where the next does
        first[k] = min(first[k], first[k + 1])
    all_ids = np.unique(ids).astype(np.uint32)
    n = len(all_ids)
    dense = rows == frames * n and bool((ids.reshape(frames, n) == all_ids).all()) if rows % n == 0 else False
    times = data[starts, 2]
    if len(starts) > 1:
        period = float(times[1] - times[0]) / float(frame_of[1] - frame_of[0])
    else:
        period = 1.0 / 60.0
    if not (math.isfinite(period) and period > 0):
        _fail_line(path, int(starts[1]) + 2, "time", f"time {times[1]:g} does not follow frame 0's {times[0]:g}")
    crowd = Crowd(path, n, frames, present, period, ids=all_ids)
    for j, name in enumerate(present):
        col = data[:, 3 + j]
        if name in INT_FIELDS:
            wrong = (col != np.floor(col)) | (col < 0) | (col > 0xFFFFFFFF)
            if wrong.any():
                r = int(np.argmax(wrong))
                _fail_line(path, r + 2, head[3 + j],
                           f"column {head[3 + j]!r} is {col[r]:g}, not a whole number from 0 to 4294967295")
            crowd._arrays[name] = col.astype(np.uint32)
        else:
            with np.errstate(over="ignore"):  # beyond a float32: refused just below
                col32 = col.astype(np.float32)
            wrong = np.isinf(col32)
            if wrong.any():
                r = int(np.argmax(wrong))
                _fail_line(path, r + 2, head[3 + j], f"column {head[3 + j]!r} is {col[r]:g}, beyond a 32-bit float's "
                                                     "range (positions, velocities, headings and health must be finite)")
            crowd._arrays[name] = col32
    if dense:  # every frame holds every agent: (frames, agents) arrays
        crowd._arrays = {name: a.reshape(frames, n) for name, a in crowd._arrays.items()}
        return crowd
    columns, crowd._arrays = crowd._arrays, {}
    row_ids = ids.astype(np.uint32)
    crowd._sparse = lambda k: (row_ids[first[k]:first[k + 1]],
                               {name: a[first[k]:first[k + 1]] for name, a in columns.items()})
    return crowd


def read(path):
    """A throng output by its content: a CSV when it starts with "id," (after a
    UTF-8 byte-order mark, as spreadsheets save), else a binary stream."""
    path = os.fspath(path)
    try:
        with _open_regular(path) as f:
            start = f.read(len(UTF8_BOM) + 3)
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}", path=path) from e
    if start[:2] in (b"\xff\xfe", b"\xfe\xff"):
        _fail_line(path, 1, "header", "UTF-16 text (it starts with the byte-order mark "
                                      f"{start[0]:02X} {start[1]:02X}): save the CSV as UTF-8")
    if start.startswith(b"id,") or start.startswith(UTF8_BOM + b"id,"):
        return read_csv(path)
    return read_stream(path)
