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

Errors are `ThrongReadError` with the file and the byte offset (stream) or
line (CSV), worded like the C reader's (core/io/stream_read.c).
"""
import math
import os
import struct
import zlib

import numpy as np

MAGIC = b"\x89THRONG\n"
FIELDS = ("x", "y", "vx", "vy", "hx", "hy", "group", "archetype")  # bit order
CSV_COLUMNS = ("x", "y", "velocity_x", "velocity_y", "heading_x", "heading_y", "group", "archetype")
INT_FIELDS = ("group", "archetype")
HEADER_FIXED = 88
FRAME_HEAD = 32
END_BYTES = 16
BOUNDS_MODES = ("contain", "wrap", "bounce", "open")


class ThrongReadError(Exception):
    """A file throng's readers reject; the message names the file and where."""


class Crowd:
    """A checked throng output: its header facts and its frames by agent id.

    agents, frames, dt (s per step), every (steps per frame), period
    (s per frame), bounds ((min x, min y, max x, max y), m), bounds_mode,
    scenario, complete (an end record closed the stream), end_flags (the
    end record's flags byte: bit 0, the run was interrupted), fields (names).
    frame(k) returns {field: array of `agents` values} for frame k (views
    into the memory map for a stream, no copy).
    """

    def __init__(self, path, agents, frames, fields, period, dt=None, every=None,
                 bounds=None, bounds_mode="open", scenario="", complete=True):
        self.path, self.agents, self.frames, self.fields = path, agents, frames, fields
        self.period, self.dt, self.every = period, dt, every
        self.bounds, self.bounds_mode, self.scenario, self.complete = bounds, bounds_mode, scenario, complete
        self.end_flags = 0
        self._arrays = {}

    def frame(self, k):
        k = min(max(int(k), 0), self.frames - 1)
        return {name: a[k] for name, a in self._arrays.items()}

    @property
    def fps(self):
        return 1.0 / self.period


def _fail(path, where, what):
    raise ThrongReadError(f"{path}: {where}: {what}")


def _crc_zeroed(buf, at):
    """CRC-32 (zlib's) of buf with the 4 bytes at `at` taken as zero."""
    mv = memoryview(buf)
    crc = zlib.crc32(mv[:at])
    crc = zlib.crc32(b"\0\0\0\0", crc)
    return zlib.crc32(mv[at + 4:], crc) & 0xFFFFFFFF


