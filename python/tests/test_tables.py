# SPDX-License-Identifier: MIT
"""throng.read_csv and throng.read_sqlite: the CSV and SQLite outputs read
back as structured arrays, equal to what the world's views showed when
each frame was written."""

from __future__ import annotations

import errno
import sqlite3

import numpy as np
import pytest

import throng


def recorded_run(tmp_path, fmt, fields=None):
    """A small `flock` run written every 2 steps, agents removed and added
    between frames (rows come and go), and what the views showed at each
    written frame, by id."""
    scene = throng.Scene.builtin("flock", agents=60, seed=4, threads=1)
    world = scene.world
    path = tmp_path / f"run.{fmt}"
    seen = []
    with scene.export(path, every=2, **({"fields": fields} if fields else {})) as writer:
        for step in range(9):
            if step == 3:
                world.remove([5, 17, 40])
            if step == 6:
                world.spawn([(1.0, 1.0), (2.0, 2.0)])
            if writer.write():
                order = np.argsort(world.ids)
                seen.append((world.ids[order].copy(), world.positions[order].copy(),
                             world.headings[order].copy(), world.velocities[order].copy()))
            scene.step()
    return path, seen


def test_csv_reads_back_every_frame_bit_for_bit(tmp_path):
    path, seen = recorded_run(tmp_path, "csv", fields="all")
    rows = throng.read_csv(path)
    assert rows.dtype.names == ("id", "frame", "time", "x", "y", "velocity_x", "velocity_y", "heading_x",
                                "heading_y", "group", "archetype", "health", "combat_state")
    assert rows.dtype["x"] == np.float32 and rows.dtype["id"] == np.uint32 and rows.dtype["time"] == np.float64
    assert len(seen) == 5 and int(rows["frame"].max()) == 4
    for k, (ids, pos, head, vel) in enumerate(seen):
        frame = rows[rows["frame"] == k]
        assert np.array_equal(frame["id"], ids)
        assert np.array_equal(frame["x"], pos[:, 0]) and np.array_equal(frame["y"], pos[:, 1])
        assert np.array_equal(frame["heading_x"], head[:, 0]) and np.array_equal(frame["velocity_y"], vel[:, 1])
        assert frame["time"][0] == pytest.approx(2 * k / 60, abs=1e-7)
    assert 5 not in rows["id"][rows["frame"] == 2] and 5 in rows["id"][rows["frame"] == 1]


def test_csv_default_fields_and_throng_runs_file(tmp_path, cli):
    import subprocess
    out = tmp_path / "c.csv"
    subprocess.run([cli, "run", "circle", "--agents", "30", "--steps", "4", "--out", str(out)], check=True,
                   capture_output=True)
    rows = throng.read_csv(out)
    assert rows.dtype.names == ("id", "frame", "time", "x", "y", "heading_x", "heading_y")
    scene = throng.Scene.builtin("circle", agents=30)
    scene.step(4)
    last = rows[rows["frame"] == 4]
    order = np.argsort(scene.world.ids)
    assert np.array_equal(last["x"], scene.world.positions[order, 0])


def test_sqlite_reads_back_every_frame(tmp_path):
    path, seen = recorded_run(tmp_path, "sqlite")
    run = throng.read_sqlite(path)
    assert isinstance(run, throng.SqliteRun) and run.trajectory.dtype == throng.SQLITE_DTYPE
    assert run.frames == 5 and run.metadata["version"] == "2" and run.metadata["scenario"] == "flock"
    assert run.walkable_area.startswith("POLYGON")
    for k, (ids, pos, head, _) in enumerate(seen):
        frame = run.frame(k)
        assert np.array_equal(frame["id"], ids)
        assert np.array_equal(frame["x"], pos[:, 0]) and np.array_equal(frame["y"], pos[:, 1])
        assert np.array_equal(frame["ori_x"], head[:, 0]) and np.array_equal(frame["ori_y"], head[:, 1])
    assert len(run.trajectory) == sum(len(s[0]) for s in seen)


def test_bad_files_name_the_file_and_line(tmp_path):
    with pytest.raises(throng.FileError) as e:
        throng.read_csv(tmp_path / "none.csv")
    assert e.value.errno == errno.ENOENT and "none.csv" in str(e.value)
    with pytest.raises(throng.FileError) as e:
        throng.read_sqlite(tmp_path)
    assert e.value.errno == errno.EISDIR
    bad = tmp_path / "bad.csv"
    bad.write_text("id,frame,time,x,y\n0,0,0,1.5,2\n1,0,0,abc,2\n")
    with pytest.raises(throng.CorruptData, match=r"bad.csv: line 3: column 'x': 'abc' is not a number"):
        throng.read_csv(bad)
    bad.write_text("id,frame,time,x,y\n0,0,0,1.5\n")
    with pytest.raises(throng.CorruptData, match=r"bad.csv: line 2: 4 values, expected 5"):
        throng.read_csv(bad)
    bad.write_text("id,frame,time,x,y\n-1,0,0,1.5,2\n")
    with pytest.raises(throng.CorruptData, match=r"line 2: column 'id': '-1' is not a whole number"):
        throng.read_csv(bad)
    bad.write_text("name,value\nx,1\n")
    with pytest.raises(throng.CorruptData, match=r"bad.csv: line 1: not a throng CSV header"):
        throng.read_csv(bad)
    bad.write_text("id,frame,time,x,y\n")
    assert throng.read_csv(bad).shape == (0,)
    notdb = tmp_path / "not.sqlite"
    notdb.write_bytes(b"hello, not a database" * 100)
    with pytest.raises(throng.CorruptData, match="not.sqlite: not a throng SQLite output"):
        throng.read_sqlite(notdb)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t(x)")
    with pytest.raises(throng.CorruptData, match="other.sqlite"):
        throng.read_sqlite(other)
