# SPDX-License-Identifier: MIT
"""Outputs from Python: writers (byte for byte as `throng run --out`), the
binary stream read back, checkpoints of worlds and scenes, quality metrics
and measurement lines and areas."""

from __future__ import annotations

import errno
import os
import subprocess

import numpy as np
import pytest

import throng
from conftest import small_world


def run_cli(cli, cwd, *args):
    subprocess.run([cli, "run", *args, "--quiet"], check=True, capture_output=True, cwd=cwd)


def scene_to_file(path, name, agents, seed, steps, **writer_args):
    """What `throng run NAME --agents A --seed S --steps K --out PATH`
    does, from Python: frame 0, then one write after each step."""
    scene = throng.Scene.builtin(name, agents=agents, seed=seed)
    with throng.Writer(scene, path, **writer_args) as w:
        w.write()
        for _ in range(steps):
            scene.step()
            w.write()
    return scene, w


# ---------------------------------------------------------------------------
# Writers


@pytest.mark.parametrize("fmt,ext,extra", [
    ("bin", "thr", []),
    ("bin", "thr", ["--fields", "all", "--every", "3"]),
    ("csv", "csv", ["--fields", "x,y,vx,vy,group"]),
    ("ped", "txt", []),
    ("sqlite", "sqlite", ["--every", "2"]),
])
def test_writer_bytes_equal_throng_run(tmp_path, cli, fmt, ext, extra):
    steps = 25
    run_cli(cli, tmp_path, "crossing", "--agents", "150", "--seed", "4", "--steps", str(steps), "--out",
            f"cli.{ext}", "--format", fmt, *extra)
    kwargs = {}
    for flag, value in zip(extra[::2], extra[1::2]):
        kwargs[flag[2:]] = int(value) if flag == "--every" else value
    _, w = scene_to_file(tmp_path / f"py.{ext}", "crossing", 150, 4, steps, format=fmt, **kwargs)
    every = kwargs.get("every", 1)
    assert w.frames == steps // every + 1 and w.closed and w.format == fmt
    assert (tmp_path / f"py.{ext}").read_bytes() == (tmp_path / f"cli.{ext}").read_bytes()


def test_writer_format_from_extension(tmp_path):
    world = small_world(10)
    for ext, name in (("csv", "csv"), ("ped", "ped"), ("db", "sqlite"), ("thr", "bin"), ("xyz", "bin")):
        with world.export(tmp_path / f"a.{ext}") as w:
            assert w.format == name
            w.write()
    assert (tmp_path / "a.csv").read_text().splitlines()[0].startswith(("step", "frame", "#", "time", "id"))
    assert (tmp_path / "a.thr").read_bytes()[:8] == b"\x89THRONG\n"
    assert (tmp_path / "a.db").read_bytes()[:16] == b"SQLite format 3\x00"


def test_writer_commits_on_close_and_discard_leaves_the_path(tmp_path):
    world = small_world(20)
    path = tmp_path / "run.thr"
    w = throng.Writer(world, path)
    assert w.write() is True
    world.step()
    assert w.write() is True
    assert w.write() is False  # the same step: nothing due
    assert not path.exists()   # written to a temporary until close
    w.close()
    assert path.exists() and w.frames == 2 and w.closed
    w.close()                  # a second close does nothing
    with pytest.raises(ValueError, match="closed"):
        w.write()

    old = path.read_bytes()
    w = throng.Writer(world, path)
    w.write()
    w.discard()
    assert path.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["run.thr"]  # no temporary left


def test_writer_every(tmp_path):
    world = small_world(5)
    with world.export(tmp_path / "e.thr", every=4) as w:
        written = [w.write()]
        for _ in range(10):
            world.step()
            written.append(w.write())
    assert written == [k % 4 == 0 for k in range(11)]
    stream = throng.read_stream(tmp_path / "e.thr")
    assert [f.step for f in stream.frames] == [0, 4, 8] and stream.info.every == 4


def test_writer_exception_in_block_marks_interrupted(tmp_path):
    world = small_world(5)
    with pytest.raises(KeyError):
        with world.export(tmp_path / "i.thr") as w:
            w.write()
            raise KeyError("stop")
    stream = throng.read_stream(tmp_path / "i.thr")
    assert stream.complete and stream.interrupted and len(stream.frames) == 1
    with world.export(tmp_path / "j.thr") as w:
        w.write()
    stream = throng.read_stream(tmp_path / "j.thr")
    assert stream.complete and not stream.interrupted


def test_writer_bad_arguments(tmp_path):
    world = small_world(5)
    with pytest.raises(throng.InvalidArgument, match=r"format: unknown format 'xml' \(expected one of: auto, bin, "
                                                    r"csv, ped, sqlite\)"):
        throng.Writer(world, tmp_path / "a.thr", format="xml")
    with pytest.raises(throng.InvalidArgument, match=r'fields: unknown field "speed".*every name: x, y, .*, health, combat_state, position, velocity, heading, all$'):
        world.export(tmp_path / "a.thr", fields="x,speed")
    with pytest.raises(throng.InvalidArgument, match="fields: empty"):
        world.export(tmp_path / "a.thr", fields=[])
    with pytest.raises(TypeError, match=r"fields\[1\]"):
        world.export(tmp_path / "a.thr", fields=["x", 3])
    with pytest.raises(throng.InvalidArgument, match="every: got 0"):
        world.export(tmp_path / "a.thr", every=0)
    with pytest.raises(TypeError, match="every"):
        world.export(tmp_path / "a.thr", every=1.5)
    with pytest.raises(TypeError, match="Writer: world: expected a throng.World"):
        throng.Writer("world", tmp_path / "a.thr")
    assert list(tmp_path.iterdir()) == []


