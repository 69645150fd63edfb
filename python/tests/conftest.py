# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python module's tests (python/CMakeLists.txt
registers them with ctest as python_tests: PYTHONPATH points at the build
tree's package, THRONG_CLI at the throng command)."""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

import throng


@pytest.fixture
def cli():
    """The path of the throng command (skips when ctest did not pass one)."""
    path = os.environ.get("THRONG_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("THRONG_CLI is not set to the throng command")
    return path


def cli_hash(cli: str, *args: str) -> int:
    """The state hash `throng run ARGS --quiet` prints (its `hash:` line)."""
    out = subprocess.run([cli, "run", *args, "--quiet"], check=True, capture_output=True, text=True).stdout
    found = re.search(r"^hash:\s+([0-9a-f]{16})$", out, re.MULTILINE)
    assert found, out
    return int(found.group(1), 16)


def small_world(n: int = 100, seed: int = 3, **kwargs) -> throng.World:
    """A world of n agents in a row that arrive at (0, 20) and keep apart
    (the README's first example)."""
    world = throng.World(seed=seed, **kwargs)
    controller = throng.Controller([throng.Slot.make("arrive", slow_radius=5.0), throng.Slot("separation", weight=2.0)])
    archetype = world.add_archetype(controller)
    positions = np.stack([np.linspace(-40.0, 40.0, n), np.full(n, -20.0)], axis=1)
    world.spawn(positions, targets=(0.0, 20.0), archetype=archetype, group=np.arange(n) % 3)
    return world
