# SPDX-License-Identifier: MIT
"""Events, zones, sources and sinks, units, bodies (python/throng/_events.py,
python/src/events.c; docs/PYTHON.md, "Events, zones, sources, units")."""

from __future__ import annotations

import math

import numpy as np
import pytest

import throng

ADDED, REMOVED, ARRIVED, ENTERED, LEFT, WAITED = range(6)


def walker_world(**kwargs) -> tuple:
    """A world of dt 0.1 s with a still archetype (no slots: an agent keeps
    its velocity) and the archetype's id."""
    world = throng.World(dt=0.1, seed=2, **kwargs)
    return world, world.add_archetype(throng.Controller([]))


def walk(world: throng.World, archetype: int, start=(-1.05, 0.0), velocity=(1.0, 0.0)) -> int:
    """One agent at `start` moving at `velocity` (m/s), max_speed 1 m/s;
    its id."""
    return int(world.spawn([start], velocities=[velocity], max_speed=1.0, archetype=archetype)[0])


# ------------------------------------------------------------------ events

def test_event_kinds_name_the_kind_field():
    assert throng.event_kinds() == ("added", "removed", "arrived", "entered", "left", "waited")
    assert [throng.event_kind(n) for n in throng.event_kinds()] == list(range(6))
    with pytest.raises(throng.InvalidArgument, match="throng.event_kind: name: unknown event kind 'died'.*added"):
        throng.event_kind("died")


def test_event_dtype_is_the_c_layout():
    d = throng.EVENT_DTYPE
    assert d.names == ("step", "kind", "agent", "zone", "source", "other")
    assert d.itemsize == 32 and d.fields["step"][1] == 0 and d.fields["kind"][1] == 8
    assert throng.BODY_DTYPE.itemsize == 56 and throng.BODY_DTYPE.fields["step"][1] == 48


def test_spawn_lists_added_events_then_a_step_drops_them_after_one_more():
    world, a = walker_world()
    ids = world.spawn([(0.0, 0.0), (1.0, 0.0)], archetype=a)
    e = world.events()
    assert e.dtype == throng.EVENT_DTYPE
    assert e["kind"].tolist() == [ADDED, ADDED]
    assert e["agent"].tolist() == ids.tolist()
    assert e["step"].tolist() == [0, 0]
    assert (e["zone"] == throng.NO_ZONE).all() and (e["source"] == throng.NO_SOURCE).all()
    assert (e["other"] == throng.NO_AGENT).all()
    world.step()  # the calls before the last step are still listed
    assert world.events()["agent"].tolist() == ids.tolist()
    world.step()
    assert len(world.events()) == 0
    # A copy: writable, and it outlives the next step.
    e[0]["agent"] = 77
    assert e["agent"][0] == 77


def test_arrival_radius_lists_arrivals():
    world, a = walker_world()
    # At x = -1.05 moving +x at 1 m/s toward its target (0, 0): within 0.5 m
    # when x >= -0.5, i.e. after step 6 (x = -0.45).
    world.spawn([(-1.05, 0.0)], velocities=[(1.0, 0.0)], max_speed=1.0, archetype=a, targets=(0.0, 0.0))
    world.set_arrival_radius(0.5)
    seen = []
    for n in range(1, 10):
        world.step()
        e = world.events()
        seen += [(int(s), n) for s, k in zip(e["step"], e["kind"]) if k == ARRIVED]
    assert seen == [(6, 6)]
    world.set_arrival_radius(0.0)  # 0: no arrivals listed (the default)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0, 0.5e-6, 2e6])
def test_arrival_radius_refuses_bad_values(bad):
    world, _ = walker_world()
    with pytest.raises(throng.InvalidArgument, match="radius"):
        world.set_arrival_radius(bad)
    with pytest.raises(TypeError, match="World.set_arrival_radius: radius: expected a number"):
        world.set_arrival_radius("far")