def test_writer_file_errors_name_the_path(tmp_path):
    world = small_world(5)
    missing = tmp_path / "no" / "such" / "dir" / "run.thr"
    with pytest.raises(throng.FileError) as e:
        world.export(missing)
    assert isinstance(e.value, OSError)
    assert e.value.filename == str(missing) and str(missing) in str(e.value)
    assert e.value.errno == errno.ENOENT
    with pytest.raises(throng.FileError) as e:
        world.export(tmp_path)  # a directory
    assert e.value.filename == str(tmp_path) and str(tmp_path) in str(e.value)
    assert e.value.errno == errno.EISDIR
    if os.path.exists("/dev/full"):  # a device written in place; every write fails
        with pytest.raises(throng.FileError) as e:
            world.export("/dev/full")
        assert e.value.errno == errno.ENOSPC and e.value.filename == "/dev/full"
        assert "write failed" in str(e.value)


# ---------------------------------------------------------------------------
# Reading the binary stream


def write_and_record(path, world, steps, every=1, fields="all"):
    """Writes a stream while recording, at each frame's step, the state by
    id as world's views show it."""
    seen = []
    with world.export(path, fields=fields, every=every, scenario="mine") as w:
        for k in range(steps + 1):
            if k:
                world.step()
            if w.write():
                order = np.argsort(world.ids)
                seen.append((world.steps, np.array(world.ids)[order], np.array(world.positions)[order],
                             np.array(world.velocities)[order], np.array(world.headings)[order],
                             np.array(world.groups)[order], np.array(world.archetypes)[order]))
    return seen


def test_stream_round_trip(tmp_path):
    world = small_world(60, seed=5, dt=0.05)
    path = tmp_path / "rt.thr"
    seen = write_and_record(path, world, 20, every=2)
    assert len(seen) == 11
    with throng.StreamReader(path) as r:
        info = r.info
        assert info.version == (2, 1)
        assert info.fields == throng.FIELDS
        assert info.agents == 60 and info.every == 2 and info.dt == pytest.approx(0.05)
        assert info.seed == 5 and info.scenario == "mine" and info.bounds_mode == "contain"
        assert info.bounds_min == (-50.0, -50.0) and info.bounds_max == (50.0, 50.0)
        assert not r.complete
        frames = list(r)
        assert r.complete and not r.interrupted and r.offset == path.stat().st_size
    assert len(frames) == len(seen)
    for k, (frame, (step, ids, pos, vel, head, groups, arch)) in enumerate(zip(frames, seen)):
        assert frame.index == k and frame.step == step and frame.time == pytest.approx(step * 0.05)
        assert frame.count == 60
        np.testing.assert_array_equal(frame.ids, ids)
        np.testing.assert_array_equal(frame.positions, pos)
        np.testing.assert_array_equal(frame.velocities, vel)
        np.testing.assert_array_equal(frame.headings, head)
        np.testing.assert_array_equal(frame.group, groups)
        np.testing.assert_array_equal(frame.archetype, arch)
        assert frame.health.dtype == np.float32 and frame.combat_state.dtype == np.uint32
    assert frames[-1].positions[:, 1].mean() > frames[0].positions[:, 1].mean()  # they walk towards y = 20


def test_stream_default_fields_and_read(tmp_path):
    world = small_world(8)
    with world.export(tmp_path / "d.thr") as w:
        w.write()
    r = throng.StreamReader(tmp_path / "d.thr")
    assert r.info.fields == ("x", "y", "hx", "hy") and r.info.version == (2, 0)
    f = r.read()
    assert f.vx is None and f.group is None and f.velocities is None and f.positions.shape == (8, 2)
    assert r.read() is None and r.complete
    r.close()
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.read()


def test_stream_cut_at_a_frame_boundary_is_incomplete(tmp_path):
    world = small_world(10)
    path = tmp_path / "c.thr"
    write_and_record(path, world, 4, fields="x,y")
    info = throng.read_stream(path).info
    frame_bytes = (48 + 4 * 10 * 3 + 7) // 8 * 8
    data = path.read_bytes()
    assert len(data) == info.header_bytes + 5 * frame_bytes + 16  # five frames and the end record
    cut = tmp_path / "cut.thr"
    cut.write_bytes(data[:info.header_bytes + 2 * frame_bytes])
    stream = throng.read_stream(cut)
    assert len(stream.frames) == 2 and not stream.complete and not stream.interrupted


