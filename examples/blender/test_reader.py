#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The importer's readers without Blender (ctest renderer_reader): python3 with numpy.

    python3 test_reader.py RUN.thr RUN.csv SCENE.yaml

RUN.thr and RUN.csv are the same run of SCENE.yaml with --fields all. Every
damage docs/FORMAT.md calls corrupt or truncated must fail with the file, the
byte offset and what is wrong; a stream stopped at a frame boundary and an
end record whose flags byte is set (an interrupted run) must read whole.
"""
import os
import struct
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_import_throng import reader, scenefile  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def recrc(buf, start, size, at):
    """Rewrites the CRC-32 at start + at of the record buf[start:start + size]."""
    struct.pack_into("<I", buf, start + at, 0)
    struct.pack_into("<I", buf, start + at, zlib.crc32(bytes(buf[start:start + size])) & 0xFFFFFFFF)


def expect_error(tmp, name, data, expect):
    path = os.path.join(tmp, name + ".thr")
    with open(path, "wb") as f:
        f.write(data)
    try:
        reader.read(path)
        check(False, f"{name}: read without error, expected {expect!r}")
    except reader.ThrongReadError as e:
        check(str(e).startswith(f"{path}: {expect}"), f"{name}: {str(e)!r}, expected {path}: {expect}...")


def stream_cases(raw, tmp):
    (hb,) = struct.unpack_from("<I", raw, 16)
    (fb,) = struct.unpack_from("<Q", raw, 32)
    (every,) = struct.unpack_from("<I", raw, 48)
    end = len(raw) - 16
    f2 = hb + 2 * fb

    def edit(fn, record=None):
        b = bytearray(raw)
        fn(b)
        if record == "header":
            recrc(b, 0, hb, 20)
        elif record == "frame":
            recrc(b, f2, fb, 4)
        elif record == "end":
            recrc(b, end, 16, 4)
        return bytes(b)

    cases = [
        ("magic", edit(lambda b: b.__setitem__(1, 0x55)), "byte offset 0: not a throng stream"),
        ("version", edit(lambda b: struct.pack_into("<H", b, 8, 2)), "byte offset 8: stream version 2.0"),
        ("header_crc", edit(lambda b: b.__setitem__(90, b[90] ^ 1)), "byte offset 20: header checksum mismatch"),
        ("frame_size", edit(lambda b: struct.pack_into("<Q", b, 32, fb + 8), "header"), "byte offset 32: frame size"),
        ("dt", edit(lambda b: struct.pack_into("<d", b, 40, -1.0), "header"), "byte offset 40: dt -1 is not"),
        ("bounds_mode", edit(lambda b: struct.pack_into("<I", b, 52, 7), "header"), "byte offset 52: bounds mode 7"),
        ("name", edit(lambda b: struct.pack_into("<H", b, 84, 4000), "header"), "byte offset 84: scenario name"),
        ("frame_crc", edit(lambda b: b.__setitem__(f2 + 40, b[f2 + 40] ^ 0x10)),
         f"byte offset {f2 + 4}: frame 2 checksum mismatch"),
        ("index", edit(lambda b: struct.pack_into("<Q", b, f2 + 8, 7), "frame"),
         f"byte offset {f2 + 8}: frame index 7 where 2 was expected"),
        ("step", edit(lambda b: struct.pack_into("<Q", b, f2 + 16, 2 * every + 1), "frame"),
         f"byte offset {f2 + 16}: frame 2 has step {2 * every + 1}"),
        ("time", edit(lambda b: struct.pack_into("<d", b, f2 + 24, 99.0), "frame"),
         f"byte offset {f2 + 24}: frame 2 has time 99.0 s"),
        ("marker", edit(lambda b: b.__setitem__(slice(f2, f2 + 4), b"FRAX")),
         f"byte offset {f2}: expected frame 2's marker"),
        ("cut_frame", raw[:f2 + 100], f"byte offset {f2 + 100}: the stream ends inside frame 2"),
        ("cut_marker", raw[:f2 + 2], f"byte offset {f2 + 2}: the stream ends inside the marker of frame 2"),
        ("cut_end", raw[:end + 10], f"byte offset {end + 10}: the stream ends inside the end record"),
        ("end_crc", edit(lambda b: b.__setitem__(end + 8, b[end + 8] ^ 1)), f"byte offset {end + 4}: end record checksum"),
        ("end_count", edit(lambda b: struct.pack_into("<Q", b, end + 8, 3), "end"),
         f"byte offset {end + 8}: the end record counts 3 frames"),
        ("trailing", raw + b"\0", f"byte offset {len(raw)}: data after the end record"),
        ("no_frame", raw[:hb], f"byte offset {hb}: the stream holds no frame"),
    ]
    for name, data, expect in cases:
        expect_error(tmp, name, data, expect)

    # Read whole: a run stopped at a frame boundary, and an end record with
    # its flags byte (the top byte of the frame count) marking an interrupted run.
    for name, data, complete, flags in (
            ("stopped", raw[:end], False, 0),
            ("interrupted", edit(lambda b: b.__setitem__(end + 15, 0x01), "end"), True, 1)):
        path = os.path.join(tmp, name + ".thr")
        with open(path, "wb") as f:
            f.write(data)
        c = reader.read(path)
        check(c.complete == complete and c.end_flags == flags and c.frames == (end - hb) // fb,
              f"{name}: complete {c.complete}, flags {c.end_flags}, {c.frames} frames")


def csv_cases(csv_path, agents, tmp):
    lines = open(csv_path).read().splitlines(keepends=True)
    swapped = lines[:5] + [lines[6], lines[5]] + lines[7:]
    for name, data, expect in (
            ("swapped", swapped, "line 6: agent 5 of frame 0, expected agent 4 of frame 0"),
            ("short", lines[:-1], f"line {len(lines) - agents + 1}: the last frame has {agents - 1} of {agents} agents"),
            ("column", ["id,frame,time,x,y,z\n"] + lines[1:], "line 1: unknown column 'z'")):
        path = os.path.join(tmp, name + ".csv")
        with open(path, "w") as f:
            f.writelines(data)
        try:
            reader.read(path)
            check(False, f"csv {name}: read without error")
        except reader.ThrongReadError as e:
            check(str(e).startswith(f"{path}: {expect}"), f"csv {name}: {str(e)!r}, expected {expect!r}")


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
    with tempfile.TemporaryDirectory() as tmp:
        stream_cases(open(run, "rb").read(), tmp)
        csv_cases(csv_path, c.agents, tmp)
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