# ------------------------------------------------------------------- zones

def test_an_agent_crossing_a_box_enters_and_leaves_at_the_steps_worked_by_hand():
    # x after step n is -1.05 + 0.1 n; the box spans x in [0, 2]: inside
    # first after step 11 (x = 0.05), outside again after step 31 (x = 2.05).
    world, a = walker_world(bounds_mode="open")
    zone = world.add_zone("box", min=(0.0, -1.0), max=(2.0, 1.0), name="hall")
    other = world.add_zone("circle", center=(0.0, 30.0), radius=1.0)
    walker = walk(world, a)
    bystander = walk(world, a, start=(-1.05, 5.0))  # passes above the box
    log = []
    for n in range(1, 36):
        world.step()
        e = world.events()
        log += [(n, int(r["kind"]), int(r["agent"]), int(r["zone"]), int(r["step"])) for r in e
                if r["kind"] in (ENTERED, LEFT)]
    assert log == [(11, ENTERED, walker, zone, 11), (31, LEFT, walker, zone, 31)]
    assert bystander != walker and other == 1


def test_zones_read_back():
    world, _ = walker_world()
    assert world.zone_count == 0
    c = world.add_zone(center=(1.0, 2.0), radius=3.0, name="ring")
    b = world.add_zone("box", min=(-1.0, -2.0), max=(3.0, 4.0), sink=True)
    tri = [(0.0, 0.0), (4.0, 0.0), (0.0, 3.0)]
    p = world.add_zone("polygon", points=np.array(tri), name="tri")
    assert (c, b, p) == (0, 1, 2) and world.zone_count == 3
    z = world.get_zone(c)
    assert (z.id, z.shape, z.center, z.radius, z.name, z.sink, z.points) == (0, "circle", (1.0, 2.0), 3.0, "ring",
                                                                             False, None)
    z = world.get_zone(b)
    assert (z.shape, z.min, z.max, z.sink, z.name) == ("box", (-1.0, -2.0), (3.0, 4.0), True, "")
    z = world.get_zone(p)
    assert z.shape == "polygon" and z.points.dtype == np.float32 and z.points.tolist() == [list(p) for p in tri]
    assert world.find_zone("tri") == 2 and world.find_zone("ring") == 0


def test_zone_bad_arguments():
    world, _ = walker_world()
    world.add_zone(name="a")
    with pytest.raises(throng.NotFound, match=r"World.get_zone: id: no zone 1 \(the world has 1\)"):
        world.get_zone(1)
    with pytest.raises(throng.NotFound, match="World.get_zone: id: no zone -1"):
        world.get_zone(-1)
    with pytest.raises(TypeError, match="World.get_zone: id"):
        world.get_zone("a")
    with pytest.raises(throng.NotFound, match="World.find_zone: name: no zone called 'b'"):
        world.find_zone("b")
    with pytest.raises(throng.InvalidArgument, match=r"World.find_zone: name: 'a\\x00b' holds a NUL"):
        world.find_zone("a\0b")  # not "a": the C text would end at the NUL
    with pytest.raises(throng.InvalidArgument, match="shape: unknown name 'square'.*circle, box, polygon"):
        world.add_zone("square")
    with pytest.raises(throng.InvalidArgument, match="radius"):
        world.add_zone(radius=math.nan)
    with pytest.raises(throng.InvalidArgument, match=r"center"):
        world.add_zone(center=(math.inf, 0.0))
    with pytest.raises(throng.InvalidArgument, match="max: must be at least min"):
        world.add_zone("box", min=(1.0, 1.0), max=(0.0, 2.0))
    with pytest.raises(throng.InvalidArgument, match="points: a polygon needs 3"):
        world.add_zone("polygon", points=[(0.0, 0.0), (1.0, 0.0)])
    with pytest.raises(throng.InvalidArgument, match=r"points: expected shape \(N, 2\)"):
        world.add_zone("polygon", points=[0.0, 1.0, 2.0])
    with pytest.raises(throng.InvalidArgument, match="name: zone 0 is already called \"a\""):
        world.add_zone(name="a")
    with pytest.raises(throng.InvalidArgument, match="World.add_zone: name: .* longer than 31"):
        world.add_zone(name="x" * 32)
    with pytest.raises(TypeError, match="World.add_zone: radius: expected a number"):
        world.add_zone(radius="big")
    assert world.zone_count == 1  # nothing was added by the failures


