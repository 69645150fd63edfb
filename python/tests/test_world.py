# SPDX-License-Identifier: MIT
"""throng.World: making, archetypes, spawning, stepping, figures, errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import throng
from conftest import small_world


def test_defaults_are_the_library_s():
    world = throng.World()
    d = world.definition
    assert d["bounds_min"] == (-50.0, -50.0) and d["bounds_max"] == (50.0, 50.0)
    assert d["bounds_mode"] == "contain" and d["engine"] == "simd" and d["capacity"] == 1024
    assert d["seed"] == 1 and abs(d["dt"] - 1 / 60) < 1e-7
    assert len(world) == 0 and world.agent_count == 0 and world.id_end == 0 and world.archetype_count == 0
    assert repr(world) == "<throng.World: 0 agents, step 0>"


def test_keyword_arguments_reach_the_def():
    world = throng.World(bounds_min=(-10, -5), bounds_max=(10, 5), bounds_mode="wrap", dt=0.05, seed=2**64 - 1,
                         cell_size=2.0, capacity=7, engine="scalar", record_forces=True, threads=1,
                         threads_policy="fixed")
    d = world.definition
    assert d["bounds_min"] == (-10.0, -5.0) and d["bounds_max"] == (10.0, 5.0)
    assert d["bounds_mode"] == "wrap" and d["engine"] == "scalar" and d["threads_policy"] == "fixed"
    assert d["seed"] == 2**64 - 1 and d["cell_size"] == 2.0 and d["capacity"] == 7 and d["record_forces"]
    assert d["threads"] == 1 and abs(d["dt"] - 0.05) < 1e-7


@pytest.mark.parametrize("kwargs, error, words", [
    ({"dt": 5.0}, throng.InvalidArgument, "dt"),
    ({"dt": float("nan")}, throng.InvalidArgument, "dt"),
    ({"dt": "fast"}, TypeError, "dt"),
    ({"bounds_min": (60, 0)}, throng.InvalidArgument, "bounds"),
    ({"bounds_min": (1, 2, 3)}, TypeError, "bounds_min"),
    ({"bounds_max": "wide"}, TypeError, "bounds_max"),
    ({"bounds_mode": "torus"}, throng.InvalidArgument, "bounds_mode"),
    ({"engine": "gpu"}, throng.InvalidArgument, "engine"),
    ({"threads_policy": 1}, TypeError, "threads_policy"),
    ({"seed": -1}, throng.InvalidArgument, "seed"),
    ({"seed": 2**64}, throng.InvalidArgument, "seed"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"capacity": 0}, throng.InvalidArgument, "capacity"),
    ({"capacity": 2**32}, throng.InvalidArgument, "capacity"),
    ({"threads": 100000}, throng.InvalidArgument, "threads"),
    ({"cell_size": -1.0}, throng.InvalidArgument, "cell_size"),
    ({"record_forces": "yes"}, TypeError, "record_forces"),
])
def test_bad_arguments_name_themselves(kwargs, error, words):
    with pytest.raises(error) as info:
        throng.World(**kwargs)
    assert words in str(info.value)
    if error is throng.InvalidArgument:
        assert isinstance(info.value, ValueError) and isinstance(info.value, throng.Error)


def test_unknown_and_positional_arguments():
    with pytest.raises(TypeError, match="bounds"):
        throng.World(bounds=(1, 2))
    with pytest.raises(TypeError):
        throng.World(0.02)


def test_archetypes():
    world = throng.World()
    assert world.add_archetype(throng.Controller([throng.Slot("seek")])) == 0
    pedestrian = throng.Controller(
        [throng.Slot("wall_avoidance", weight=3.0, priority=True, params={"look_ahead": 1.5}),
         throng.Slot.make("anticipation", priority=True, neighbor_radius=4.0, side_bias=1.0, max_neighbors=1024),
         throng.Slot.make("arrive", slow_radius=2.0)],
        mode="relaxation", relaxation_time=0.5,
        contact=throng.Contact(slip=0.5, noise=0.15))
    assert world.add_archetype(pedestrian) == 1
    hunter = throng.Controller([throng.Slot.make("pursuit", target="agent")],
                               target_rule=throng.TargetRule(group=1, sight_radius=20.0, every=10),
                               combat=throng.Combat(enabled=True, health=10.0, attack="melee", reach=0.5,
                                                    damage=1.0, cooldown=1.0, accuracy=0.5))
    assert world.add_archetype(hunter.to_dict()) == 2
    assert world.archetype_count == 3


@pytest.mark.parametrize("controller, error, words", [
    (throng.Controller([throng.Slot("teleport")]), throng.InvalidArgument, "controller.slots[0]: kind"),
    (throng.Controller([throng.Slot("seek"), throng.Slot.make("arrive", slow_radius=-1.0)]), throng.InvalidArgument,
     "slow_radius"),
    (throng.Controller([throng.Slot.make("arrive", slowradius=1.0)]), TypeError, "controller.slots[0].params"),
    (throng.Controller([throng.Slot.make("seek", target="moon")]), throng.InvalidArgument, "target"),
    (throng.Controller([throng.Slot("seek", weight="heavy")]), TypeError, "weight"),
    (throng.Controller([throng.Slot("seek")] * 17), throng.InvalidArgument, "16 slots"),
    (throng.Controller(mode="average"), throng.InvalidArgument, "mode"),
    (throng.Controller(contact=throng.Contact(stiffness=2.0)), throng.InvalidArgument, "stiffness"),
    (throng.Controller(target_rule=throng.TargetRule(group=1, sight_radius=0.0, every=1)), throng.InvalidArgument,
     "sight_radius"),
    ({"mode": "weighted", "colour": "red"}, TypeError, "colour"),
])
def test_bad_controllers_name_the_field(controller, error, words):
    world = throng.World()
    with pytest.raises(error) as info:
        world.add_archetype(controller)
    assert words in str(info.value)
    assert world.archetype_count == 0


def test_dataclass_defaults_are_the_library_s():
    defaults = throng._throng._defaults()
    assert dataclasses.asdict(throng.Contact()) == defaults["contact"]
    assert dataclasses.asdict(throng.Combat()) == defaults["combat"]
    assert {**dataclasses.asdict(throng.TargetRule()), "enabled": False} == defaults["target_rule"]
    assert throng.default_params() == defaults["params"]
    assert throng.Slot("seek").weight == 1.0 and throng.Slot("seek").enabled and not throng.Slot("seek").priority
    assert throng.Controller().relaxation_time == defaults["relaxation_time"]


def test_spawn_fills_every_field():
    world = throng.World()
    a = world.add_archetype(throng.Controller([throng.Slot("seek")]))
    b = world.add_archetype(throng.Controller([throng.Slot("arrive")]))
    ids = world.spawn([[1, 2], [3, 4]], velocities=[[0.5, 0], [0, -0.5]], headings=[[0, 1], [1, 0]],
                      targets=[[9, 9], [-9, -9]], max_speed=[2.0, 3.0], max_force=5.0, radius=[0.25, 0.5],
                      archetype=[a, b], group=[7, 8])
    assert ids.dtype == np.uint32 and list(ids) == [0, 1]
    s = world.agent(1)
    assert s["position"] == (3.0, 4.0) and s["velocity"] == (0.0, -0.5) and s["heading"] == (1.0, 0.0)
    assert s["target"] == (-9.0, -9.0) and s["max_speed"] == 3.0 and s["max_force"] == 5.0
    assert s["radius"] == 0.5 and s["archetype"] == b and s["group"] == 8 and s["id"] == 1
    assert world.agent(0)["target_agent"] == throng.NO_AGENT
    more = world.spawn(np.zeros((3, 2)))
    assert list(more) == [2, 3, 4] and len(world) == 5 and world.id_end == 5
    assert world.agent(4)["max_speed"] == pytest.approx(1.3)  # throng_agent_default_def
    assert world.agent(4)["path"] == throng.NO_PATH and world.agent(4)["unit"] == throng.NO_UNIT


def test_spawn_with_target_agents_paths_and_units():
    world = throng.World()
    a = world.add_archetype(throng.Controller([throng.Slot("path_following"), throng.Slot("pursuit")]))
    path = world.add_path([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)])
    unit = world.add_unit(archetype=a)
    ids = world.spawn([[1, 2], [3, 4], [5, 6]], archetype=a, target_agent=[throng.NO_AGENT, 0, 1],
                      path=[path, throng.NO_PATH, path], unit=unit)
    states = [world.agent(int(i)) for i in ids]
    assert [s["target_agent"] for s in states] == [throng.NO_AGENT, 0, 1]
    assert [s["path"] for s in states] == [path, throng.NO_PATH, path]
    assert [s["unit"] for s in states] == [unit] * 3
    world.step()  # a unit counts its members in a step
    assert world.get_unit(unit).count == 3
    for kwargs, error in (({"target_agent": 99}, throng.NotFound), ({"path": 5}, throng.NotFound),
                          ({"unit": 7}, throng.NotFound), ({"unit": -1}, throng.InvalidArgument)):
        with pytest.raises(error, match=next(iter(kwargs))):
            world.spawn([[0, 0]], archetype=a, **kwargs)
    assert len(world) == 3


@pytest.mark.parametrize("kwargs, error, words", [
    ({"positions": [[0, 0, 0]]}, throng.InvalidArgument, "positions"),
    ({"positions": "here"}, TypeError, "positions"),
    ({"positions": [[0, 0]] * 2, "velocities": [[0, 0]] * 3}, throng.InvalidArgument, "velocities"),
    ({"positions": [[0, 0]] * 2, "max_speed": [1.0] * 3}, throng.InvalidArgument, "max_speed"),
    ({"positions": [[0, 0]] * 2, "group": [0.5, 1.5]}, TypeError, "group"),
    ({"positions": [[0, 0]] * 2, "group": [-1, 0]}, throng.InvalidArgument, "group"),
    ({"positions": [[0, 0], [500, 0]]}, throng.InvalidArgument, "position"),
    ({"positions": [[0, 0]], "max_speed": -1.0}, throng.InvalidArgument, "max_speed"),
    ({"positions": [[0, 0]], "archetype": 3}, throng.NotFound, "archetype"),
])
def test_bad_spawns_name_the_field_and_add_nobody(kwargs, error, words):
    world = throng.World()
    world.add_archetype(throng.Controller([throng.Slot("seek")]))
    with pytest.raises(error) as info:
        world.spawn(**kwargs)
    assert words in str(info.value)
    assert len(world) == 0


def test_step_hash_and_stats():
    a, b = small_world(), small_world()
    assert a.hash() == b.hash()
    a.step()
    assert a.steps == 1 and a.hash() != b.hash()
    a.step(59)
    b.step(60)
    assert a.hash() == b.hash() and a.steps == 60
    a.step(0)
    assert a.steps == 60
    stats = a.stats
    assert isinstance(stats, throng.WorldStats) and stats.steps == 60 and stats.agents_added == 100
    assert set(f.name for f in dataclasses.fields(throng.WorldStats)) == set(a._stats)
    with pytest.raises(throng.InvalidArgument, match="n"):
        a.step(-1)
    with pytest.raises(TypeError):
        a.step("many")


def test_engines_and_thread_counts_agree():
    hashes = set()
    for engine, threads in (("scalar", 1), ("simd", 1), ("simd", 2)):
        world = small_world(engine=engine, threads=threads)
        world.step(120)
        hashes.add(world.hash())
    assert len(hashes) == 1


def test_counters():
    world = small_world()
    assert world.counting == "off"
    world.step()
    assert world.counters["total"]["steps"] == 0
    world.counting = "work"
    world.step(3)
    c = world.counters
    assert c["total"]["steps"] == 3 and c["last_step"]["steps"] == 1 and c["total"]["agents"] == 300
    assert c["total"]["slot_lanes"]["arrive"] > 0 and set(c["total"]["stage_ns"]) >= {"pass", "contacts"}
    world.counting = "all"
    assert world.counting == "all" and world.counters["total"]["steps"] == 0
    with pytest.raises(throng.InvalidArgument, match="counting"):
        world.counting = "everything"


def test_agent_and_agents_by_id():
    world = small_world(n=10)
    world.step(10)
    rows = world.agents_by_id([9, 0, 4])
    assert rows.dtype == np.int64 and rows.shape == (3,)
    ids = world.ids
    assert list(ids[rows]) == [9, 0, 4]
    positions = world.positions
    for agent_id, row in zip([9, 0, 4], rows):
        assert tuple(float(v) for v in positions[row]) == pytest.approx(world.agent(agent_id)["position"], abs=0)
    assert world.agents_by_id(np.array([[1, 2], [3, 4]])).shape == (2, 2)
    for bad in ([10], [-1], [2**40]):
        with pytest.raises(throng.NotFound) as info:
            world.agents_by_id(bad)
        assert isinstance(info.value, KeyError) and "no live agent" in str(info.value)
    with pytest.raises(TypeError, match="ids"):
        world.agents_by_id([1.5])
    with pytest.raises(KeyError, match="no live agent with id 10"):
        world.agent(10)
    with pytest.raises(throng.NotFound):
        world.agent(-3)
