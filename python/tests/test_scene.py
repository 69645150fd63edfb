# SPDX-License-Identifier: MIT
"""throng.Scene: built-ins and scenario files, stepped to the same state
hash as `throng run`."""

from __future__ import annotations

import gc
import weakref

import pytest

import throng
from conftest import cli_hash

NAMES = ["herd", "circle", "field", "crossing", "bottleneck", "hallway", "armies", "charge", "flock", "dense",
         "concourse", "evacuation", "solo"]


def test_scenarios_list():
    infos = throng.scenarios()
    assert [s.name for s in infos] == NAMES
    assert all(isinstance(s, throng.ScenarioInfo) and s.description and s.default_agents > 0 for s in infos)


@pytest.mark.parametrize("name", NAMES)
def test_same_hash_as_throng_run(cli, name):
    agents = min(next(s.default_agents for s in throng.scenarios() if s.name == name), 600)
    scene = throng.Scene.builtin(name, agents=agents, seed=7)
    scene.step(40)
    assert scene.name == name and scene.world.steps == 40
    assert scene.hash() == cli_hash(cli, name, "--agents", str(agents), "--seed", "7", "--steps", "40")


def test_same_hash_as_throng_run_longer(cli):
    scene = throng.Scene.builtin("armies", agents=2000, seed=1, threads=1)
    scene.step(300)
    scene.step(300)
    assert scene.hash() == cli_hash(cli, "armies", "--agents", "2000", "--seed", "1", "--steps", "600")


def test_engines_agree():
    a = throng.Scene.builtin("crossing", agents=300, engine="scalar")
    b = throng.Scene.builtin("crossing", agents=300, engine="simd", threads=2, threads_policy="fixed")
    a.step(50)
    b.step(50)
    assert a.hash() == b.hash()


def test_save_then_load_gives_the_same_run(tmp_path, cli):
    scene = throng.Scene.builtin("hallway", agents=200, seed=3)
    path = tmp_path / "hallway.yaml"
    scene.save(path)
    assert path.read_text().startswith(("#", "version", "world", "name")) or "world:" in path.read_text()
    loaded = throng.Scene.load(str(path))
    scene.step(60)
    loaded.step(60)
    assert loaded.hash() == scene.hash()
    assert loaded.hash() == cli_hash(cli, str(path), "--steps", "60")


def test_load_reports_every_problem(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("version: 2\nworld:\n  dt: -1\n  bounds: [0, 0, 1]\n")
    with pytest.raises(throng.InvalidArgument) as info:
        throng.Scene.load(path)
    message = str(info.value)
    assert str(path) in message and ":3:" in message and "dt" in message


def test_load_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(throng.FileError) as info:
        throng.Scene.load(tmp_path / "nowhere.yaml")
    assert isinstance(info.value, OSError) and "nowhere.yaml" in str(info.value)


def test_save_to_a_bad_place_is_an_os_error(tmp_path):
    scene = throng.Scene.builtin("solo")
    with pytest.raises(OSError):
        scene.save(tmp_path / "no" / "such" / "dir" / "x.yaml")


def test_unknown_builtin_and_bad_arguments():
    with pytest.raises(throng.NotFound) as info:
        throng.Scene.builtin("parade")
    assert isinstance(info.value, LookupError) and "crossing" in str(info.value)
    with pytest.raises(throng.InvalidArgument, match="engine"):
        throng.Scene.builtin("herd", engine="quantum")
    with pytest.raises(throng.InvalidArgument, match="agents"):
        throng.Scene.builtin("herd", agents=-5)
    with pytest.raises(TypeError):
        throng.Scene.builtin("herd", colour="red")
    with pytest.raises(TypeError, match="Scene.builtin"):
        throng.Scene()
    with pytest.raises(throng.InvalidArgument, match="n"):
        throng.Scene.builtin("herd").step(-2)


def test_world_keeps_the_scene_alive():
    scene = throng.Scene.builtin("flock", agents=100)
    world = scene.world
    assert isinstance(world, throng.World) and scene.world is world and len(world) == 100
    ref = weakref.ref(scene)
    del scene
    gc.collect()
    assert ref() is not None
    world.step(2)  # the world alone, without the scene's script
    assert world.steps == 2
    del world
    gc.collect()
    assert ref() is None
    scene = throng.Scene.builtin("flock", agents=100)
    assert "flock" in repr(scene)


WARNED = """archetypes:
  a:
    slots:
      - {kind: seek}
groups:
  g:
    count: 2
    archetype: a
    spawn: {shape: line, from: [0, 0], to: [1, 0]}
    path: [[3, 3], [4, 4]]
"""


def test_a_files_warnings_reach_pythons_warnings(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(WARNED)
    with pytest.warns(throng.ScenarioWarning) as caught:
        scene = throng.Scene.load(path)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"{path}:10:11: warning: groups.g.path: archetype a has no path_following slot, so no agent follows this "
        "path (expected a path_following slot in archetype a, or no path)")
    assert caught[0].filename == __file__  # points at the caller of Scene.load
    assert issubclass(throng.ScenarioWarning, UserWarning)
    assert scene.world.agent_count == 2
    # A filter that makes warnings errors fails the load, with the message.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", throng.ScenarioWarning)
        with pytest.raises(throng.ScenarioWarning, match="no path_following slot"):
            throng.Scene.load(path)
    # A file without warnings issues none.
    clean = tmp_path / "c.yaml"
    clean.write_text(WARNED.replace("    path: [[3, 3], [4, 4]]\n", ""))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        throng.Scene.load(clean)


def test_scene_checkpoints_outcomes_measure_and_export(cli, tmp_path):
    scene = throng.Scene.builtin("armies", agents=400, seed=3, threads=1)
    scene.step(30)
    scene.save_checkpoint(tmp_path / "a.ck")
    data = scene.checkpoint_bytes()
    assert (tmp_path / "a.ck").read_bytes() == data
    again = throng.Scene.load_checkpoint(tmp_path / "a.ck", scene="armies", agents=400, seed=3)
    from_bytes = throng.Scene.load_checkpoint(data)
    assert isinstance(again, throng.Scene) and again.hash() == scene.hash() == from_bytes.hash()
    for s in (scene, again, from_bytes):
        s.step(20)
    assert again.hash() == scene.hash() == from_bytes.hash()
    assert scene.hash() == cli_hash(cli, "armies", "--agents", "400", "--seed", "3", "--steps", "50")
    with pytest.raises(throng.InvalidArgument, match="400"):
        throng.Scene.load_checkpoint(data, agents=401)
    out = scene.outcomes
    assert out and all(isinstance(k, str) and isinstance(v, float) for k, v in out.items())
    assert throng.Scene.builtin("solo").outcomes == {}
    assert set(throng.Scene.builtin("flock", agents=50).outcomes) == {"order"}
    assert throng.Scene.builtin("circle", agents=50).goal_radius > 0.0
    assert throng.Scene.builtin("flock", agents=50).goal_radius == 0.0
    assert scene.measure() is None
    with scene.export(tmp_path / "a.thrs") as writer:
        writer.write()
        scene.step()
        writer.write()
    stream = throng.read_stream(tmp_path / "a.thrs")
    assert len(stream.frames) == 2 and stream.info.scenario == "armies"