def test_a_sink_removes_the_agent_that_enters_it():
    world, a = walker_world(bounds_mode="open")
    sink = world.add_zone("box", min=(0.0, -1.0), max=(2.0, 1.0), sink=True)
    walker = walk(world, a)
    stays = walk(world, a, start=(-1.05, 5.0))
    world.step(10)
    assert world.agent_count == 2
    world.step()  # step 11: it enters, and leaves the world at the step's end
    e = world.events()
    assert [(int(r["kind"]), int(r["agent"]), int(r["zone"]), int(r["step"])) for r in e] == [
        (ENTERED, walker, sink, 11), (REMOVED, walker, sink, 11)]
    assert world.agent_count == 1 and world.ids.tolist() == [stays]
    with pytest.raises(throng.NotFound):
        world.agent(walker)


# ----------------------------------------------------------------- sources

def test_a_source_adds_agents_at_its_rate():
    # rate 4/s from start 0.02 s: agent k is due at 0.02 + 0.25 k s; step n
    # ends at 0.1 n s, so after n steps min(5, floor((0.1 n - 0.02) / 0.25) + 1)
    # agents: 1 1 2 2 2 3 3 4 4 4 5 5 5.
    world, a = walker_world()
    s = world.add_source("box", min=(-5.0, -5.0), max=(5.0, 5.0), rate=4.0, start=0.02, count=5,
                         agent=dict(archetype=a, radius=0.2, group=6), name="gate")
    counts, adds = [], []
    for n in range(1, 14):
        world.step()
        counts.append(world.agent_count)
        e = world.events()
        adds += [(n, int(r["agent"]), int(r["source"])) for r in e if r["kind"] == ADDED]
    assert counts == [1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5, 5]
    assert adds == [(1, 0, s), (3, 1, s), (6, 2, s), (8, 3, s), (11, 4, s)]
    positions = world.positions
    assert ((positions >= -5.0) & (positions <= 5.0)).all()
    assert (world.groups == 6).all() and np.allclose(world.radii, 0.2)
    del positions
    src = world.get_source(s)
    assert src.state == throng.SourceState(added=5, waiting=0, waited_steps=0, done=True)
    assert (src.shape, src.min, src.max, src.rate, src.count, src.name) == ("box", (-5.0, -5.0), (5.0, 5.0), 4.0, 5,
                                                                           "gate")
    assert src.agent["group"] == 6 and src.agent["archetype"] == a and src.agent["unit"] == throng.NO_UNIT
    assert world.find_source("gate") == s and world.source_count == 1


def test_a_live_source_steps_while_views_live():
    world, a = walker_world()
    world.add_source(rate=5.0, count=2, agent=dict(archetype=a))  # agents due at 0 s and 0.2 s
    world.step()
    view = world.positions
    world.step(5)  # the source adds its second agent: the view stays readable
    assert view.shape == (1, 2) and np.isfinite(view).all()
    assert world.get_source(0).state.done and world.agent_count == 2
    assert world.positions.shape == (2, 2)