def test_stream_truncated_or_damaged_raises_corrupt_data(tmp_path):
    world = small_world(10)
    path = tmp_path / "t.thr"
    write_and_record(path, world, 4, fields="x,y")
    data = path.read_bytes()
    info = throng.read_stream(path).info
    cut = tmp_path / "truncated.thr"
    cut.write_bytes(data[:len(data) - 40])
    with pytest.raises(throng.CorruptData, match=f"{cut}.*byte offset"):
        throng.read_stream(cut)
    with throng.StreamReader(cut) as r:  # the frames before the cut read
        assert r.read().index == 0
    # One bit of an x in frame 1 flipped: a checksum mismatch, unless unchecked.
    frame_bytes = (48 + 4 * 10 * 3 + 7) // 8 * 8
    at = info.header_bytes + frame_bytes + 48 + 40
    damaged = bytearray(data)
    damaged[at] ^= 1
    bad = tmp_path / "damaged.thr"
    bad.write_bytes(bytes(damaged))
    with pytest.raises(throng.CorruptData, match="frame 1 checksum mismatch"):
        throng.read_stream(bad)
    unchecked = throng.read_stream(bad, verify=False)
    good = throng.read_stream(path).frames
    assert len(unchecked.frames) == 5 and unchecked.complete
    assert (unchecked.frames[1].x != good[1].x).sum() == 1
    np.testing.assert_array_equal(unchecked.frames[2].x, good[2].x)
    junk = tmp_path / "junk.thr"
    junk.write_bytes(b"not a stream at all" * 10)
    with pytest.raises(throng.CorruptData, match=str(junk)):
        throng.StreamReader(junk)


def test_stream_missing_file(tmp_path):
    with pytest.raises(throng.FileError) as e:
        throng.read_stream(tmp_path / "none.thr")
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp_path / "none.thr")


# ---------------------------------------------------------------------------
# Checkpoints


def test_checkpoint_file_round_trip(tmp_path):
    world = small_world(80, seed=9)
    world.step(30)
    path = tmp_path / "w.ckpt"
    world.save_checkpoint(path)
    assert path.read_bytes() == world.checkpoint_bytes()
    assert world.checkpoint_size == path.stat().st_size
    loaded = throng.World.load_checkpoint(path)
    assert type(loaded) is throng.World
    assert loaded.hash() == world.hash() and loaded.steps == 30 and len(loaded) == 80
    np.testing.assert_array_equal(loaded.positions, world.positions)
    for _ in range(3):
        world.step(10)
        loaded.step(10)
        assert loaded.hash() == world.hash()


def test_checkpoint_bytes_round_trip():
    world = small_world(40, seed=2)
    world.step(12)
    data = world.checkpoint_bytes()
    assert isinstance(data, bytes) and len(data) == world.checkpoint_size
    again = throng.World.from_checkpoint_bytes(bytearray(data))
    assert again.hash() == world.hash()
    world.step(20)
    again.step(20)
    assert again.hash() == world.hash()
    with pytest.raises(throng.CorruptData):
        throng.World.from_checkpoint_bytes(data[:-10])
    with pytest.raises(TypeError):
        throng.World.from_checkpoint_bytes("text")


def test_checkpoint_damaged_or_missing(tmp_path):
    world = small_world(10)
    path = tmp_path / "w.ckpt"
    world.save_checkpoint(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(bytes(data))
    with pytest.raises(throng.CorruptData, match=str(bad)):
        throng.World.load_checkpoint(bad)
    short = tmp_path / "short.ckpt"
    short.write_bytes(bytes(data[:100]))
    with pytest.raises(throng.CorruptData, match=str(short)):
        throng.World.load_checkpoint(short)
    with pytest.raises(throng.FileError) as e:
        throng.World.load_checkpoint(tmp_path / "none.ckpt")
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp_path / "none.ckpt")
    with pytest.raises(throng.FileError) as e:
        world.save_checkpoint(tmp_path / "no" / "w.ckpt")
    assert e.value.filename == str(tmp_path / "no" / "w.ckpt")


def test_scene_checkpoint(tmp_path):
    scene = throng.Scene.builtin("bottleneck", agents=200, seed=2)
    scene.step(25)
    path = tmp_path / "s.ckpt"
    throng.save_scene_checkpoint(scene, path)
    data = throng.scene_checkpoint_bytes(scene)
    assert path.read_bytes() == data
    a = throng.load_scene_checkpoint(path, scene="bottleneck", agents=200, seed=2)
    b = throng.load_scene_checkpoint(data)
    assert isinstance(a, throng.Scene) and a.name == "bottleneck"
    assert a.hash() == b.hash() == scene.hash()
    for s in (scene, a, b):
        s.step(40)
    assert a.hash() == b.hash() == scene.hash()
    with pytest.raises(throng.InvalidArgument, match="agents"):
        throng.load_scene_checkpoint(path, agents=300)
    with pytest.raises(throng.InvalidArgument, match="seed"):
        throng.load_scene_checkpoint(path, seed=3)
    with pytest.raises(throng.Error):
        throng.load_scene_checkpoint(path, scene="hallway")
    with pytest.raises(throng.InvalidArgument, match="agents: got -1"):
        throng.load_scene_checkpoint(path, agents=-1)
    with pytest.raises(throng.CorruptData):
        throng.load_scene_checkpoint(data[:-5])
    with pytest.raises(TypeError, match="expected a throng.Scene"):
        throng.save_scene_checkpoint(small_world(3), tmp_path / "x.ckpt")


# ---------------------------------------------------------------------------
# Metrics


def overlapping_world():
    """Three agents at rest, radius 0.3: the first two 0.4 m apart (an
    overlap of depth 1 - 0.4 / 0.6 = 1/3), the third far away."""
    world = throng.World(seed=1)
    world.add_archetype(throng.Controller([throng.Slot("separation")]))
    world.spawn([(0.0, 0.0), (0.4, 0.0), (10.0, 10.0)], radius=0.3, targets=[(0.0, 0.0), (0.4, 0.0), (30.0, 10.0)])
    return world


def test_overlap_stats():
    world = overlapping_world()
    pairs, deepest = world.overlap_stats()
    assert pairs == 1 and deepest == pytest.approx(1 / 3, rel=1e-5)
    assert throng.World(seed=1).overlap_stats() == (0, 0.0)