def _read_header(f, path):
    fixed = f.read(HEADER_FIXED)
    off = lambda n: f"byte offset {n}"  # noqa: E731
    if len(fixed) < 8 or fixed[:8] != MAGIC:
        _fail(path, off(0), "not a throng stream (the first 8 bytes are not the magic 89 54 48 52 4F 4E 47 0A)")
    if len(fixed) < HEADER_FIXED:
        _fail(path, off(len(fixed)), f"the stream ends inside the header ({len(fixed)} of at least {HEADER_FIXED} bytes)")
    major, minor, bom, header_bytes, stored = struct.unpack_from("<HHIII", fixed, 8)
    if major != 1:
        _fail(path, off(8), f"stream version {major}.{minor}, but this reader reads version 1.x only")
    if bom != 0x01020304:
        _fail(path, off(12), f"byte-order mark 0x{bom:08x}, expected 0x01020304 stored little-endian")
    if header_bytes % 8 or not HEADER_FIXED <= header_bytes <= 65536:
        _fail(path, off(16), f"header size {header_bytes} is not a multiple of 8 from {HEADER_FIXED} to 65536")
    rest = f.read(header_bytes - HEADER_FIXED)
    if len(rest) != header_bytes - HEADER_FIXED:
        _fail(path, off(HEADER_FIXED + len(rest)),
              f"the stream ends inside the header ({HEADER_FIXED + len(rest)} of {header_bytes} bytes)")
    h = fixed + rest
    computed = _crc_zeroed(h, 20)
    if computed != stored:
        _fail(path, off(20), f"header checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
    agents, mask, frame_bytes, dt, every, mode = struct.unpack_from("<IIQdII", h, 24)
    bounds = struct.unpack_from("<4f", h, 56)
    field_count, name_bytes = struct.unpack_from("<IH", h, 80)
    if agents == 0:
        _fail(path, off(24), "agent count is 0")
    if mask == 0:
        _fail(path, off(28), "field mask is 0 (no fields)")
    if field_count != bin(mask).count("1"):
        _fail(path, off(80), f"field count {field_count} does not match the field mask 0x{mask:08x} "
                             f"({bin(mask).count('1')} bits)")
    expect = (FRAME_HEAD + 4 * agents * field_count + 7) // 8 * 8
    if frame_bytes != expect:
        _fail(path, off(32), f"frame size {frame_bytes}, but {agents} agents with {field_count} fields make {expect}")
    if not (math.isfinite(dt) and dt > 0):
        _fail(path, off(40), f"dt {dt:g} is not a positive number of seconds")
    if every == 0:
        _fail(path, off(48), "frame stride (every) is 0")
    if mode > 3:
        _fail(path, off(52), f"bounds mode {mode} is not 0 to 3")
    if not all(math.isfinite(b) for b in bounds):
        _fail(path, off(56), "world bounds are not finite")
    if HEADER_FIXED + name_bytes > header_bytes:
        _fail(path, off(84), f"scenario name of {name_bytes} bytes does not fit a {header_bytes}-byte header")
    return {
        "agents": agents, "mask": mask, "field_count": field_count, "frame_bytes": frame_bytes,
        "dt": dt, "every": every, "bounds_mode": BOUNDS_MODES[mode], "bounds": bounds,
        "header_bytes": header_bytes, "scenario": h[88:88 + name_bytes].decode("utf-8", "replace"),
    }


def _check_frames(f, path, h):
    """Reads every frame after the header; returns (frames, complete, end record flags)."""
    frame_bytes, every, dt = h["frame_bytes"], h["every"], h["dt"]
    buf = bytearray(frame_bytes)
    view = memoryview(buf)
    offset, index, step0 = h["header_bytes"], 0, 0
    while True:
        got = f.readinto(view[:4])
        if got == 0:
            return index, False, 0  # the writer stopped at a frame boundary: every frame is whole
        if got < 4:
            _fail(path, f"byte offset {offset + got}",
                  f"the stream ends inside the marker of frame {index} (which starts at byte offset {offset})")
        if buf[:4] == b"END!":
            end = bytearray(buf[:4]) + f.read(END_BYTES - 4)
            if len(end) < END_BYTES:
                _fail(path, f"byte offset {offset + len(end)}",
                      f"the stream ends inside the end record that starts at byte offset {offset}")
            stored, frames = struct.unpack_from("<IQ", end, 4)
            # The top byte of `frames` may carry flags (a writer stopped by a
            # signal marks its end record interrupted): read, never rejected.
            flags, frames = frames >> 56, frames & ((1 << 56) - 1)
            computed = _crc_zeroed(end, 4)
            if computed != stored:
                _fail(path, f"byte offset {offset + 4}",
                      f"end record checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
            if frames != index:
                _fail(path, f"byte offset {offset + 8}",
                      f"the end record counts {frames} frames but the stream holds {index}")
            if f.read(1):
                _fail(path, f"byte offset {offset + END_BYTES}", "data after the end record")
            return index, True, flags
        if buf[:4] != b"FRAM":
            found = " ".join(f"{b:02x}" for b in buf[:4])
            _fail(path, f"byte offset {offset}",
                  f"expected frame {index}'s marker \"FRAM\" or the end record \"END!\", found {found}")
        got = 4
        while got < frame_bytes:
            n = f.readinto(view[got:])
            if not n:
                _fail(path, f"byte offset {offset + got}", f"the stream ends inside frame {index} "
                      f"({got} of {frame_bytes} bytes; the frame starts at byte offset {offset})")
            got += n
        stored, idx, step, time = struct.unpack_from("<IQQd", buf, 4)
        computed = _crc_zeroed(buf, 4)
        if computed != stored:
            _fail(path, f"byte offset {offset + 4}",
                  f"frame {index} checksum mismatch (stored 0x{stored:08x}, computed 0x{computed:08x})")
        if idx != index:
            _fail(path, f"byte offset {offset + 8}", f"frame index {idx} where {index} was expected")
        if index == 0:
            step0 = step
        elif step != step0 + index * every:
            _fail(path, f"byte offset {offset + 16}", f"frame {index} has step {step}; "
                  f"frame 0 had step {step0} and the stride is {every}")
        if time != step * dt:
            _fail(path, f"byte offset {offset + 24}",
                  f"frame {index} has time {time!r} s, but step {step} times dt is {step * dt!r} s")
        offset += frame_bytes
        index += 1


def read_stream(path):
    """Checks the binary stream at `path` whole and returns a Crowd over a memory map of it.

    Raises ThrongReadError (file, byte offset, what) for anything
    docs/FORMAT.md calls truncated or corrupt, and for a stream without frames.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            h = _read_header(f, path)
            frames, complete, flags = _check_frames(f, path, h)
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}") from e
    if frames == 0:
        _fail(path, f"byte offset {h['header_bytes']}", "the stream holds no frame")
    n, fb = h["agents"], h["frame_bytes"]
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=h["header_bytes"], shape=(frames, fb))
    present = [name for bit, name in enumerate(FIELDS) if h["mask"] & (1 << bit)]
    crowd = Crowd(path, n, frames, present, h["dt"] * h["every"], h["dt"], h["every"],
                  h["bounds"], h["bounds_mode"], h["scenario"], complete)
    crowd.end_flags = flags
    for j, name in enumerate(present):  # known fields come first (bits 0-7), in bit order
        at = FRAME_HEAD + 4 * n * j
        crowd._arrays[name] = raw[:, at:at + 4 * n].view("<u4" if name in INT_FIELDS else "<f4")
    return crowd


def read_csv(path):
    """Reads a throng CSV (docs/FORMAT.md) whole into memory and checks its order.

    Meant for small runs: CSV is text, 10x larger and far slower to parse
    than the stream. The frame period comes from the time column (float
    precision); dt and every are not in a CSV.
    """
    path = os.fspath(path)
    try:
        with open(path, "r", encoding="utf-8") as f:
            head = f.readline().rstrip("\n").split(",")
            if head[:3] != ["id", "frame", "time"]:
                _fail(path, "line 1", f"columns {','.join(head[:3])!r}, expected a throng CSV starting id,frame,time")
            known = dict(zip(CSV_COLUMNS, FIELDS))
            for col in head[3:]:
                if col not in known:
                    _fail(path, "line 1", f"unknown column {col!r} (expected some of {', '.join(CSV_COLUMNS)})")
            try:
                data = np.loadtxt(f, delimiter=",", dtype=np.float64, ndmin=2)
            except ValueError as e:
                _fail(path, "below line 1", f"not a number where one is expected ({e})")
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}") from e
    if data.shape[0] == 0:
        _fail(path, "line 2", "the CSV holds no row")
    if data.shape[1] != len(head):
        _fail(path, "line 2", f"{data.shape[1]} columns, the first line names {len(head)}")
    ids, frame_col = data[:, 0], data[:, 1]
    n = int(np.count_nonzero(frame_col == frame_col[0]))
    rows = data.shape[0]
    frames = rows // n
    want_id = np.tile(np.arange(n, dtype=np.float64), frames)
    want_frame = np.repeat(np.arange(frames, dtype=np.float64), n)
    if frame_col[0] != 0:
        _fail(path, "line 2", f"frame {frame_col[0]:g}, expected frame 0")
    bad = np.flatnonzero((ids[:frames * n] != want_id) | (frame_col[:frames * n] != want_frame))
    if bad.size:
        r = int(bad[0])
        _fail(path, f"line {r + 2}", f"agent {ids[r]:g} of frame {frame_col[r]:g}, expected agent "
              f"{want_id[r]:g} of frame {want_frame[r]:g} (rows go by frame, then id)")
    if rows != frames * n:
        _fail(path, f"line {frames * n + 2}", f"the last frame has {rows - frames * n} of {n} agents")
    times = data[::n, 2]
    period = float(times[1] - times[0]) if frames > 1 else 1.0 / 60.0
    if not (math.isfinite(period) and period > 0):
        _fail(path, f"line {n + 2}", f"time {times[1]:g} does not follow frame 0's {times[0]:g}")
    present = [known[c] for c in head[3:]]
    crowd = Crowd(path, n, frames, present, period)
    for j, name in enumerate(present):
        col = data[:, 3 + j].reshape(frames, n)
        crowd._arrays[name] = col.astype(np.uint32 if name in INT_FIELDS else np.float32)
    return crowd


def read(path):
    """A throng output by its content: a CSV when it starts with "id,", else a binary stream."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            start = f.read(3)
    except OSError as e:
        raise ThrongReadError(f"{path}: cannot read: {e.strerror or e}") from e
    return read_csv(path) if start == b"id," else read_stream(path)