def test_segment_and_circle_sources_read_back():
    world, a = walker_world()
    d = world.add_source("segment", from_=(-1.0, 0.0), to=(1.0, 0.0), rate=2.0, agent=dict(archetype=a))
    c = world.add_source("circle", center=(3.0, 3.0), radius=2.0, stop=5.0, agent=dict(archetype=a),
                         relative_target=True)
    assert (world.get_source(d).shape, world.get_source(d).from_, world.get_source(d).to) == (
        "segment", (-1.0, 0.0), (1.0, 0.0))
    sc = world.get_source(c)
    assert (sc.shape, sc.center, sc.radius, sc.stop, sc.relative_target) == ("circle", (3.0, 3.0), 2.0, 5.0, True)
    world.step()
    y = world.agent(0)["position"][1]  # the door's first agent lies on the segment
    assert y == 0.0 and -1.0 <= world.agent(0)["position"][0] <= 1.0


def test_source_bad_arguments():
    world, a = walker_world()
    with pytest.raises(throng.InvalidArgument, match="shape: unknown name 'door'.*box, circle, segment"):
        world.add_source("door")
    with pytest.raises(throng.InvalidArgument, match="rate"):
        world.add_source(rate=math.nan, agent=dict(archetype=a))
    with pytest.raises(throng.InvalidArgument, match="start"):
        world.add_source(start=-1.0, agent=dict(archetype=a))
    with pytest.raises(throng.NotFound, match="agent.archetype: no archetype 5"):
        world.add_source(agent=dict(archetype=5))
    with pytest.raises(throng.InvalidArgument, match="max_speed"):
        world.add_source(agent=dict(archetype=a, max_speed=math.inf))
    with pytest.raises(TypeError, match="World.add_source: agent: unknown field 'position'"):
        world.add_source(agent=dict(position=(0.0, 0.0)))
    with pytest.raises(throng.NotFound, match=r"World.get_source: id: no source 0 \(the world has 0\)"):
        world.get_source(0)
    with pytest.raises(throng.NotFound, match="World.find_source: name: no source called 'x'"):
        world.find_source("x")
    with pytest.raises(throng.InvalidArgument, match="World.find_source: name: .* holds a NUL"):
        world.find_source("s\0x")
    assert world.source_count == 0


# ------------------------------------------------------------------- units

def soldiers(world: throng.World, archetype: int, unit: int, n: int) -> None:
    """n soldiers of `unit` from a source in the box (-5, -5)..(5, 5), all
    in the first step (rate 1000/s)."""
    world.add_source(min=(-5.0, -5.0), max=(5.0, 5.0), rate=1000.0, count=n, agent=dict(archetype=archetype, unit=unit))
    world.step()


def test_a_unit_measures_its_members():
    world, a = walker_world()
    u = world.add_unit(archetype=a, rout_archetype=a, army=2, morale=dict(breaks_at=0.5))
    assert u == 0 and world.unit_count == 1
    soldiers(world, a, u, 4)
    world.step()  # the step after they came measures them
    s = world.get_unit(u)
    assert (s.id, s.count, s.most, s.routing, s.killed) == (0, 4, 4, False, 0)
    assert s.morale == pytest.approx(1.0) and s.shock == 0.0
    assert s.routed_step == 2**64 - 1
    # The library sums in fixed point (units.h): the mean to within 1/1024 m.
    assert s.centre == pytest.approx(tuple(world.positions.mean(axis=0)), abs=1.0 / 1024)
    assert s.order == "halt"


def test_orders_move_a_unit_in_formation():
    world, a = walker_world()
    march = world.add_archetype(throng.Controller([throng.Slot.make("arrive", slow_radius=1.0)]))
    u = world.add_unit(archetype=a, rout_archetype=a, march_archetype=march,
                       formation=dict(kind="line", files=2, spacing=1.0, speed=1.0))
    soldiers(world, a, u, 4)
    world.order_unit(u, "move", (0.0, 3.0))
    world.step()
    s = world.get_unit(u)
    assert s.order == "move" and s.order_point == (0.0, 3.0)
    world.order_unit(u, "hold")
    world.step()
    assert world.get_unit(u).order == "hold"