def test_metrics_worked_by_hand():
    world = overlapping_world()
    m = world.metrics(goal_radius=1.0)
    m.observe()  # no step: the same state once more
    r = m.result()
    assert r["agents"] == 3 and r["steps"] == 1 and r["agent_steps"] == 3
    assert r["overlaps"] == 1 and r["deepest_overlap"] == pytest.approx(1 / 3, rel=1e-5)
    assert r["overlaps_per_agent_step"] == pytest.approx(1 / 3)
    assert r["goals"] == 3 and r["reached"] == 2  # the first two start on their goal, the third 20 m away
    assert r["mean_time_to_goal"] == 0.0 and r["out_of_bounds"] == 0 and r["nonfinite"] == 0
    assert r["seconds"] == pytest.approx(1 / 60)


def test_metrics_over_steps():
    world = small_world(50)
    m = throng.Metrics(world)
    for _ in range(20):
        world.step()
        m.observe()
    r = m.result()
    assert r["steps"] == 20 and r["agent_steps"] == 1000 and r["goals"] == 0 and r["reached"] == 0
    assert r["seconds"] == pytest.approx(20 / 60)
    assert r["max_speed_ratio"] == pytest.approx(world.stats.max_speed_ratio)
    world.step(2)
    with pytest.raises(throng.InvalidArgument):
        m.observe()  # a step went unobserved


def test_metrics_bad_arguments():
    world = small_world(5)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(throng.InvalidArgument, match="goal_radius"):
            throng.Metrics(world, goal_radius=bad)
    with pytest.raises(TypeError, match="Metrics: world"):
        throng.Metrics("world")
    with pytest.raises(TypeError, match="Metrics: goal_radius: expected a number"):
        throng.Metrics(world, goal_radius="1")
    with pytest.raises(TypeError, match="Measure: cutoff_radius: expected a number"):
        throng.Measure(cutoff_radius=None)


# ---------------------------------------------------------------------------
# Measurement


def test_measure_line_crossings_against_brute_force():
    world = small_world(60, seed=11)
    line_y = -19.6
    m = throng.Measure()
    line = m.add_line((-60.0, line_y), (60.0, line_y))
    back = m.add_line((60.0, line_y), (-60.0, line_y))  # the same line, the other way
    area = m.add_rect((-45.0, -25.0), (45.0, -15.0))
    assert (m.line_count, m.area_count, m.states) == (2, 1, 0)
    m.feed(world)
    left = right = 0
    crossed = []
    for _ in range(90):
        before = {int(i): float(y) for i, y in zip(world.ids, world.positions[:, 1])}
        world.step()
        m.feed(world)
        for i, y1 in zip(world.ids, world.positions[:, 1]):
            y0 = before[int(i)]
            if y0 < line_y < y1:
                left += 1
                crossed.append(int(i))
            elif y1 < line_y < y0:
                right += 1
    assert m.states == 91
    c = m.crossings(line)
    assert c.dtype == throng.CROSSING_DTYPE and left > 20
    assert (c["direction"] == 1).sum() == left and (c["direction"] == -1).sum() == right
    assert sorted(c["id"][c["direction"] == 1].tolist()) == sorted(crossed)
    assert np.all(np.diff(c["time"]) >= 0) and np.allclose(c["y"], line_y, atol=1e-4)
    np.testing.assert_array_equal(m.crossings(back)["direction"], -c["direction"])
    t1 = 90 / 60
    flow = m.flow(line, 0.0, t1 + 1e-9)
    assert flow["left"] == left and flow["right"] == right
    assert flow["flow_left"] == pytest.approx(left / (t1 + 1e-9))
    assert flow["flow_net"] == pytest.approx((left - right) / (t1 + 1e-9))
    s = m.samples(area)
    assert s.dtype == throng.SAMPLE_DTYPE and len(s) == 91
    assert s["inside"][0] == 60 and s["density"][0] == pytest.approx(60 / (90 * 10))
    assert m.area_size(area) == pytest.approx(900.0)
    means = m.means(area)
    assert means["samples"] == 91 and means["density"] == pytest.approx(s["density"].mean())


def test_measure_bad_arguments():
    m = throng.Measure()
    with pytest.raises(throng.InvalidArgument, match="a: got"):
        m.add_line((float("nan"), 0.0), (1.0, 0.0))
    with pytest.raises(throng.InvalidArgument):
        m.add_line((1.0, 1.0), (1.0, 1.0))  # zero length
    with pytest.raises(throng.InvalidArgument):
        m.add_area([(0, 0), (1, 1), (1, 0), (0, 1)])  # edges cross
    with pytest.raises(throng.InvalidArgument, match=r"points\[1\]"):
        m.add_area([(0, 0), (float("inf"), 0), (1, 1)])
    with pytest.raises(throng.InvalidArgument, match="shape"):
        m.add_area([0, 1, 2])
    with pytest.raises(throng.InvalidArgument, match="hi"):
        m.add_rect((0, 0), (1, float("nan")))
    with pytest.raises(throng.NotFound, match="no line 0"):
        m.crossings(0)
    with pytest.raises(throng.NotFound, match="no area 3"):
        m.samples(3)
    line = m.add_line((0, 0), (1, 0))
    with pytest.raises(throng.InvalidArgument):
        m.flow(line, 1.0, 1.0)
    with pytest.raises(throng.InvalidArgument):
        m.flow(line, float("nan"), 1.0)
    with pytest.raises(throng.InvalidArgument, match="cutoff_radius"):
        throng.Measure(cutoff_radius=float("nan"))
    with pytest.raises(throng.InvalidArgument, match="cutoff_segments"):
        throng.Measure(cutoff_segments=65)
    m.feed(small_world(3))
    with pytest.raises(throng.InvalidArgument):
        m.add_line((0, 5), (1, 5))  # only before the first feed


