# SPDX-License-Identifier: MIT
"""The examples of examples/python/ run with small arguments, in a
temporary directory, under the interpreter of the tests (with the build
tree's package on PYTHONPATH, as ctest sets it), and what they print and
write is checked against figures computed here another way."""

from __future__ import annotations

import csv
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import throng

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

pytest.importorskip("matplotlib", reason="the examples plot with matplotlib (Debian: python3-matplotlib)")


def run_example(name: str, tmp_path: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=tmp_path, capture_output=True,
                          text=True, check=check, timeout=300)


def figure(out: str, key: str) -> str:
    """The value of the line `key: value` of a script's output."""
    found = re.search(r"^%s: (.*)$" % re.escape(key), out, re.MULTILINE)
    assert found, f"no '{key}:' line in:\n{out}"
    return found.group(1)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the
    signature: the file is a PNG, not just a file of that name."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, data[:8]
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_density_field_conserves_the_agents_and_matches_a_count_by_cells(tmp_path):
    agents, steps, bins = 300, 30, 20
    proc = run_example("density_field.py", tmp_path, "--agents", str(agents), "--steps", str(steps),
                       "--bins", str(bins), "--out", "density.png")
    out = proc.stdout
    width, height = png_size(tmp_path / "density.png")
    assert width > 100 and height > 100
    assert figure(out, "wrote") == "density.png"

    # The script stepped the real scene: stepping it here in one call gives
    # the hash it printed.
    scene = throng.Scene.builtin("field", agents=agents, seed=1)
    (x0, y0), (x1, y1) = scene.world.definition["bounds_min"], scene.world.definition["bounds_max"]
    area = (x1 - x0) * (y1 - y0)
    # Mass: the map integrated over the bounds is the number of agents, and
    # its mean is agents / area (every agent is inside at every step).
    assert float(figure(out, "total").split()[0]) == pytest.approx(agents, abs=1e-6)
    mean = float(re.match(r"([0-9.]+) /m\^2", figure(out, "mean density")).group(1))
    assert mean == pytest.approx(agents / area, rel=1e-5)

    # The peak cell, counted here by integer cell indices and bincount
    # instead of histogram2d, over the same states.
    counts = np.zeros(bins * bins, dtype=np.int64)
    wx, wy = (x1 - x0) / bins, (y1 - y0) / bins
    for _ in range(steps):
        scene.step()
        p = np.array(scene.world.positions, dtype=np.float64)
        i = np.clip(np.floor((p[:, 0] - x0) / wx).astype(np.int64), 0, bins - 1)
        j = np.clip(np.floor((p[:, 1] - y0) / wy).astype(np.int64), 0, bins - 1)
        counts += np.bincount(i * bins + j, minlength=bins * bins)
    assert int(figure(out, "hash"), 16) == scene.hash()
    assert counts.sum() == agents * steps
    peak = float(re.search(r"peak ([0-9.]+) /m\^2", figure(out, "mean density")).group(1))
    assert peak == pytest.approx(counts.max() / steps / (wx * wy), abs=2e-6)
    assert figure(out, "map").startswith(f"{bins} x {bins} cells of {wx * wy:.4f} m^2")


def test_density_field_refuses_bad_arguments(tmp_path):
    proc = run_example("density_field.py", tmp_path, "--agents", "0", check=False)
    assert proc.returncode == 2 and "--agents: got 0" in proc.stderr
    assert not (tmp_path / "density.png").exists()


def run_door_flow(tmp_path: Path, agents: int, seconds: float) -> str:
    proc = run_example("door_flow.py", tmp_path, "--agents", str(agents), "--seconds", str(seconds),
                       "--window", "5", "--plot", "nt.png", "--crossings", "crossings.csv")
    return proc.stdout


