#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The flow through the door of the built-in `bottleneck` scene, measured
as PedPy measures a bottleneck experiment.

    PYTHONPATH=build/release/python python3 examples/python/door_flow.py
    python3 examples/python/door_flow.py --agents 400 --seconds 90 --window 10 --plot nt.png

`bottleneck`: a crowd leaves a walled room through one door in its east
wall (x = 0) and walks on to its goals. The door's posts are read from the
scene itself (`scene.save` writes its walls; the door is the gap between
the two walls on x = 0), and the measurement line runs across the door
between them, from the north post to the south one, so that "left" of it
is the way out (+x). `--line X0,Y0,X1,Y1` measures another line instead.

How, after PedPy (pedpy.readthedocs.io: `compute_n_t`, `compute_flow`):

- Before and after each step the agents' positions are taken by id
  (`world.agents_by_id(ids)` gives their rows in the read-only
  `world.positions` view, whose row order changes between steps). An
  agent crosses the line in a step when its straight path from the one
  position to the next intersects the segment: it changes side of the
  line's carrier and the meeting point lies between the ends. A position
  exactly on the carrier keeps the side the agent came from (PedPy does
  not count a movement that ends on the line; throng's measure.h neither).
- The N-t curve counts, at each step, the agents who have passed the line,
  each at its first passing (PedPy: "only the first passing of the line is
  considered"), at the time of the state after the crossing (PedPy's
  crossing frame: the first frame on the other side).
- The flow is J = (N(t_last) - N(t_first)) / (t_last - t_first) between the
  first and the last passing, in persons per second; per window of
  `--window` seconds the same formula over the passings inside the window
  (PedPy's `compute_flow` with delta_t frames), for windows with two
  passings or more.

The C library measures the same way (include/throng/measure.h; the command
`throng measure`): `throng run bottleneck --agents N --seed S --steps K
--out run.thr` then `throng measure run.thr --line X0,Y0,X1,Y1` reads the
same states (a frame every step) and counts the same crossings, the same
agents, in both directions: python/tests/test_examples.py checks that the
counts and the ids agree. Its crossing times differ by design: throng
interpolates the time along the step at which the path meets the line
(t_k + f dt), here (as PedPy) the crossing is dated at the state after it
(t_k + dt), so each of its times lies within one step (dt = 1/60 s) before
ours, and its flows, count / window length, use the whole window rather
than first to last passing. For instance, 100 agents, seed 1, 30 s (1,800
steps): both count 100 crossings to the left by the same 100 agents; the
first at 2.3043 s in throng's report, at 2.3167 s here (one step later,
the state after); throng's flow 100 / 30 s = 3.33 /s, here (100 - 1) /
(29.9667 - 2.3167) s = 3.58 /s.

Prints the run, the line, `crossings: N` (every crossing in either
direction), `first passings: N` (agents), the N-t curve at a few times,
`flow: J persons/s` and the windows' flows; `--plot PNG` draws the N-t
curve with matplotlib (Debian: python3-matplotlib), `--crossings CSV`
writes every crossing (time, id, direction). Needs NumPy.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys

import numpy as np

import throng


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=200, help="agents in the room (default 200)")
    parser.add_argument("--seconds", type=float, default=60.0, help="simulated seconds (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="the scene's seed (default 1)")
    parser.add_argument("--window", type=float, default=10.0, help="the windows' length for the flows, s (default 10)")
    parser.add_argument("--line", help="X0,Y0,X1,Y1: the measurement line (default: across the scene's door)")
    parser.add_argument("--plot", help="write the N-t curve to this PNG")
    parser.add_argument("--crossings", help="write every crossing (time_s, id, direction) to this CSV")
    args = parser.parse_args(argv)
    if args.agents < 1:
        parser.error(f"--agents: got {args.agents}, expected 1 or more")
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        parser.error(f"--seconds: got {args.seconds}, expected a positive number")
    if not (math.isfinite(args.window) and args.window > 0):
        parser.error(f"--window: got {args.window}, expected a positive number")
    if args.line is not None:
        try:
            line = [float(v) for v in args.line.split(",")]
        except ValueError:
            line = []
        if len(line) != 4 or not all(math.isfinite(v) for v in line) or line[:2] == line[2:]:
            parser.error(f"--line: got {args.line!r}, expected X0,Y0,X1,Y1, four finite numbers, two distinct points")
        args.line = line
    return args


def door_line(scene: throng.Scene) -> list[float]:
    """The segment across the door of a `bottleneck` scene, north post to
    south post: the door is the gap between the two walls that lie on
    x = 0 (the room's east wall)."""
    world = scene.world
    walls = [world.get_wall(k) for k in range(world.wall_count)]
    on_door_wall = [w for w in walls if w[0][0] == 0 and w[1][0] == 0]
    if len(on_door_wall) != 2:
        raise SystemExit(f"door_flow.py: expected two walls on x = 0 (the door's posts), found {len(on_door_wall)}")
    north = min(min(w[0][1], w[1][1]) for w in on_door_wall if min(w[0][1], w[1][1]) > 0)
    south = max(max(w[0][1], w[1][1]) for w in on_door_wall if max(w[0][1], w[1][1]) < 0)
    return [0.0, float(north), 0.0, float(south)]


def side_value(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The cross product (b - a) x (p - a) for each row of p: positive
    where p is left of the directed line a -> b, negative right, 0 on it."""
    d = b - a
    return d[0] * (p[:, 1] - a[1]) - d[1] * (p[:, 0] - a[0])


def side(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """+1 left of a -> b, -1 right, 0 on the carrier."""
    return np.sign(side_value(p, a, b))


def crossings_in_step(p0: np.ndarray, p1: np.ndarray, s0: np.ndarray, a: np.ndarray, b: np.ndarray):
    """The rows whose path p0 -> p1 crosses the segment a-b, their
    directions (+1 to the left) and every row's side after the step (a
    position on the carrier keeps the side it had: s0)."""
    s1 = side(p1, a, b)
    s1 = np.where(s1 == 0, s0, s1)
    changed = (s0 != 0) & (s1 != s0)
    # Where the path meets the carrier, as a fraction of the segment a-b:
    # crossed only when it lies within [0, 1].
    rows = np.flatnonzero(changed)
    q0, q1 = p0[rows], p1[rows]
    c0 = side_value(q0, a, b)
    c1 = side_value(q1, a, b)
    f = c0 / (c0 - c1)  # along the path
    meet = q0 + f[:, None] * (q1 - q0)
    d = b - a
    u = ((meet[:, 0] - a[0]) * d[0] + (meet[:, 1] - a[1]) * d[1]) / (d[0] * d[0] + d[1] * d[1])
    on_segment = (u >= 0.0) & (u <= 1.0)
    return rows[on_segment], s1[rows[on_segment]], s1


def measure(args: argparse.Namespace):
    """Runs the scene and returns (scene, line, steps, dt, crossings): every
    crossing as (time s, id, direction), in time order, ties by id."""
    scene = throng.Scene.builtin("bottleneck", agents=args.agents, seed=args.seed)
    world = scene.world
    dt = world.definition["dt"]
    steps = math.ceil(args.seconds / dt)
    line = args.line if args.line is not None else door_line(scene)
    a, b = np.array(line[:2]), np.array(line[2:])

    # The agents are tracked by id: bottleneck adds and removes none, so its
    # ids at the start are all there is (agents_by_id raises NotFound for an
    # id no longer alive; a scene with sources would re-read world.ids).
    ids = np.array(world.ids)
    p0 = world.positions[world.agents_by_id(ids)].astype(np.float64)  # a copy: fancy indexing
    s0 = side(p0, a, b)
    crossings = []
    for k in range(1, steps + 1):
        scene.step()
        p1 = world.positions[world.agents_by_id(ids)].astype(np.float64)
        rows, direction, s0 = crossings_in_step(p0, p1, s0, a, b)
        t = k * dt  # the state after the step: PedPy's crossing frame
        crossings.extend((t, int(ids[r]), int(d)) for r, d in zip(rows, direction))
        p0 = p1
    return scene, line, steps, dt, crossings


def flow_between(times: np.ndarray) -> float:
    """PedPy's flow over passings at these times (sorted): (N_last -
    N_first) / (t_last - t_first), nan with fewer than two or no time
    between them."""
    if len(times) < 2 or times[-1] == times[0]:
        return math.nan
    return (len(times) - 1) / (times[-1] - times[0])


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    scene, line, steps, dt, crossings = measure(args)
    world = scene.world
    seconds = steps * dt
    left = sum(1 for _, _, d in crossings if d > 0)
    first = {}
    for t, agent, _ in crossings:
        first.setdefault(agent, t)  # in time order: the first passing
    passings = np.array(sorted(first.values()))

    print(f"scene: bottleneck, {world.agent_count} agents, seed {args.seed}, {steps} steps ({seconds:.2f} s)")
    print(f"hash: {scene.hash():016x}")
    print("line: {:g},{:g},{:g},{:g}".format(*line))
    print(f"crossings: {len(crossings)} (left {left}, right {len(crossings) - left})")
    print(f"first passings: {len(passings)}")
    if len(passings):
        print(f"first at: {passings[0]:.4f} s, last at: {passings[-1]:.4f} s")
    # The N-t curve at a few times: passings up to and including t.
    for t in np.linspace(0.0, seconds, 7)[1:]:
        print(f"N({t:.2f} s) = {int(np.searchsorted(passings, t, side='right'))}")
    print(f"flow: {flow_between(passings):.6f} persons/s (first to last passing)")
    # Windows of whole steps (PedPy's delta_t is in frames); the last may be shorter.
    window_steps = max(1, round(args.window / dt))
    for first_step in range(0, steps, window_steps):
        start, end = first_step * dt, min(first_step + window_steps, steps) * dt
        inside = passings[(passings > start) & (passings <= end)]
        print(f"window {start:.2f}-{end:.2f} s: {len(inside)} passings, flow {flow_between(inside):.6f} persons/s")

    if args.crossings:
        with open(args.crossings, "w", newline="", encoding="utf-8") as f:
            out = csv.writer(f)
            out.writerow(["time_s", "id", "direction"])
            out.writerows((f"{t:.6f}", agent, d) for t, agent, d in crossings)
        print(f"wrote: {args.crossings}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
        # A step curve: N jumps at each passing, from 0 at t = 0 to the end.
        ax.step(np.concatenate([[0.0], passings, [seconds]]),
                np.concatenate([[0], np.arange(1, len(passings) + 1), [len(passings)]]), where="post")
        ax.set_xlabel("t (s)")
        ax.set_ylabel("N (first passings)")
        ax.set_title(f"bottleneck, {world.agent_count} agents: N-t at the door, J = "
                     f"{flow_between(passings):.2f} /s")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, format="png")
        plt.close(fig)
        print(f"wrote: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