def test_measure_polygon_window_and_bounds():
    world = small_world(30, seed=4)  # agents at y = -20, x from -40 to 40
    m = throng.Measure(cutoff_radius=1.0, cutoff_segments=4, bounds=((-50, -50), (50, 50)))
    tri = m.add_area([(-41.5, -21.0), (0.0, -21.0), (0.0, 20.5)])  # right angle at (0, -21)
    assert tri == 0 and m.area_size(tri) == pytest.approx(0.5 * 41.5 * 41.5)
    m.feed(world)
    world.step(30)
    m.feed(world)
    s = m.samples(tri)
    # On y = -20 the triangle runs from its hypotenuse (y = x + 20.5: x = -40.5) to the leg x = 0:
    # the agents with x < 0 at the start (no agent sits on x = 0).
    xs = np.linspace(-40.0, 40.0, 30)
    assert s["inside"][0] == (xs < 0.0).sum() == 15
    assert s["time"].tolist() == pytest.approx([0.0, 30 / 60])
    first = m.means(tri, 0.0, 0.0)
    assert first["samples"] == 1 and first["density"] == pytest.approx(s["density"][0])
    assert m.means(tri, 10.0, 20.0)["samples"] == 0
    with pytest.raises(throng.InvalidArgument):
        m.means(tri, float("nan"), 1.0)
    with pytest.raises(throng.InvalidArgument, match=r"bounds\[1\]"):
        throng.Measure(bounds=((-1, -1), (1, float("nan"))))
    with pytest.raises(throng.InvalidArgument, match=r"bounds\[0\]: expected a pair"):
        throng.Measure(bounds=((-1, -1, 0), (1, 1)))


def test_writer_notice_and_explicit_interrupt(tmp_path):
    world = small_world(4)
    path = tmp_path / "a.thr"
    path.write_text("old")
    os.link(path, tmp_path / "b.thr")
    w = world.export(path)
    assert "other hard link keeps the old contents" in w.notice
    w.write()
    w.close(interrupted=True)
    assert w.notice is None
    assert (tmp_path / "b.thr").read_text() == "old"
    stream = throng.read_stream(path)
    assert stream.complete and stream.interrupted
    assert throng.FORMATS == ("auto", "bin", "csv", "ped", "sqlite")
    assert "Writer" in repr(w) and "closed" in repr(w)


def test_writer_dropped_without_close_leaves_nothing(tmp_path):
    import gc

    world = small_world(4)
    w = world.export(tmp_path / "gone.thr")
    w.write()
    assert len(list(tmp_path.iterdir())) == 1  # the temporary
    del w
    gc.collect()
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# The live feed


def test_feed_publish_and_read():
    name = f"throng-pytest-{os.getpid()}"
    world = small_world(6)
    with throng.Feed(world, name, fields=["position", "group"], every=2) as feed:
        with throng.FeedReader(name) as reader:
            assert reader.info.fields == ("x", "y", "group") and reader.info.every == 2
            assert reader.info.agents == 1024  # the default capacity: twice 6, at least 1024
            assert reader.read() is None and reader.writer_state == "alive" and reader.writer_pid == os.getpid()
            assert feed.publish() is True
            frame = reader.read()
            order = np.argsort(world.ids)
            np.testing.assert_array_equal(frame.ids, np.array(world.ids)[order])
            np.testing.assert_array_equal(frame.positions, np.array(world.positions)[order])
            np.testing.assert_array_equal(frame.group, np.array(world.groups)[order])
            assert frame.vx is None and reader.read() is None  # nothing newer
            world.step()
            assert feed.publish() is False  # every 2: not due
            world.step()
            assert feed.publish() is True and feed.frames == 2
            feed.heartbeat()
            assert reader.read().step == 2
            with pytest.raises(throng.FileError, match="already exists"):
                throng.Feed(world, name)
            feed.close()
            assert reader.finished and reader.writer_state == "finished"
        with pytest.raises(ValueError, match="closed"):
            feed.publish()
    with pytest.raises(throng.NotFound):
        throng.FeedReader(name)  # the name went with the feed


def test_feed_capacity_and_bad_arguments():
    name = f"throng-pytest-cap-{os.getpid()}"
    world = small_world(3)
    with pytest.raises(throng.InvalidArgument, match="capacity 2"):
        throng.Feed(world, name, capacity=2)
    with throng.Feed(world, name, capacity=3) as feed:
        assert feed.publish()
        world.spawn([(5.0, 5.0)])
        world.step()
        with pytest.raises(throng.CapacityError, match="capacity of 3"):
            feed.publish()
        assert feed.frames == 1
    with pytest.raises(throng.InvalidArgument, match="name"):
        throng.Feed(world, "a/b")
    with pytest.raises(throng.InvalidArgument, match="fields"):
        throng.Feed(world, name, fields="speed")
    with pytest.raises(throng.InvalidArgument, match="every: got 0"):
        throng.Feed(world, name, every=0)
    with pytest.raises(throng.InvalidArgument, match="capacity: got -1"):
        throng.Feed(world, name, capacity=-1)
    with pytest.raises(TypeError, match="FeedReader: name"):
        throng.FeedReader(3)
    with pytest.raises(throng.InvalidArgument, match="FeedReader: name: .* holds a NUL"):
        throng.FeedReader(name + "\0junk")
    with pytest.raises(throng.InvalidArgument, match="Feed: name: .* holds a NUL"):
        throng.Feed(world, name + "\0junk")


