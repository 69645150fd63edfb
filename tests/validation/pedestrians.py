#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pedestrian scenes against experiments (issue 32): scene builders and measures.

Each scene is written as a scenario file into a temporary directory, run with
`throng run --out run.thr --fields all`, and measured from the stream with
examples/read_stream.py.  Usage:

    python3 tests/validation/pedestrians.py THRONG_BINARY [SCENE ...] [--archetype=walker|pedestrian]
    python3 tests/validation/pedestrians.py THRONG_BINARY --check   # ctest validation_pedestrians

Scenes: counterflow, bidirectional, bottleneck, relaxation, rimea9, oneway. PED_GAP, PED_SIDE, PED_SLIP,
PED_NOISE, PED_K, PED_FOV, PED_WALL in the environment override the pedestrian's values (a calibration sweep).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
import numpy as np  # noqa: E402
from read_stream import read_stream  # noqa: E402

# Today's walker of the built-in hallway (c32c142): hybrid, budgeted.
WALKER = """
  walker:
    mode: hybrid
    slots:
      - {kind: wall_avoidance, weight: 3, priority: true, look_ahead: 1.5}
      - {kind: separation, weight: 3, priority: true, neighbor_radius: 1}
      - {kind: unaligned_avoidance, weight: 2, priority: true, max_prediction: 1.5, avoid_radius: 0.8, neighbor_radius: 4}
      - GOAL
"""
# The pedestrian under calibration (issue 32): the relaxation blend, anticipation with a side preference,
# speed from headway, contacts with slip and noise. With the defaults below it is the library's
# throng_controller_pedestrian_def(drive) and throng_agent_pedestrian_def() (docs/BEHAVIORS.md,
# "The pedestrian"), written as a scenario file; keep the two the same.
PED_VALUES = {"slip": "0.5", "noise": "0.15", "side": "1.0", "gap": "0.55", "k": "0.5", "fov": "0.5", "wall": "3",
              "radius": "0.17"}
PED_VALUES.update({k[4:].lower(): v for k, v in os.environ.items() if k.startswith("PED_")})
PED = """
  pedestrian:
    mode: relaxation
    relaxation_time: 0.5
    contact: {slip: %(slip)s, noise: %(noise)s}
    slots:
      - {kind: wall_avoidance, weight: %(wall)s, priority: true, look_ahead: 1.5}
      - {kind: anticipation, priority: true, neighbor_radius: 4, side_bias: %(side)s, ttc_strength: %(k)s, fov_weight: %(fov)s}
      - {kind: headway, neighbor_radius: 3, time_gap: %(gap)s}
      - GOAL
""" % PED_VALUES
ARCHETYPES = {"walker": (WALKER, 1.3, 4.0), "pedestrian": (PED, 1.34, 8.0)}
# The one-way corridor at 0.5-4 /m2 within 20 % of Weidmann: --check asserts it.
ONEWAY_TOLERANCE = 0.20
RADIUS = {"walker": 0.3, "pedestrian": float(PED_VALUES.get("radius", "0.2"))}


def fmt(p):
    return "[%g, %g]" % p


def run(binary, yaml_text, seconds, every=6, workdir=None):
    """Runs a scene; returns (times, frames) with frames a list of dicts of arrays."""
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        scene = os.path.join(d, "scene.yaml")
        out = os.path.join(d, "run.thr")
        with open(scene, "w") as f:
            f.write(yaml_text)
        subprocess.run([binary, "run", scene, "--seconds", str(seconds), "--out", out, "--fields", "all",
                        "--every", str(every), "--metrics", "off", "--quiet", "--threads", "1"],
                       check=True, stdout=subprocess.DEVNULL)
        frames = []
        with open(out, "rb") as f:
            for header, frame in read_stream(f):
                frames.append(frame)
    return frames


GOALS = {"arrive": "{kind: arrive, slow_radius: 2}",
         "path": "{kind: path_following, waypoint_radius: 1, slow_radius: 2}"}


def header(name, xmin, ymin, xmax, ymax, arche, goal="arrive", seed=1):
    text, _, _ = ARCHETYPES[arche]
    text = text.replace("GOAL", GOALS[goal])
    return ("version: 2\nname: %s\nsteps: 60\nworld:\n  bounds: {min: [%g, %g], max: [%g, %g], mode: open}\n"
            "  seed: %d\narchetypes:%s" % (name, xmin, ymin, xmax, ymax, seed, text))