def test_unit_bad_arguments():
    world, a = walker_world()
    plain = world.add_unit(archetype=a, rout_archetype=a)
    with pytest.raises(throng.InvalidArgument, match="formation"):
        world.order_unit(plain, "move", (1.0, 1.0))
    with pytest.raises(throng.InvalidArgument, match="kind: unknown name 'flee'.*halt, move, turn, charge, hold"):
        world.order_unit(plain, "flee")
    with pytest.raises(throng.NotFound, match=r"World.order_unit: id: no unit 3 \(the world has 1\)"):
        world.order_unit(3, "halt")
    with pytest.raises(throng.NotFound, match=r"World.get_unit: id: no unit 1 \(the world has 1\)"):
        world.get_unit(1)
    with pytest.raises(throng.NotFound, match="archetype: no archetype 9"):
        world.add_unit(archetype=9)
    with pytest.raises(throng.NotFound, match="rout_archetype: no archetype 9"):
        world.add_unit(rout_archetype=9)
    assert ":class:`throng.NotFound`\n        naming the field for an archetype" in throng.World.add_unit.__doc__
    with pytest.raises(throng.InvalidArgument, match="breaks_at"):
        world.add_unit(morale=dict(breaks_at=math.nan))
    with pytest.raises(throng.InvalidArgument, match="kind: unknown name 'blob'.*none, line, column, square, wedge"):
        world.add_unit(formation=dict(kind="blob"))
    with pytest.raises(TypeError, match="World.add_unit: morale: unknown field 'courage'"):
        world.add_unit(morale=dict(courage=1.0))
    formed = world.add_unit(archetype=a, rout_archetype=a, formation=dict(kind="square"))
    with pytest.raises(throng.InvalidArgument, match="point"):
        world.order_unit(formed, "move", (math.nan, 0.0))
    with pytest.raises(throng.InvalidArgument):
        world.order_unit(formed, "turn", (0.0, 0.0))
    assert world.unit_count == 2


# ------------------------------------------------------------------ bodies

def test_a_soldier_killed_leaves_a_body_where_it_fell():
    # tests/test_bodies.c's duel: a killer at (0, 0) that hits for 30 every
    # 1 s (4 steps of 0.25 s); a victim of health 50 at (0.36, 0.48), 0.6 m
    # away along (3, 4) / 5: struck in steps 1 and 5, dead in step 5.
    world = throng.World(dt=0.25, bounds_min=(-100.0, -100.0), bounds_max=(100.0, 100.0), seed=7)
    melee = dict(enabled=True, health=100.0, armour=0.0, attack="melee", reach=0.5, damage=30.0, cooldown=1.0,
                 accuracy=1.0)
    killer_arch = world.add_archetype(throng.Controller(
        [], target_rule=dict(group=3, sight_radius=5.0, every=1), contact=dict(enabled=False), combat=melee))
    victim_arch = world.add_archetype(throng.Controller([], contact=dict(enabled=False), combat=dict(
        melee, health=50.0, attack="none", reach=0.0, damage=0.0, body_radius=0.4)))
    killer = int(world.spawn([(0.0, 0.0)], archetype=killer_arch, group=0, targets=(0.0, 0.0))[0])
    victim = int(world.spawn([(0.36, 0.48)], archetype=victim_arch, group=3, targets=(0.36, 0.48))[0])
    world.step(4)
    assert len(world.bodies()) == 0 and world.agent_count == 2
    world.step()
    assert world.agent_count == 1
    e = world.events()
    assert [(int(r["kind"]), int(r["agent"]), int(r["other"]), int(r["step"])) for r in e] == [
        (REMOVED, victim, killer, 5)]
    b = world.bodies()
    assert b.dtype == throng.BODY_DTYPE and len(b) == 1
    assert (int(b["agent"][0]), int(b["killer"][0]), int(b["group"][0]), int(b["archetype"][0])) == (
        victim, killer, 3, victim_arch)
    assert int(b["unit"][0]) == throng.NO_UNIT and int(b["step"][0]) == 5
    assert b["position"][0].tolist() == pytest.approx([0.36, 0.48], abs=1e-6)
    assert b["facing"][0].tolist() == pytest.approx([0.6, 0.8], abs=1e-5)
    assert b["radius"][0] == pytest.approx(0.4)
    world.step()
    assert len(world.bodies()) == 1  # bodies stay