def test_outputs_refuse_a_world_being_stepped(tmp_path):
    import threading

    world = small_world(3000, threads=1)
    writer = world.export(tmp_path / "busy.thr")
    metrics = world.metrics()
    measure = throng.Measure()
    thread = threading.Thread(target=world.step, args=(400,))
    refused = {}
    thread.start()
    while thread.is_alive() and len(refused) < 4:
        for name, call in (("write", writer.write), ("observe", metrics.observe), ("feed", lambda: measure.feed(world)),
                           ("checkpoint", world.checkpoint_bytes)):
            try:
                call()
            except RuntimeError as e:
                assert "another thread" in str(e)
                refused[name] = True
            except throng.InvalidArgument:
                pass  # metrics: the step ended meanwhile and observing again skips steps
    thread.join()
    assert len(refused) == 4
    writer.discard()


# ---------------------------------------------------------------------------
# What a scene measures of itself, against `throng run`'s summary


def cli_summary(cli, *args):
    """`throng run ARGS`'s summary as {key: text}."""
    out = subprocess.run([cli, "run", *args], check=True, capture_output=True, text=True).stdout
    pairs = (line.split(":", 1) for line in out.splitlines() if ":" in line and not line.startswith(" "))
    return {k.strip(): v.strip() for k, v in pairs}


@pytest.mark.parametrize("name,agents,steps", [("circle", 60, 2400), ("herd", 100, 600), ("armies", 400, 300)])
def test_scene_metrics_and_outcomes_equal_throng_run(cli, name, agents, steps):
    scene = throng.Scene.builtin(name, agents=agents, seed=3)
    metrics = scene.world.metrics(goal_radius=throng.scene_goal_radius(scene))
    for _ in range(steps):
        scene.step()
        metrics.observe()
    summary = cli_summary(cli, name, "--agents", str(agents), "--seed", "3", "--steps", str(steps))
    assert int(summary["hash"], 16) == scene.hash()
    result = metrics.result()
    for key in ("goals", "reached", "wall_crossings", "wall_penetrations", "obstacle_penetrations", "overlap_capped"):
        assert result[key] == int(summary[key]), key
    for key in ("overlaps_per_agent_step", "deepest_overlap", "jitter", "contacts_per_agent_step",
                "mean_time_to_goal", "path_length_ratio"):
        expected = 0.0 if summary[key] == "none" else float(summary[key])
        assert result[key] == pytest.approx(expected, rel=1e-6, abs=1e-12), key
    # Each case has figures that are not zero: circle an arrival, herd overlaps, armies its outcomes.
    assert {"circle": result["reached"] > 0 and result["path_length_ratio"] > 1.0,
            "herd": result["overlaps_per_agent_step"] > 0.0, "armies": result["jitter"] > 0.0}[name]
    outcomes = throng.scene_outcomes(scene)
    assert (name == "armies") == bool(outcomes)
    for key, value in outcomes.items():
        assert value == pytest.approx(float(summary[key]), rel=1e-6), key


def test_scene_measure_equals_throng_run(tmp_path, cli):
    throng.Scene.builtin("crossing", agents=200, seed=1).save(tmp_path / "c.yaml")
    with open(tmp_path / "c.yaml", "a") as f:
        f.write("measurements:\n  lines:\n    - [[-25, -10], [-25, 10]]\n"
                "  areas:\n    - [[-30, -5], [-20, -5], [-20, 5], [-30, 5]]\n")
    scene = throng.Scene.load(str(tmp_path / "c.yaml"))
    assert throng.scene_goal_radius(scene) == pytest.approx(0.5)
    m = throng.scene_measure(scene)
    assert (m.line_count, m.area_count) == (1, 1) and m.area_size(0) == pytest.approx(100.0)
    m.feed(scene)
    for _ in range(600):
        scene.step()
        m.feed(scene)
    summary = cli_summary(cli, str(tmp_path / "c.yaml"), "--steps", "600")
    c = m.crossings(0)
    assert (c["direction"] == 1).sum() == int(summary["line0_left"])
    assert (c["direction"] == -1).sum() == int(summary["line0_right"]) > 0
    means = m.means(0)
    for key in ("density", "mean_speed", "voronoi_density", "voronoi_speed"):
        assert means[key] == pytest.approx(float(summary[f"area0_{key}"]), rel=1e-6), key
    assert throng.scene_measure(throng.Scene.builtin("crossing", agents=50)) is None
    with pytest.raises(TypeError, match="expected a throng.Scene"):
        throng.scene_outcomes(scene.world)


