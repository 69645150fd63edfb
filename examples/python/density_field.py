#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The time-averaged density of the built-in `field` scene, as a PNG.

    PYTHONPATH=build/release/python python3 examples/python/density_field.py --out density.png
    python3 examples/python/density_field.py --agents 5000 --steps 600 --bins 60 --out density.png

Runs `throng.Scene.builtin("field", agents=..., seed=...)` (pedestrians
cross a square with obstacles, each walking to a new goal on arrival) one
step at a time. After each step it reads `world.positions`, the library's
own array (a read-only NumPy view, no copy; valid until the next step, so
a fresh one is taken every step) and bins the agents over the world's
bounds with numpy.histogram2d. The counts, summed over the steps, divided
by the steps and by a cell's area, are the mean density in people per m^2.

Prints the run and the map's figures; `total` is the map integrated over
the bounds (sum of density x cell area), which must be the number of agents
(the field is contained: every agent is inside the bounds at every step):
the mass check the tests read. Needs NumPy and matplotlib (Debian:
python3-numpy, python3-matplotlib; scripts/setup installs both).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import throng


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=2000, help="agents in the scene (default 2000)")
    parser.add_argument("--steps", type=int, default=300, help="steps of 1/60 s (default 300: 5 s)")
    parser.add_argument("--seed", type=int, default=1, help="the scene's seed (default 1)")
    parser.add_argument("--bins", type=int, default=40, help="cells along each axis of the map (default 40)")
    parser.add_argument("--out", default="density.png", help="the PNG to write (default density.png)")
    args = parser.parse_args(argv)
    for name in ("agents", "steps", "bins"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: got {getattr(args, name)}, expected 1 or more")
    return args


def density_map(agents: int, steps: int, seed: int, bins: int):
    """Steps the scene and returns (density, x edges, y edges, scene):
    density[i, j] is the mean number of agents per m^2 in the cell between
    x edges i, i+1 and y edges j, j+1, over the states after each step."""
    scene = throng.Scene.builtin("field", agents=agents, seed=seed)
    world = scene.world
    definition = world.definition
    (x0, y0), (x1, y1) = definition["bounds_min"], definition["bounds_max"]
    counts = np.zeros((bins, bins), dtype=np.int64)
    for _ in range(steps):
        scene.step()
        p = world.positions  # (N, 2) float32 over the library's memory, no copy
        h, xedges, yedges = np.histogram2d(p[:, 0], p[:, 1], bins=bins, range=[[x0, x1], [y0, y1]])
        counts += h.astype(np.int64)
        del p  # a view is only good until the next step
    cell_area = (xedges[1] - xedges[0]) * (yedges[1] - yedges[0])
    return counts / steps / cell_area, xedges, yedges, scene


def plot(density: np.ndarray, xedges: np.ndarray, yedges: np.ndarray, title: str, out: str) -> None:
    import matplotlib
    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.6), dpi=100)
    # histogram2d's first index is x: transpose so that x runs across.
    mesh = ax.pcolormesh(xedges, yedges, density.T, cmap="viridis", shading="flat")
    fig.colorbar(mesh, ax=ax, label="mean density (people / m$^2$)")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, format="png")
    plt.close(fig)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    density, xedges, yedges, scene = density_map(args.agents, args.steps, args.seed, args.bins)
    cell_area = (xedges[1] - xedges[0]) * (yedges[1] - yedges[0])
    total = float(density.sum() * cell_area)
    seconds = args.steps * scene.world.definition["dt"]
    print(f"scene: field, {scene.world.agent_count} agents, seed {args.seed}, {args.steps} steps ({seconds:.2f} s)")
    print(f"hash: {scene.hash():016x}")
    print(f"map: {args.bins} x {args.bins} cells of {cell_area:.4f} m^2 over "
          f"[{xedges[0]:g}, {xedges[-1]:g}] x [{yedges[0]:g}, {yedges[-1]:g}] m")
    print(f"mean density: {density.mean():.6f} /m^2, peak {density.max():.6f} /m^2")
    print(f"total: {total:.6f} agents (the map times a cell's area, summed)")
    plot(density, xedges, yedges, f"field: {args.agents} agents, mean over {seconds:.1f} s", args.out)
    print(f"wrote: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