def test_calls_on_a_world_not_made_raise():
    w = throng.World.__new__(throng.World)
    for call in (w.events, w.bodies, lambda: w.zone_count, lambda: w.get_unit(0), lambda: w.add_zone()):
        with pytest.raises(ValueError, match="not made"):
            call()


# ------------------------------------------------------------- controllers

def fighting_controller() -> throng.Controller:
    return throng.Controller(
        [throng.Slot.make("pursuit"), throng.Slot.make("separation", weight=2.0),
         throng.Slot.make("arrive", slow_radius=3.0)],
        target_rule=dict(group=1, sight_radius=10.0, every=1),
        combat=dict(enabled=True, health=100.0, attack="melee", reach=0.5, damage=30.0, cooldown=1.0, accuracy=1.0))


def test_formation_controller_keeps_the_fight_and_marches_to_the_slot():
    m = throng.formation_controller(fighting_controller())
    assert isinstance(m, throng.Controller)
    # pursuit (target agent) and arrive (target point) dropped; an arrive
    # to the slot added, weight 1, slowing within 1 m.
    assert [(s.kind, s.weight, s.params) for s in m.slots] == [("separation", 2.0, {}),
                                                               ("arrive", 1.0, {"slow_radius": 1.0})]
    assert m.target_rule.group == 1 and m.target_rule.sight_radius == 10.0
    assert m.combat.attack == "melee" and m.combat.damage == 30.0
    world = throng.World()
    assert world.add_archetype(m) == 0  # a valid controller


def test_routing_controller_drops_the_attack_and_seeks_the_refuge():
    r = throng.routing_controller(fighting_controller().to_dict())
    assert [(s.kind, s.weight) for s in r.slots] == [("separation", 2.0), ("seek", 1.0)]
    assert r.target_rule is None
    assert r.combat.enabled and r.combat.attack == "none" and r.combat.health == 100.0
    world = throng.World()
    assert world.add_archetype(r) == 0


def test_derived_controllers_bad_arguments():
    with pytest.raises(TypeError, match="throng.formation_controller: fighting: expected a throng.Controller"):
        throng.formation_controller(5)
    with pytest.raises(throng.InvalidArgument, match="mode: unknown name 'loud'"):
        throng.routing_controller({"mode": "loud"})
    with pytest.raises(TypeError, match="controller.slots\\[0\\]: kind: missing"):
        throng.routing_controller({"slots": [{}]})


def test_ids_may_be_numpy_integers():
    world, a = walker_world(bounds_mode="open")
    world.add_zone("box", min=(0.0, -1.0), max=(2.0, 1.0), name="hall")
    walk(world, a)
    world.step(11)
    zone = world.events()["zone"][0]
    assert isinstance(zone, np.uint32) and world.get_zone(zone).name == "hall"


def test_a_source_with_no_room_waits():
    # A source that is one point: its first agent stands there, and every
    # later one finds no free point (at 0 m from an agent's centre) and waits.
    world, a = walker_world()
    s = world.add_source(min=(0.0, 0.0), max=(0.0, 0.0), rate=10.0, count=3, agent=dict(archetype=a))
    world.step()  # agents 0 (due at 0 s) and 1 (due at 0.1 s): 0 added, 1 waits
    e = world.events()
    assert [(int(r["kind"]), int(r["agent"]), int(r["source"])) for r in e] == [
        (ADDED, 0, s), (WAITED, throng.NO_AGENT, s)]
    assert world.get_source(s).state == throng.SourceState(added=1, waiting=1, waited_steps=1, done=False)
    world.step()
    assert world.get_source(s).state == throng.SourceState(added=1, waiting=2, waited_steps=2, done=False)
    assert world.agent_count == 1