def test_stream_from_bytes_of_throng_run_stdout(cli, tmp_path):
    out = subprocess.run([cli, "run", "crossing", "--agents", "100", "--seed", "2", "--steps", "30", "--out", "-",
                          "--fields", "all", "--every", "10", "--quiet"], check=True, capture_output=True).stdout
    stream = throng.read_stream(out)
    assert stream.complete and [f.step for f in stream.frames] == [0, 10, 20, 30]
    assert stream.info.scenario == "crossing" and stream.info.agents == 100
    scene, _ = scene_to_file(tmp_path / "py.thr", "crossing", 100, 2, 30, fields="all", every=10)
    from_file = throng.read_stream(tmp_path / "py.thr")
    np.testing.assert_array_equal(from_file.frames[-1].positions, stream.frames[-1].positions)
    order = np.argsort(scene.world.ids)
    np.testing.assert_array_equal(stream.frames[-1].positions, np.array(scene.world.positions)[order])
    reader = throng.StreamReader.from_bytes(bytearray(out), verify=False)
    assert reader.path == "<bytes>" and reader.read().index == 0
    reader.close()
    with pytest.raises(throng.CorruptData, match="byte offset"):
        throng.read_stream(memoryview(out)[:-30])
    with pytest.raises(TypeError, match="data: expected bytes"):
        throng.StreamReader.from_bytes("text")