def group(name, count, arche, center, size, goal, gid, path=None):
    _, vmax, fmax = ARCHETYPES[arche]
    return ("  %s:\n    count: %d\n    archetype: %s\n    id: %d\n    max_speed: %g\n    max_force: %g\n"
            "    radius: %g\n    heading: goal\n"
            "    spawn: {shape: grid, center: %s, spacing: [%g, %g], columns: %d, jitter: 0.05}\n"
            "    goal: %s\n" % (name, count, arche, gid, vmax, fmax, RADIUS[arche], fmt(center), size[0], size[1], size[2],
                                fmt(goal)) +
            ("    path: [%s]\n" % ", ".join(fmt(w) for w in path) if path else ""))


def counterflow(binary, arche, density=1.0, width=2.0, length=20.0, seconds=60.0, seed=1):
    """Two streams head-on in a corridor of `width`, each `length` long at `density`; `seed` the world's
    (the spawn's jitter)."""
    n_rows = max(1, int(round(width * math.sqrt(density) - 0.5)))
    rows = n_rows
    per = int(round(density * width * length))
    cols = max(1, per // rows)
    dx = length / cols
    dy = (width - 0.7) / max(1, rows - 1) if rows > 1 else 0.0
    L = 200.0
    y = ("groups:\n" +
         group("east", cols * rows, arche, (-length / 2 - 1, 0), (dx, dy if rows > 1 else 1, cols), (L / 2 - 5, 0), 0) +
         group("west", cols * rows, arche, (length / 2 + 1, 0), (dx, dy if rows > 1 else 1, cols), (-L / 2 + 5, 0), 1) +
         "walls:\n  - [[%g, %g], [%g, %g]]\n  - [[%g, %g], [%g, %g]]\n" % (-L / 2, width / 2, L / 2, width / 2,
                                                                         -L / 2, -width / 2, L / 2, -width / 2))
    frames = run(binary, header("counterflow", -L / 2 - 5, -10, L / 2 + 5, 10, arche, seed=seed) + y, seconds)
    speeds = np.array([np.mean(np.hypot(f["vx"], f["vy"])) for f in frames])
    stopped = np.array([np.mean(np.hypot(f["vx"], f["vy"]) < 0.05) for f in frames])
    n = len(frames[0]["x"])
    grp = frames[0]["group"]
    last = frames[-1]
    passed = int(np.sum((grp == 0) & (last["x"] > length / 2 + 1)) + np.sum((grp == 1) & (last["x"] < -length / 2 - 1)))
    # While the streams pass through each other: from 2 s to 12 s (each stream is `length` long and
    # they close at about twice the free speed, so they overlap for about 15 s).
    times = np.array([f["time"] for f in frames])
    meet = (times >= 2.0) & (times <= 12.0)
    # The lane order parameter where the two streams overlap: the agents in the common part of the two
    # streams' extents along the corridor, whose strips run over that zone only (outside it a strip holds one
    # stream, or both one behind the other, and says nothing of lanes). Samples with fewer than MEET_MIN
    # agents in the zone (the first touch, the last to pass) are left out.
    order = []
    for f in frames:
        east = f["group"] == 0
        lo = max(np.min(f["x"][east]), np.min(f["x"][~east]))
        hi = min(np.max(f["x"][east]), np.max(f["x"][~east]))
        zone = (f["x"] >= lo) & (f["x"] <= hi)
        if np.count_nonzero(zone) >= MEET_MIN and np.any(zone & east) and np.any(zone & ~east):
            order.append((f["time"], lane_order(f["y"][zone], np.where(east[zone], 1, -1))))
    res = {"scene": "counterflow", "density": density, "agents": n, "mean_speed_meeting": float(np.mean(speeds[meet])),
           "stopped_meeting": float(np.mean(stopped[meet])), "passed": passed}
    res.update(lane_summary(order))
    return res


def bottleneck(binary, arche, door=0.8, count=150, seconds=300.0):
    """`count` walkers in a 8 m x 8 m room left of a wall with a door of width `door` at x = 0."""
    room = 8.0
    # Each walker heads for the door, then on to the goal (path following).
    y = ("groups:\n" + group("crowd", count, arche, (-room / 2 - 0.5, 0), (0.62, 0.62, 12), (30, 0), 0,
                             path=[(0.5, 0), (30, 0)]) +
         "walls:\n  - {points: [[0, %g], [0, %g], [%g, %g], [%g, %g], [0, %g], [0, %g]]}\n"
         % (door / 2, room / 2, -room - 1, room / 2, -room - 1, -room / 2, -room / 2, -door / 2) +
         "  - [[0, %g], [5, %g]]\n  - [[0, %g], [5, %g]]\n" % (door / 2, door / 2 + 3, -door / 2, -door / 2 - 3))
    frames = run(binary, header("bottleneck", -room - 5, -room, 40, room, arche, goal="path") + y, seconds, every=1)
    xs = np.array([f["x"] for f in frames])
    times = np.array([f["time"] for f in frames]) if "time" in frames[0] else np.arange(len(frames)) / 60.0
    crossed = xs > 0.0
    t_cross = []
    for i in range(xs.shape[1]):
        k = np.argmax(crossed[:, i])
        if crossed[k, i]:
            t_cross.append(times[k])
    t_cross = np.sort(np.array(t_cross))
    res = {"scene": "bottleneck", "door": door, "agents": count, "passed": len(t_cross)}
    if len(t_cross) > 20:
        a, b = t_cross[10], t_cross[-10]
        flow = (len(t_cross) - 20) / (b - a)
        res["flow"] = float(flow)
        res["specific_flow"] = float(flow / door)
        res["last_time"] = float(t_cross[-1])
    return res


def relaxation(binary, arche):
    """One walker from rest in open space: the time to reach 1 - 1/e of its free speed."""
    y = "groups:\n" + group("one", 1, arche, (0, 0), (1, 1, 1), (1000, 0), 0)
    frames = run(binary, header("relax", -10, -10, 100, 10, arche) + y, 5.0, every=1)
    v = np.array([f["vx"][0] for f in frames])
    v0 = ARCHETYPES[arche][1]
    k = int(np.argmax(v >= v0 * (1 - math.exp(-1))))
    return {"scene": "relaxation", "tau": k / 60.0, "final_speed": float(v[-1])}


OUT = 40.0


def rimea9(binary, arche, closed=False, seconds=600.0):
    """RiMEA test 9: a 30 m x 20 m room, 1,000 people, four 1 m exits near the corners of the short walls
    (two closed: those of the left wall, whose people walk to the right wall's exits). Each exit's people
    walk on to a point OUT m beyond it: nobody leaves the world yet (the living-world issue), and with the
    point 6 m out the crowd gathering there grew back into the exit (323.5 s instead of 208 s). The path
    leads 0.5 m past the exit's middle, as bottleneck()'s does: with the exit's own middle as the waypoint the room
    took 219 s instead of 178.5 s (the same walkers, the same exits)."""
    W, H, door = 30.0, 20.0, 1.0
    ys = (2.0, 17.0)  # exits span [y, y + door]
    walls = ["  - [[0, 0], [%g, 0]]" % W, "  - [[0, %g], [%g, %g]]" % (H, W, H)]
    for x in (0.0, W):
        closed_wall = closed and x == 0.0
        if closed_wall:
            walls.append("  - [[0, 0], [0, %g]]" % H)
        else:
            walls.append("  - {points: [[%g, 0], [%g, %g]]}" % (x, x, ys[0]))
            walls.append("  - {points: [[%g, %g], [%g, %g]]}" % (x, ys[0] + door, x, ys[1]))
            walls.append("  - {points: [[%g, %g], [%g, %g]]}" % (x, ys[1] + door, x, H))
    groups = "groups:\n"
    gid = 0
    for qx, left in ((W / 4, True), (3 * W / 4, False)):
        for qy, yexit in ((H / 4, ys[0] + door / 2), (3 * H / 4, ys[1] + door / 2)):
            to_left = left and not closed
            ex = 0.0 if to_left else W
            out = -OUT if to_left else W + OUT
            inside = 0.6 if to_left else W - 0.6
            past = -0.5 if to_left else W + 0.5  # through the exit, as bottleneck()'s walkers aim 0.5 m past the door
            groups += group("q%d" % gid, 250, arche, (qx, qy), (0.56, 0.9, 25), (out, yexit), gid,
                            path=[(inside, yexit), (past, yexit), (out, yexit)])
            gid += 1
    y = groups + "walls:\n" + "\n".join(walls) + "\n"
    frames = run(binary, header("rimea9", -OUT - 4, -2, W + OUT + 4, H + 2, arche, goal="path") + y, seconds, every=30)
    times = np.array([f["time"] for f in frames])
    inside = np.array([np.sum((f["x"] > 0) & (f["x"] < W)) for f in frames])
    done = np.nonzero(inside == 0)[0]
    out = {"scene": "rimea9", "closed": closed, "agents": int(inside[0]),
           "left_after": int(inside[-1]), "time": float(times[done[0]]) if len(done) else None}
    return out


def oneway(binary, arche, density=1.0, width=4.0, length=30.0, seconds=40.0):
    """A periodic corridor (a wrap world, walls along its long sides) at `density`: the mean speed of the
    last half of the run against Weidmann's curve."""
    n = int(round(density * width * length))
    rows = _corridor_rows(n, density, width, length, arche)
    y = ("agents:\n  rows:\n" + "\n".join(rows) + "\n" +
         "walls:\n  - [[0, %g], [%g, %g]]\n  - [[0, %g], [%g, %g]]\n" % (width / 2, length, width / 2,
                                                                       -width / 2, length, -width / 2))
    text = header("oneway", 0, -width / 2 - 4, length, width / 2 + 4, arche).replace("mode: open", "mode: wrap")
    frames = run(binary, text + y, seconds)
    half = len(frames) // 2
    speed = float(np.mean([np.mean(f["vx"]) for f in frames[half:]]))
    return {"scene": "oneway", "density": density, "agents": n, "speed": speed,
            "weidmann": weidmann(density)}


def weidmann(rho, v0=1.34, rho_max=5.4, gamma=1.913):
    """Weidmann (1993): v = v0 (1 - exp(-gamma (1/rho - 1/rho_max)))."""
    return v0 * (1.0 - math.exp(-gamma * (1.0 / rho - 1.0 / rho_max)))


# Lanes (docs/QUALITY.md, "Against experiments"): the lane order parameter of Rex and Loewen (PRE 75, 051402,
# 2007), as Nowak and Schadschneider (PRE 85, 066128, 2012) carry it to pedestrian counterflow: each agent j
# counts the others whose lateral distance is below LANE_STRIP / 2, over the whole length, walking its way
# (n_same) and the other way (n_opp); phi_j = ((n_same - n_opp) / (n_same + n_opp))^2 and the order parameter is
# the mean of phi_j (an agent alone in its strip is left out). 1 for perfect lanes; for a random mixture with
# n agents in a strip about 1/n. The strip is one body width (0.4 m, a shoulder width; fixed, so the measure
# does not move when the pedestrian's radius is recalibrated).
LANE_STRIP = 0.4
# Lanes have formed when the order parameter reaches LANE_THRESHOLD and stays there to the end of the
# measurement: 0.6 = (2 p - 1)^2 at p = 0.887, nearly nine in ten of the agents in one's strip walking one's
# way. A random mixture gives about 1/n with n agents in the strip (0.002 to 0.034 in the periodic corridor's
# mixed start; about 0.12 in the head-on zone at 1 /m2, 8 agents along a 0.4 m strip of 20 m); lanes give 1,
# less the agents at a lane's edge, whose strip reaches into the next lane (the head-on runs at 1 and 2 /m2 dip
# to 0.71 and 0.90): 0.6 sits well above the one and leaves that margin below the other.
LANE_THRESHOLD = 0.6
LANE_TARGET_S = 30.0  # issue 32: lanes within 30 s
MEET_MIN = 10         # counterflow: the fewest agents in the meeting zone for a sample of the order parameter


def lane_order(y, direction, strip=LANE_STRIP):
    """The lane order parameter of agents at lateral positions `y` walking `direction` (+1 or -1 each), every
    agent's strip running over the whole length given. NaN when no agent has a neighbour in its strip."""
    y = np.asarray(y, dtype=float)
    d = np.asarray(direction)
    near = np.abs(y[:, None] - y[None, :]) < strip / 2
    np.fill_diagonal(near, False)
    same = d[:, None] == d[None, :]
    n_same = np.sum(near & same, axis=1)
    n_opp = np.sum(near & ~same, axis=1)
    total = n_same + n_opp
    has = total > 0
    if not np.any(has):
        return float("nan")
    return float(np.mean(((n_same[has] - n_opp[has]) / total[has]) ** 2))


def lanes_time(series, threshold=LANE_THRESHOLD):
    """The first time from which the order parameter stays at or above `threshold` to the last sample; None if
    it does not end there. `series` is a list of (time, order)."""
    t_form = None
    for t, phi in series:
        if phi >= threshold:
            if t_form is None:
                t_form = t
        else:
            t_form = None
    return t_form


def lane_summary(series):
    """The lane fields of a scene's result: the time lanes form, the last value, and the series at 1 s."""
    if not series:
        return {"lanes_time": None, "lane_order_end": None, "lane_order": []}
    t0 = series[0][0]
    sampled = [(round(t, 2), round(phi, 3)) for t, phi in series if abs((t - t0) - round(t - t0)) < 1e-3]
    return {"lanes_time": lanes_time(series), "lane_order_end": round(series[-1][1], 3), "lane_order": sampled}


# Zhang, Klingsch, Schadschneider and Seyfried, J. Stat. Mech. (2012) P02002: the bidirectional corridor's
# specific flow. The paper's figures could not be read here (docs/QUALITY.md says what was): up to 1 /m2 its
# abstract (differences only above 1 /m2), Zhang and Seyfried's companion paper and the Juelich group's page
# say bidirectional and unidirectional flows agree (free flow), so Weidmann's rho v stands for it there; at 2
# and 3 /m2 about 1.5 /(m s), the figure issue 32 quotes from the literature's reports of the paper's diagram.
ZHANG_BIDIR = {0.5: None, 1.0: None, 2.0: 1.5, 3.0: 1.5}
BIDIR_TOLERANCE = 0.30  # issue 32: within 30 % of the bidirectional experiments


def bidir_reference(rho):
    """The bidirectional specific flow (1/(m s)) the corridor at `rho` is held against, and its source."""
    ref = ZHANG_BIDIR.get(rho)
    if ref is None:
        return rho * weidmann(rho), "weidmann"
    return ref, "zhang2012"


def _corridor_rows(n, density, width, length, arche, directions=None):
    """The agents of a periodic corridor: a jittered triangular lattice at `density` (rows across the corridor),
    each row one agent [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, archetype, group, path];
    `directions` (+1 east, group 0; -1 west, group 1) or all east."""
    _, vmax, fmax = ARCHETYPES[arche]
    rng = np.random.default_rng(7)
    rows_n = max(1, int(round(width * math.sqrt(density) * 0.93)))
    cols_n = int(math.ceil(n / rows_n))
    ddx, ddy = length / cols_n, (width - 0.5) / rows_n
    rows = []
    for i in range(n):
        c, r = i % cols_n, i // cols_n
        x = (c + 0.5 * (r % 2)) * ddx + rng.uniform(-0.05, 0.05) * ddx
        yy = -width / 2 + 0.25 + (r + 0.5) * ddy
        d = 1 if directions is None else int(directions[i])
        rows.append("    - [%g, %g, 0, 0, %d, 0, %g, %g, %g, %g, %g, \"%s\", %d, null]"
                    % (x % length, yy, d, d * 1e5, yy, vmax, fmax, RADIUS[arche], arche, 0 if d > 0 else 1))
    return rows


def bidirectional(binary, arche, density=1.0, width=4.0, length=30.0, seconds=40.0):
    """Zhang et al. 2012's bidirectional corridor as a periodic one (a wrap world, walls along its long sides):
    half the agents walk east, half west, the two mixed at random on the lattice oneway() uses. The lane order
    parameter over time, the time lanes form, and the specific flow J = rho v (v: the mean speed along each
    agent's own walking direction) over the last half of the run, against the bidirectional experiments."""
    n = 2 * int(round(density * width * length / 2))
    directions = np.array([1] * (n // 2) + [-1] * (n // 2))
    np.random.default_rng(11).shuffle(directions)
    rows = _corridor_rows(n, density, width, length, arche, directions)
    y = ("agents:\n  rows:\n" + "\n".join(rows) + "\n" +
         "walls:\n  - [[0, %g], [%g, %g]]\n  - [[0, %g], [%g, %g]]\n" % (width / 2, length, width / 2,
                                                                       -width / 2, length, -width / 2))
    text = header("bidirectional", 0, -width / 2 - 4, length, width / 2 + 4, arche).replace("mode: open", "mode: wrap")
    frames = run(binary, text + y, seconds)
    series = []
    along = []
    for f in frames:
        d = np.where(f["group"] == 0, 1, -1)
        series.append((f["time"], lane_order(f["y"], d)))
        along.append(float(np.mean(f["vx"] * d)))
    half = len(frames) // 2
    speed = float(np.mean(along[half:]))
    ref, source = bidir_reference(density)
    res = {"scene": "bidirectional", "density": density, "agents": n, "speed": speed,
           "specific_flow": density * speed, "reference": ref, "reference_source": source,
           "stopped_end": float(np.mean(np.hypot(frames[-1]["vx"], frames[-1]["vy"]) < 0.05))}
    res.update(lane_summary(series))
    return res


SCENES = {
    "oneway": lambda b, a: [oneway(b, a, d) for d in (0.5, 1.0, 2.0, 3.0, 4.0)],
    "rimea9": lambda b, a: [rimea9(b, a, False), rimea9(b, a, True)],
    "counterflow": lambda b, a: [counterflow(b, a, d) for d in (1.0, 2.0, 3.0)],
    "bidirectional": lambda b, a: [bidirectional(b, a, d) for d in (0.5, 1.0, 2.0, 3.0)],
    "bottleneck": lambda b, a: [bottleneck(b, a, w) for w in (0.8, 1.0, 1.2, 1.6, 2.0)],
    "relaxation": lambda b, a: [relaxation(b, a)],
}

# --check's targets come in two kinds, and each says which it is:
# CHECKED  - a target of issue 32 the pedestrian meets today: a miss fails the ctest (a regression).
# REPORTED - a target of issue 32 the pedestrian misses today, while its values are still being calibrated: the
#            figure is printed ("REPORTED MISS") and never fails the ctest; once it is met the line says so
#            ("REPORTED met"), and the target should move to CHECKED.
CHECKED, REPORTED = "CHECKED", "REPORTED"


class Targets:
    """The targets of one --check run: (kind, met, what), printed in order at the end."""

    def __init__(self):
        self.rows = []

    def add(self, kind, met, what):
        assert kind in (CHECKED, REPORTED)
        self.rows.append((kind, bool(met), what))

    def report(self):
        """Prints every target; returns 1 if a CHECKED one is missed, else 0."""
        for kind, met, what in self.rows:
            if kind == CHECKED:
                print("%s %s: %s" % (kind, "ok" if met else "MISS", what))
            else:
                print("%s %s: %s" % (kind, "met (move it to CHECKED)" if met else "MISS", what))
        failed = [what for kind, met, what in self.rows if kind == CHECKED and not met]
        reported = [what for kind, met, what in self.rows if kind == REPORTED and not met]
        print("%d checked targets, %d missed; %d reported targets missed (not failing: still being calibrated)"
              % (sum(1 for k, _, _ in self.rows if k == CHECKED), len(failed), len(reported)))
        return 1 if failed else 0


def _lanes(r):
    """How a result's lanes read in a target's line."""
    if r["lanes_time"] is None:
        return "no lanes (order parameter %s at the end, lanes need >= %g to the end)" % (r["lane_order_end"],
                                                                                          LANE_THRESHOLD)
    return "lanes from %.1f s (order parameter >= %g to the end)" % (r["lanes_time"], LANE_THRESHOLD)


def self_test():
    """The measures on configurations worked by hand (a broken measure fails --check before any scene runs)."""
    # Four agents within 0.2 m of each other laterally, two each way: each has 1 of its way and 2 the other
    # way in its strip, ((1 - 2) / 3)^2 = 1/9 for every one.
    assert abs(lane_order([0, 0, 0, 0.1], [1, 1, -1, -1]) - 1 / 9) < 1e-12
    # Two lanes 1 m apart: every strip holds one way only.
    assert lane_order([0, 0.05, 1, 1.05], [1, 1, -1, -1]) == 1.0
    # One strip of three (1 the other way) and a lone agent, left out: ((1 - 1) / 2)^2 = 0 for the two
    # east ones, ((0 - 2) / 2)^2 = 1 for the west one: 1/3.
    assert abs(lane_order([0, 0, 0, 5], [1, 1, -1, 1]) - 1 / 3) < 1e-12
    assert math.isnan(lane_order([0, 5], [1, -1]))
    # Above 0.6 from 3 s to the end (the dip at 2 s restarts the clock); never if the last sample is below.
    assert lanes_time([(0, 0.1), (1, 0.7), (2, 0.5), (3, 0.6), (4, 0.9)]) == 3
    assert lanes_time([(0, 0.7), (1, 0.5)]) is None
    assert bidir_reference(2.0) == (1.5, "zhang2012") and bidir_reference(1.0)[1] == "weidmann"


def _secs(t):
    """A time in s to one decimal, or "never" (None: the room did not empty)."""
    return "never" if t is None else "%.1f" % t


def check(binary):
    """The targets of issue 32: CHECKED ones (met today) fail the run, REPORTED ones (missed today) are printed."""
    self_test()
    t = Targets()
    r = relaxation(binary, "pedestrian")
    print(json.dumps(r), flush=True)
    t.add(CHECKED, 0.4 <= r["tau"] <= 0.6, "relaxation time %.3f s, expected 0.5 +/- 0.1" % r["tau"])
    # Head-on counterflow in the 2 m corridor: no gridlock, everyone passes, lanes within 30 s; at least 0.4 m/s
    # while the streams meet at 2 /m2 (the figure; 1 /m2 must do as well). At 3 /m2 the last walker of a
    # stream has 32 m to go (its own 20 m stream, the 2 m gap, the other's 20 m less 10 m) at about Weidmann's
    # 0.33 m/s: 97 s, so it gets 120 s there, and the speed is printed, not a target.
    for d in (1.0, 2.0, 3.0):
        seconds = 60.0 if d <= 2.0 else 120.0
        r = counterflow(binary, "pedestrian", d, seconds=seconds)
        print(json.dumps(r), flush=True)
        if d <= 2.0:
            t.add(CHECKED, r["mean_speed_meeting"] >= 0.4, "counterflow at %g /m2: mean speed %.3f m/s while the "
                  "streams meet, expected at least 0.4" % (d, r["mean_speed_meeting"]))
        else:
            print("INFO counterflow at %g /m2: mean speed %.3f m/s while the streams meet" % (d, r["mean_speed_meeting"]))
        t.add(CHECKED, r["passed"] == r["agents"], "counterflow at %g /m2: %d of %d passed in %g s"
              % (d, r["passed"], r["agents"], seconds))
        kind = CHECKED if d <= 2.0 else REPORTED  # at 3 /m2 lanes hold from 34.5 s
        t.add(kind, r["lanes_time"] is not None and r["lanes_time"] <= LANE_TARGET_S,
              "counterflow at %g /m2: %s where the streams meet, expected within %g s"
              % (d, _lanes(r), LANE_TARGET_S))
    # The periodic bidirectional corridor, half each way mixed at random: lanes within 30 s, specific flow within
    # 30 % of the bidirectional experiments (bidir_reference).
    for d in (0.5, 1.0, 2.0, 3.0):
        r = bidirectional(binary, "pedestrian", d)
        print(json.dumps(r), flush=True)
        # At 3 /m2 the mixed crowd in the corridor's middle, beyond the walls' reach (THR_HEADWAY_WALL_REACH,
        # 1 m), is held by the headway and forms no lanes (it did with the headway's cone everywhere, lanes from
        # 13 s, at the cost of bottleneck's overlap at 100,000 agents: docs/QUALITY.md).
        kind = CHECKED if d <= 2.0 else REPORTED
        t.add(kind, r["lanes_time"] is not None and r["lanes_time"] <= LANE_TARGET_S,
              "bidirectional corridor at %g /m2: %s, expected within %g s" % (d, _lanes(r), LANE_TARGET_S))
        # At 3 /m2 0.59 /(m s) (the experiments stay below 2.5 /m2: docs/QUALITY.md).
        t.add(kind, abs(r["specific_flow"] / r["reference"] - 1.0) <= BIDIR_TOLERANCE,
              "bidirectional corridor at %g /m2: specific flow %.3f /(m s), reference %.3f (%s), within %d %%"
              % (d, r["specific_flow"], r["reference"], r["reference_source"], round(100 * BIDIR_TOLERANCE)))
    for d in (0.5, 1.0, 2.0, 3.0, 4.0):
        r = oneway(binary, "pedestrian", d)
        print(json.dumps(r), flush=True)
        t.add(CHECKED, abs(r["speed"] / r["weidmann"] - 1.0) <= ONEWAY_TOLERANCE,
              "one-way corridor at %g /m2: %.3f m/s, Weidmann %.3f, within %d %%" %
              (d, r["speed"], r["weidmann"], round(100 * ONEWAY_TOLERANCE)))
    door_flow = {}
    for w in (0.8, 1.0, 1.2, 2.0):
        r = bottleneck(binary, "pedestrian", w)
        print(json.dumps(r), flush=True)
        door_flow[w] = r.get("flow", 0.0)
        t.add(CHECKED, r["passed"] == r["agents"], "bottleneck %g m: %d of %d passed in 300 s"
              % (w, r["passed"], r["agents"]))
        t.add(CHECKED, 1.3 <= r.get("specific_flow", 0.0) <= 2.3, "bottleneck %g m: specific flow %.3f /(m s), "
              "expected 1.3 to 2.3" % (w, r.get("specific_flow", 0.0)))
    # RiMEA 9: the room empties within 20 % of the hand calculation from the 1 m door's measured flow
    # (1,000 / (4 x J)), and closing two exits raises the time 1.7 to 2.3 times.
    hand = 1000.0 / (4.0 * door_flow[1.0]) if door_flow[1.0] > 0 else float("inf")
    four = rimea9(binary, "pedestrian", False, seconds=300.0)
    print(json.dumps(four), flush=True)
    two = rimea9(binary, "pedestrian", True, seconds=540.0)
    print(json.dumps(two), flush=True)
    t.add(CHECKED, four["time"] is not None and abs(four["time"] / hand - 1.0) <= 0.2,
          "RiMEA 9, four exits: empty at %s s, hand calculation %.1f s (1,000 / (4 x %.3f /s)), within 20 %%"
          % (_secs(four["time"]), hand, door_flow[1.0]))
    ratio = two["time"] / four["time"] if four["time"] and two["time"] else None
    t.add(CHECKED, ratio is not None and 1.7 <= ratio <= 2.3,
          "RiMEA 9, two exits closed: empty at %s s, %s times the four exits', expected 1.7 to 2.3"
          % (_secs(two["time"]), "%.2f" % ratio if ratio else "-"))
    # The gridlock the pedestrian exists to avoid: if today's walker no longer jams, say so here. Whether
    # one head-on meeting of walkers locks for good is chaotic (the spawn's jitter, or the last bit of a
    # division, decides it), so the walker runs on seeds 1 to 8: some of them must lock (nobody passes in
    # 60 s), where the pedestrian passes everyone (checked above, seed 1).
    walkers = [counterflow(binary, "walker", 1.0, seed=seed) for seed in range(1, 9)]
    for r in walkers:
        print(json.dumps(r), flush=True)
    passed = [r["passed"] for r in walkers]
    t.add(CHECKED, passed.count(0) >= 1,
          "today's walker jams in counterflow at 1 /m2: seeds 1 to 8 lock %d times (nobody passes in 60 s); "
          "passed %s of %d" % (passed.count(0), " / ".join(str(p) for p in passed), walkers[0]["agents"]))
    return t.report()


def command_line(prog, doc, what, names):
    """The positional arguments (THRONG_BINARY, then names of `what`, each one of `names`) of a validation
    script: --help prints `doc` and exits 0; a missing binary or an unknown name is an error that says so
    (exit 2)."""
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(doc.strip())
        sys.exit(0)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    unknown = [a for a in args[1:] if a not in names]
    if not args or unknown:
        print("%s: %s (see --help)" % (prog, "missing THRONG_BINARY" if not args else "unknown %s %s; the %ss: %s"
              % (what, ", ".join(unknown), what, ", ".join(names))), file=sys.stderr)
        sys.exit(2)
    return args


if __name__ == "__main__":
    args = command_line("pedestrians.py", __doc__, "scene", SCENES)
    if "--check" in sys.argv[1:]:
        sys.exit(check(args[0]))
    arche = "walker"
    for a in sys.argv[1:]:
        if a.startswith("--archetype="):
            arche = a.split("=", 1)[1]
    binary, names = args[0], args[1:] or list(SCENES)
    for name in names:
        for r in SCENES[name](binary, arche):
            print(json.dumps(r), flush=True)