def test_morale_falls_with_losses_through_a_sink_and_a_unit_routs():
    # Two units of 4 still soldiers at known points (one-point sources), one
    # of each taken by a sink in step 3. morale = 1 - (start - count) /
    # (breaks_at * most): breaks_at 0.5: 1 - 1 / 2 = 0.5; breaks_at 0.25:
    # 1 - 1 / 1 = 0, which routs it at step 3.
    world, a = walker_world()
    steady = world.add_unit(archetype=a, rout_archetype=a, morale=dict(breaks_at=0.5))
    brittle = world.add_unit(archetype=a, rout_archetype=a, morale=dict(breaks_at=0.25))
    for unit, x in ((steady, -10.0), (brittle, 10.0)):
        for y in (0.0, 3.0, 6.0, 9.0):
            world.add_source(min=(x, y), max=(x, y), count=1, agent=dict(archetype=a, unit=unit))
    world.step(2)
    s = world.get_unit(steady)
    assert (s.count, s.most, s.morale, s.centre, s.routing) == (4, 4, 1.0, (-10.0, 4.5), False)
    world.add_zone("circle", center=(-10.0, 0.0), radius=0.5, sink=True)
    world.add_zone("circle", center=(10.0, 0.0), radius=0.5, sink=True)
    world.step()
    removed = world.events()
    assert [(int(r["agent"]), int(r["zone"])) for r in removed if r["kind"] == REMOVED] == [(0, 0), (4, 1)]
    s, b = world.get_unit(steady), world.get_unit(brittle)
    assert (s.count, s.most, s.killed, s.routing) == (3, 4, 0, False)  # left by a sink: not killed
    assert s.morale == pytest.approx(0.5) and s.centre == (-10.0, 6.0)
    assert (b.count, b.morale, b.routing, b.routed_step) == (3, 0.0, True, 3)
    assert b.refuge[0] < b.centre[0] and b.refuge[1] == 6.0  # behind its facing (+x)
    world.step()
    # A routing unit of its army 20 m away (within panic_radius 30 m) costs
    # the steady unit panic 0.05 a second: 0.005 in a step of 0.1 s.
    s = world.get_unit(steady)
    assert s.shock == pytest.approx(0.005) and s.morale == pytest.approx(0.495)


def test_a_scene_world_lists_its_sources_and_sinks():
    # "concourse": 200 agents, four sink exits and sixteen door sources.
    # Whatever the crowd does, the events account for every agent: the
    # count is 200 + added by sources - removed by sinks, and each source's
    # own tally (get_source().state.added) is its "added" events.
    scene = throng.Scene.builtin("concourse", agents=200)
    world = scene.world
    assert world.zone_count == 4 and world.source_count == 16
    assert world.find_zone("west_exit") == 0 and world.get_zone(0).sink
    assert world.get_source(world.find_source("west_in_0")).shape == "segment"
    by_source = np.zeros(16, dtype=np.int64)
    spawned = removed = 0
    for _ in range(400):
        scene.step()
        e = world.events()
        added = e[e["kind"] == ADDED]
        spawned += int((added["source"] == throng.NO_SOURCE).sum())
        np.add.at(by_source, added["source"][added["source"] != throng.NO_SOURCE].astype(np.int64), 1)
        gone = e[e["kind"] == REMOVED]
        assert (gone["zone"] < 4).all()  # only the sinks remove here
        removed += len(gone)
    assert spawned == 200 and removed > 0 and by_source.sum() > 16
    assert by_source.tolist() == [world.get_source(k).state.added for k in range(16)]
    assert world.agent_count == 200 + by_source.sum() - removed