def test_measure_frames_read_back_equals_throng_measure(cli, tmp_path):
    import json

    run_cli(cli, tmp_path, "bottleneck", "--agents", "150", "--seed", "2", "--steps", "300", "--out", "b.thr",
            "--fields", "position,velocity")
    out = subprocess.run([cli, "measure", "b.thr", "--line", "0,-5,0,5", "--area", "-3,-3,3,3", "--format", "json"],
                         check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    expected = json.loads(out)
    stream = throng.read_stream(tmp_path / "b.thr")
    info = stream.info
    bounds = None if info.bounds_mode == "open" else (info.bounds_min, info.bounds_max)
    m = throng.Measure(bounds=bounds, wrap=info.bounds_mode == "wrap")
    line = m.add_line((0, -5), (0, 5))
    area = m.add_rect((-3, -3), (3, 3))
    for frame in stream.frames:
        m.feed_frame(frame)
    assert m.states == expected["states"] == 301
    c = m.crossings(line)
    want = expected["lines"][0]["crossings"]
    assert len(want) > 5
    assert c["id"].tolist() == [x["id"] for x in want]
    assert c["direction"].tolist() == [x["direction"] for x in want]
    np.testing.assert_allclose(c["time"], [x["time"] for x in want], rtol=1e-6)
    means = m.means(area)
    for key in ("density", "mean_speed", "voronoi_density", "voronoi_speed"):
        assert means[key] == pytest.approx(expected["areas"][0][key], rel=1e-6), key


def test_measure_feed_state_arrays():
    m = throng.Measure()
    line = m.add_line((0.0, -1.0), (0.0, 1.0))  # left of a -> b is -x
    m.feed_state(0.0, [3, 5], [(1.0, 0.0), (-1.0, 0.5)])
    m.feed_state(0.5, [5, 3], [(1.0, 0.5), (-1.0, 0.0)])  # 3 goes left across x = 0 at t = 0.25, 5 right
    c = m.crossings(line)
    assert c["id"].tolist() == [3, 5] and c["direction"].tolist() == [1, -1]
    np.testing.assert_allclose(c["time"], [0.25, 0.25])
    np.testing.assert_allclose(c["x"], [0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(c["y"], [0.0, 0.5])
    with pytest.raises(throng.InvalidArgument):
        m.feed_state(0.5, [3], [(0.0, 0.0)])  # not after the previous state
    with pytest.raises(throng.InvalidArgument):
        m.feed_state(1.0, [3, 3], [(0.0, 0.0), (1.0, 1.0)])  # an id twice
    with pytest.raises(throng.InvalidArgument):
        m.feed_state(1.0, [3], [(float("nan"), 0.0)])
    with pytest.raises(throng.InvalidArgument, match="velocities: expected shape"):
        m.feed_state(1.0, [3], [(0.0, 0.0)], velocities=[(1.0, 0.0), (0.0, 0.0)])
    with pytest.raises(TypeError, match="ids: expected N whole numbers"):
        m.feed_state(1.0, [0.5], [(0.0, 0.0)])
    with pytest.raises(TypeError, match="time: expected a number"):
        m.feed_state("1", [3], [(0.0, 0.0)])
    assert m.states == 2


def test_close_takes_only_the_modules_own_handles():
    # Another module's capsule holds no handle: taking it for one wrote
    # through its pointer (a crash with datetime's).
    import datetime

    for other in (datetime.datetime_CAPI, 5, None):
        with pytest.raises(TypeError, match="_close: expected a handle of throng._throng"):
            throng._throng._close(other)
    m = throng.Measure()
    throng._throng._close(m._handle)
    throng._throng._close(m._handle)  # a second close does nothing
    with pytest.raises(ValueError, match="closed"):
        m.line_count


def test_counts_past_their_range_are_refused_not_cut(tmp_path):
    # The C layer read counts with the "k" format, which keeps the low bits
    # of any int: every=2**64 + 3 became 3.
    world = small_world(3)
    name = f"throng-pytest-trunc-{os.getpid()}"
    with pytest.raises(throng.InvalidArgument, match="Feed: every: got 18446744073709551619"):
        throng.Feed(world, name, every=2**64 + 3)
    with pytest.raises(throng.InvalidArgument, match="Feed: capacity: got 4294967296"):
        throng.Feed(world, name, capacity=2**32)
    with pytest.raises(throng.InvalidArgument, match="Measure: cutoff_segments: got 18446744073709551619"):
        throng.Measure(cutoff_segments=2**64 + 3)
    data = throng.scene_checkpoint_bytes(throng.Scene.builtin("crossing", agents=50, seed=1))
    with pytest.raises(throng.InvalidArgument, match="load_scene_checkpoint: agents: got 18446744073709551666"):
        throng.load_scene_checkpoint(data, agents=2**64 + 50)
    for bad in (-1, 2**64):
        with pytest.raises(throng.InvalidArgument, match=f"load_scene_checkpoint: seed: got {bad}"):
            throng.load_scene_checkpoint(data, seed=bad)
    for bad in ("1", 1.0, True):
        with pytest.raises(TypeError, match="load_scene_checkpoint: seed: expected a whole number"):
            throng.load_scene_checkpoint(data, seed=bad)
    assert throng.load_scene_checkpoint(data, agents=50, seed=1).hash() == throng.load_scene_checkpoint(data).hash()
    # The C layer under the package checks the same, naming the argument.
    from throng import _throng

    with pytest.raises(throng.InvalidArgument, match="Feed: every: got 18446744073709551619, expected 1 to 4294967295"):
        _throng._feed_create(world, name, None, 2**64 + 3, 0, None, True)
    with pytest.raises(throng.InvalidArgument, match="Feed: capacity: got -1"):
        _throng._feed_create(world, name, None, 1, -1, None, True)
    with pytest.raises(throng.InvalidArgument, match="Writer: every: got 4294967297"):
        _throng._exporter_create(world, str(tmp_path / "a.thr"), "auto", None, 2**32 + 1, None)
    with pytest.raises(throng.InvalidArgument, match="Measure: cutoff_segments: got 65, expected 0 to 64"):
        _throng._measure_create(0.0, 65, (0.0, 0.0), (0.0, 0.0), False)
    with pytest.raises(TypeError, match="Measure: cutoff_segments: expected a whole number, got float"):
        _throng._measure_create(0.0, 3.0, (0.0, 0.0), (0.0, 0.0), False)
    with pytest.raises(throng.InvalidArgument, match="load_scene_checkpoint: agents: got 18446744073709551666"):
        _throng._scene_load_checkpoint(throng.Scene, data, True, None, 2**64 + 50, None)
    with pytest.raises(TypeError, match="load_scene_checkpoint: seed: expected a whole number, got str"):
        _throng._scene_load_checkpoint(throng.Scene, data, True, None, 0, "x")
    assert list(tmp_path.iterdir()) == []


def test_messages_name_the_function_and_the_argument(tmp_path):
    world = small_world(3)
    name = f"throng-pytest-msg-{os.getpid()}"
    with pytest.raises(TypeError, match="^Feed: world: expected a throng.World or a throng.Scene, got int$"):
        throng.Feed(42, name)
    with pytest.raises(TypeError, match="^Measure.feed: world: expected a throng.World or a throng.Scene, got int$"):
        throng.Measure().feed(42)
    with pytest.raises(TypeError, match="^Writer: scenario: expected a str or None, got int$"):
        throng.Writer(world, tmp_path / "a.thr", scenario=5)
    with pytest.raises(TypeError, match="^Feed: scenario: expected a str or None, got int$"):
        throng.Feed(world, name, scenario=5)
    data = throng.scene_checkpoint_bytes(throng.Scene.builtin("crossing", agents=20, seed=1))
    with pytest.raises(TypeError, match="^load_scene_checkpoint: scene: expected a str or None, got int$"):
        throng.load_scene_checkpoint(data, scene=5)
    with pytest.raises(TypeError, match=r"^Measure: bounds: expected \(\(xmin, ymin\), \(xmax, ymax\)\) or None, got 5$"):
        throng.Measure(bounds=5)
    m = throng.Measure()
    line = m.add_line((0.0, 0.0), (1.0, 0.0))
    area = m.add_rect((0.0, 0.0), (1.0, 1.0))
    with pytest.raises(TypeError, match="^Measure.flow: t0: expected a number, got str$"):
        m.flow(line, "1.5", 2.0)  # float("1.5") took it
    with pytest.raises(TypeError, match="^Measure.flow: t1: expected a number, got str$"):
        m.flow(line, 0.0, "x")
    with pytest.raises(TypeError, match="^Measure.means: t0: expected a number, got str$"):
        m.means(area, "0")
    assert m.flow(line, 0, 1.0)["left"] == 0 and m.means(area, 0, 1)["samples"] == 0
    with pytest.raises(TypeError, match="^World.from_checkpoint_bytes: data: expected bytes, got str$"):
        throng.World.from_checkpoint_bytes("abc")
    assert throng.World.from_checkpoint_bytes(memoryview(world.checkpoint_bytes())).hash() == world.hash()
    assert list(tmp_path.iterdir()) == []


def test_readers_refuse_use_once_closed(tmp_path):
    world = small_world(6)
    with world.export(tmp_path / "r.thr") as writer:
        writer.write()
    reader = throng.StreamReader(tmp_path / "r.thr")
    with reader:
        assert reader.read() is not None
    for call in (reader.read, lambda: reader.complete, lambda: reader.offset):
        with pytest.raises(ValueError, match=r"^StreamReader\.\w+: it is closed$"):
            call()
    reader.close()  # a second close does nothing
    name = f"throng-pytest-closed-{os.getpid()}"
    with throng.Feed(world, name) as feed:
        feed.publish()
        feed_reader = throng.FeedReader(name)
        feed_reader.close()
        for call in (feed_reader.read, lambda: feed_reader.finished, lambda: feed_reader.writer_pid):
            with pytest.raises(ValueError, match=r"^FeedReader\.\w+: it is closed$"):
                call()
        feed_reader.close()