def test_door_flow_counts_every_agent_through_the_door(tmp_path):
    agents, seconds = 60, 20.0
    out = run_door_flow(tmp_path, agents, seconds)
    png_size(tmp_path / "nt.png")

    # The same scene stepped here at once: the same states, so the same
    # hash; the agents east of the door's wall (x > 0) at the end are those
    # who went through the door (the room's walls close x = 0 elsewhere;
    # the goals lie east of it and nobody comes back): an independent count.
    scene = throng.Scene.builtin("bottleneck", agents=agents, seed=1)
    start_east = int(np.count_nonzero(scene.world.positions[:, 0] > 0))
    dt = scene.world.definition["dt"]
    steps = math.ceil(seconds / dt)
    scene.step(steps)
    assert int(figure(out, "hash"), 16) == scene.hash()
    through = int(np.count_nonzero(scene.world.positions[:, 0] > 0)) - start_east
    assert start_east == 0
    assert 10 < through < agents  # a run that has a flow and is not over
    assert int(figure(out, "first passings")) == through
    assert figure(out, "crossings") == f"{through} (left {through}, right 0)"

    # The N-t curve ends at the count; the flow is (N - 1) / (t_last - t_first).
    with open(tmp_path / "crossings.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == through and len({r["id"] for r in rows}) == through
    times = sorted(float(r["time_s"]) for r in rows)
    assert re.search(r"^N\(%.2f s\) = %d$" % (steps * dt, through), out, re.MULTILINE), out
    flow = float(figure(out, "flow").split()[0])
    assert flow == pytest.approx((through - 1) / (times[-1] - times[0]), rel=1e-5)
    # Each crossing is dated at a state: a whole number of steps.
    for t in times:
        assert abs(t / dt - round(t / dt)) < 1e-3
    # The windows' passings add up to all of them.
    windows = re.findall(r"^window [0-9.]+-[0-9.]+ s: (\d+) passings", out, re.MULTILINE)
    assert len(windows) == math.ceil(steps / round(5 / dt)) and sum(map(int, windows)) == through


def test_door_flow_agrees_with_throng_measure(tmp_path, cli):
    """The C library's measurement of the same run (throng run --out, then
    throng measure --line) counts the same crossings of the same agents;
    its times are interpolated within the step before ours."""
    agents, seconds = 60, 20.0
    out = run_door_flow(tmp_path, agents, seconds)
    line = figure(out, "line")
    dt = throng.Scene.builtin("bottleneck", agents=agents, seed=1).world.definition["dt"]
    steps = math.ceil(seconds / dt)
    run = subprocess.run([cli, "run", "bottleneck", "--agents", str(agents), "--seed", "1", "--steps", str(steps),
                          "--out", "run.thr", "--quiet", "--metrics", "off"], cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout
    assert re.search(r"^hash:\s+%s$" % figure(out, "hash"), run, re.MULTILINE), run
    report = json.loads(subprocess.run([cli, "measure", "run.thr", "--line", line, "--format", "json"],
                                       cwd=tmp_path, check=True, capture_output=True, text=True).stdout)
    measured = report["lines"][0]
    with open(tmp_path / "crossings.csv", newline="") as f:
        ours = {int(r["id"]): float(r["time_s"]) for r in csv.DictReader(f)}
    assert measured["first_passings"] == len(ours) == int(figure(out, "first passings"))
    assert (measured["left"], measured["right"]) == (len(ours), 0)
    theirs = {c["id"]: c["time"] for c in measured["crossings"]}
    assert theirs.keys() == ours.keys()
    for agent, t in ours.items():
        assert t - dt - 1e-5 <= theirs[agent] <= t + 1e-5, (agent, theirs[agent], t)


def test_door_flow_refuses_a_bad_line(tmp_path):
    proc = run_example("door_flow.py", tmp_path, "--line", "1,2,3", check=False)
    assert proc.returncode == 2 and "--line: got '1,2,3'" in proc.stderr
    proc = run_example("door_flow.py", tmp_path, "--line", "0,0,0,0", check=False)
    assert proc.returncode == 2 and "two distinct points" in proc.stderr
