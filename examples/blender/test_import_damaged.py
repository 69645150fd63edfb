# SPDX-License-Identifier: MIT
"""Damaged files through the command-line importer, inside Blender (ctest renderer_blender_damaged).

    blender -b --factory-startup --python-exit-code 1 --python test_import_damaged.py -- DIR RUN.thr RUN.csv

RUN.thr and RUN.csv are a run of test_scene.yaml with --fields all; the
damaged files are made from them (and from nothing: a forged header) in DIR.
Issue 30, defect 4: a 15 KB stream whose consistent header claims 2^30
agents made Blender allocate 24 GB and be killed. Each damaged file is
imported with throng_import.py's main() while Blender's address space is
limited to what it uses plus 256 MiB: it must fail with the reader's error
(file, byte offset or line, what), exit status 1, nothing built and no
.blend saved. Defect 14: a CSV with a UTF-8 byte-order mark imports.
"""
import contextlib
import io
import os
import resource
import struct
import sys

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import check, failures, recrc  # noqa: E402
import io_import_throng  # noqa: E402
import throng_import  # noqa: E402




def forged(agents, mask, tail):
    """A consistent 96-byte header for `agents` agents with the fields `mask`, then a marker and zeros."""
    fc = bin(mask).count("1")
    b = bytearray(96)
    b[:8] = b"\x89THRONG\n"
    struct.pack_into("<HHII", b, 8, 1, 0, 0x01020304, 96)
    struct.pack_into("<IIQdII4fQIH", b, 24, agents, mask, (32 + 4 * agents * fc + 7) // 8 * 8, 0.01, 1, 0,
                     -10, -10, 10, 10, 1, fc, 6)
    b[88:94] = b"forged"
    recrc(b, 0, 96, 20)
    return bytes(b) + b"FRAM" + bytes(tail - 4)


def vm_size():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def datablocks():
    d = bpy.data
    return [len(c) for c in (d.objects, d.meshes, d.collections, d.materials, d.node_groups, d.cameras)]


def run_import(argv, limit):
    """throng_import.py's main(argv), its address space limited to what Blender
    uses now plus `limit` bytes; returns (exit status, stderr, exception)."""
    err = io.StringIO()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    exc = None
    rc = None
    try:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (vm_size() + limit, hard))
        with contextlib.redirect_stderr(err):
            rc = throng_import.main(argv)
    except BaseException as e:  # noqa: BLE001  (MemoryError is the defect)
        exc = e
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        io_import_throng.unregister()  # main() registers the add-on each time
    return rc, err.getvalue(), exc


def main(out_dir, run, csv_path):
    for ob in list(bpy.data.objects):  # the factory scene's cube, light and camera, as main() removes them
        bpy.data.objects.remove(ob)
    raw = open(run, "rb").read()
    (hb,) = struct.unpack_from("<I", raw, 16)
    fb, n = struct.unpack_from("<QI", raw, hb + 32)  # version 2: the frames give their size and count
    nan_x = bytearray(raw)
    f2 = hb + 2 * fb  # a run without churn: frames of one size
    x2 = f2 + 48 + 4 * n + 4 * 2  # agent 2's x, after the head and the ids
    struct.pack_into("<f", nan_x, x2, float("nan"))
    recrc(nan_x, f2, fb, 4)
    lines = open(csv_path).read().splitlines(keepends=True)
    short = "".join(lines[:6] + [",".join(lines[6].split(",")[:4]) + "\n"] + lines[7:])
    cells = lines[8].rstrip("\n").split(",")
    cells[3] = "inf"
    inf_x = "".join(lines[:8] + [",".join(cells) + "\n"] + lines[9:])
    cases = [
        ("2^30 agents of 6 fields.thr", forged(1 << 30, 0x3F, 15000 - 96),
         "byte offset 32: frame size 25769803808 is larger than this reader accepts (2147483648)"),
        ("2^27 agents of x and y.thr", forged(1 << 27, 0x03, 15000 - 96),
         f"byte offset 15000: the stream ends inside frame 0 (14904 of {32 + 8 * (1 << 27)} bytes"),
        ("nan.thr", bytes(nan_x), f"byte offset {x2}: frame 2: agent 2's x is nan"),
        ("short row.csv", short.encode(), "line 7: 4 of 13 values: the row is cut short before column 'y'"),
        ("inf.csv", inf_x.encode(), "line 9: column 'x' is inf"),
    ]
    for name, data, expect in cases:
        path = os.path.join(out_dir, name)
        blend = path + ".blend"
        with open(path, "wb") as f:
            f.write(data)
        before = datablocks()
        rc, err, exc = run_import([path, "--save", blend], 256 << 20)
        check(exc is None and rc == 1 and f"throng_import.py: {path}: {expect}" in err,
              f"{name}: exit {rc}, {type(exc).__name__ if exc else 'no exception'} {exc or ''}, stderr {err!r}, "
              f"expected exit 1 and {path}: {expect}")
        check(not os.path.exists(blend), f"{name}: a .blend was saved")
        check(datablocks() == before, f"{name}: the failed import left data behind ({before} -> {datablocks()})")

    # What spreadsheets save: a UTF-8 byte-order mark (and CRLF line ends) imports.
    bom = os.path.join(out_dir, "bom.csv")
    with open(bom, "w", encoding="utf-8", newline="") as f:
        f.write("\ufeff" + "".join(lines).replace("\n", "\r\n"))
    rc, err, exc = run_import([bom, "--camera", "none"], None)
    check(exc is None and rc == 0, f"bom.csv: exit {rc}, {exc!r}, {err!r}")
    frames = bpy.context.scene.frame_end - bpy.context.scene.frame_start + 1
    check(frames == (len(lines) - 1) // 9, f"bom.csv: {frames} frames")
    if failures:
        print(f"test_import_damaged.py: {len(failures)} check(s) failed")
        return 1
    print("test_import_damaged.py: all checks passed")
    return 0


if __name__ == "__main__":
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    sys.exit(main(*argv[:3]))
