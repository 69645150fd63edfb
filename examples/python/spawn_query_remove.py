# SPDX-License-Identifier: MIT
"""A crowd in a few lines: make a world, spawn agents from NumPy arrays,
step, ask who is near a point, remove them, step again.

Run it from a build tree (docs/PYTHON.md, "Building and finding it"):

    PYTHONPATH=BUILD/python /usr/bin/python3 examples/python/spawn_query_remove.py
"""

import numpy as np

import throng

# A 100 m x 100 m square (the default bounds, -50..50) stepped at 60 Hz.
world = throng.World(seed=7)

# One archetype: walk to your target point, slowing down within 5 m of it,
# and keep apart from your neighbours.
walker = world.add_archetype(throng.Controller([
    throng.Slot.make("arrive", slow_radius=5.0),
    throng.Slot("separation", weight=2.0),
]))

# 500 agents at random points of the square's lower half, all heading
# for (0, -20). Every field is an array (one row per agent) or one value
# for all of them.
rng = np.random.default_rng(1)
start = rng.uniform((-45.0, -45.0), (45.0, 0.0), size=(500, 2))
ids = world.spawn(start, targets=(0.0, -20.0), archetype=walker, max_speed=rng.uniform(1.0, 1.6, 500))
print("spawned:", len(ids))

# Ten seconds.
world.step(600)

# Who is within 5 m of the goal (nearest first), and the 3 agents nearest
# to (-20, 0)? Both answers are uint32 arrays of agent ids.
near_goal = world.query_radius((0.0, -20.0), 5.0)
nearest = world.query_nearest((-20.0, 0.0), 3)
print("within 5 m:", len(near_goal))
print("3 nearest:", len(nearest))

# Take them out of the world (all at once: it is one pass over the store).
gone = np.union1d(near_goal, nearest)
world.remove(gone)
print("removed:", len(gone))

# The rest walk on. Views such as world.positions must be taken again
# after a change: rows move when agents are removed.
world.step(120)
print("left:", world.agent_count)
print("mean speed: %.3f m/s" % np.linalg.norm(world.velocities, axis=1).mean())

# The state hash: the same on every run, build and thread count.
print("hash: %016x" % world.hash())
