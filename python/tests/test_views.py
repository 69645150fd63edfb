# SPDX-License-Identifier: MIT
"""The NumPy views: zero-copy, read-only, storage order, and their
lifetime (docs/PYTHON.md, "Views")."""

from __future__ import annotations

import ctypes
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import throng
from conftest import small_world

PAIRS = {"positions": ("x", "y", "position"), "velocities": ("vx", "vy", "velocity"),
         "headings": ("hx", "hy", "heading")}
COLUMNS = {"ids": ("id", np.uint32), "groups": ("group", np.uint32), "archetypes": ("archetype", np.uint32),
           "radii": ("radius", np.float32)}


def data_pointer(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def test_shapes_types_and_values_match_the_agents():
    world = small_world(n=50)
    world.step(30)
    ids = world.ids
    for name, (_, _, field) in PAIRS.items():
        array = getattr(world, name)
        assert array.shape == (50, 2) and array.dtype == np.float32
        for row in (0, 17, 49):
            assert tuple(float(v) for v in array[row]) == world.agent(int(ids[row]))[field]
    for name, (field, dtype) in COLUMNS.items():
        array = getattr(world, name)
        assert array.shape == (50,) and array.dtype == dtype
        for row in (0, 17, 49):
            assert array[row] == pytest.approx(world.agent(int(ids[row]))[field], abs=0)
    assert sorted(ids) == list(range(50))


def test_views_are_the_library_s_memory():
    world = small_world(n=1000)
    world.step(5)
    addresses = world._addresses()
    for name, (x, y, _) in PAIRS.items():
        array = getattr(world, name)
        assert data_pointer(array) == addresses[x]
        assert array.strides == (4, addresses[y] - addresses[x])  # x and y: two arrays of one block
        assert np.shares_memory(array, getattr(world, name))
    for name, (field, _) in COLUMNS.items():
        assert data_pointer(getattr(world, name)) == addresses[field]
    # Not the memory of a copy: a step changes what the same array shows
    # (when the engine does not sort agents into the other buffer, the
    # state comes back to the first buffer every second step).
    before = world.positions.copy()
    view = world.positions
    assert np.array_equal(view, before)
    del view
    world.step(2)
    assert not np.array_equal(world.positions, before)


def test_views_are_read_only():
    world = small_world(n=10)
    for name in list(PAIRS) + list(COLUMNS):
        array = getattr(world, name)
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[0] = 0
        with pytest.raises(ValueError):
            array.setflags(write=True)
    for kind in range(7):
        assert memoryview(world._view(kind)).readonly
        with pytest.raises(BufferError, match="read-only"):  # a writable request, as a C caller makes it
            get_buffer(world._view(kind), PyBUF_WRITABLE | PyBUF_FULL_RO)
    del array
    get_buffer(world._view(3), PyBUF_FULL_RO)  # the same read-only request succeeds (and is released)
    assert world._exports == 0
    with pytest.raises(BufferError, match="strided"):
        get_buffer(world._view(0), 0)  # PyBUF_SIMPLE: bytes in a row, but x and y are two arrays
    with pytest.raises(BufferError, match="not contiguous"):
        get_buffer(world._view(0), 0x0020 | 0x0018)  # PyBUF_C_CONTIGUOUS


PyBUF_WRITABLE, PyBUF_FULL_RO = 0x0001, 0x0004 | 0x0008 | 0x0018 | 0x0100


def get_buffer(obj, flags: int) -> None:
    """PyObject_GetBuffer(obj, flags) from C, released at once."""
    view = (ctypes.c_char * 256)()  # room for a Py_buffer
    ctypes.pythonapi.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    ctypes.pythonapi.PyBuffer_Release.argtypes = [ctypes.c_void_p]
    ctypes.pythonapi.PyObject_GetBuffer(obj, view, flags)  # raises the exception it sets
    ctypes.pythonapi.PyBuffer_Release(view)


def test_empty_world_views():
    world = throng.World()
    assert world.positions.shape == (0, 2) and world.ids.shape == (0,)


def test_a_view_outlives_its_world_object():
    world = small_world(n=200)
    positions = world.positions
    expected = positions.copy()
    ref = weakref.ref(world)
    del world
    gc.collect()
    assert ref() is not None  # the view holds the world
    assert np.array_equal(positions, expected)
    del positions
    gc.collect()
    assert ref() is None


def test_a_view_taken_before_steps_stays_readable():
    # The rule: a step frees nothing (the store swaps between buffers and
    # spare arrays it keeps), so a view taken before steps still points
    # into memory the world owns and uses; what it shows after a step is
    # unspecified (the old state, the new one, or scratch). Proof: the
    # old view's address is one of those the world's arrays take again in
    # later steps, i.e. the world still has that memory; none was freed.
    world = small_world(n=300)
    old = {"x": world.positions, "vx": world.velocities, "id": world.ids, "group": world.groups}
    seen = {key: set() for key in old}
    for _ in range(30):
        world.step()
        addresses = world._addresses()
        for key in old:
            seen[key].add(addresses[key])
        assert np.isfinite(old["x"]).all()
        int(old["id"].sum()), int(old["group"].sum())  # readable
    for key, view in old.items():
        assert data_pointer(view) in seen[key], key
    assert len(seen["x"]) <= 2  # the two buffers of the double-buffered state
    assert world._exports == 4


def test_exports_count_and_release():
    world = small_world(n=10)
    assert world._exports == 0
    a, b = world.positions, world.ids
    assert world._exports == 2
    del a
    assert world._exports == 1
    del b
    assert world._exports == 0


def test_a_view_outlives_a_growth_unchanged():
    # A spawn past the capacity moves every array; while a view is alive
    # the world keeps the old ones (throng_world_keep_replaced_arrays), so
    # the view reads the state before the spawn, untouched since. Under
    # the asan preset (python/tests/sanitized.sh) a read of freed memory
    # here fails the suite.
    world = small_world(n=10, capacity=10)
    view, ids = world.positions, world.ids
    expected, expected_ids = view.copy(), ids.copy()
    before = world._addresses()["x"]
    world.spawn(np.zeros((1000, 2)))  # the world grows: the arrays move
    assert len(world) == 1010 and world._addresses()["x"] != before
    assert data_pointer(view) == before
    assert np.array_equal(view, expected) and np.array_equal(ids, expected_ids)
    world.step(3)
    world.spawn(np.ones((5000, 2)))  # and again, with the view still alive
    assert np.array_equal(view, expected) and view.shape == (10, 2)
    fresh = world.positions
    assert fresh.shape == (6010, 2) and data_pointer(fresh) == world._addresses()["x"]
    del view, ids, fresh
    assert world._exports == 0
    world.step()


def test_sources_grow_the_world_while_views_live():
    # A source adds agents in steps, past the capacity of 4: the views
    # taken before stay readable (the arrays they show are kept), and the
    # world steps on with the same hash as one stepped without views.
    def run(with_views):
        world = throng.World(bounds_min=(-20, -20), bounds_max=(20, 20), capacity=4, threads=1)
        a = world.add_archetype(throng.Controller([throng.Slot("separation")]))
        world.add_source(min=(-5, -5), max=(5, 5), rate=600.0, count=200, agent=dict(archetype=a))
        held = []
        for _ in range(30):
            if with_views:
                held.append((world.positions, world.ids))
            world.step()
            for positions, ids in held:
                # Positions live in the two state buffers: finite whatever
                # step they show. An old ids view may show a reorder's
                # scratch, so only read it: under the asan preset a read of
                # freed memory fails here.
                assert np.isfinite(positions).all()
                ids.tobytes()
        assert world.agent_count > 64  # grown past 4, 8, 16, 32 and 64
        return world.hash(), world.agent_count
    assert run(True) == run(False)
    # A scene with sources steps with views alive, too.
    scene = throng.Scene.builtin("concourse", agents=300, seed=1, threads=1)
    view = scene.world.positions
    scene.step(5)
    assert scene.world.steps == 5 and view.shape == (300, 2)


def test_reading_copies_nothing():
    # NumPy reports its data allocations to tracemalloc: a copy of the
    # positions of 200,000 agents would be 1.6 MB.
    world = throng.World(bounds_min=(-500, -500), bounds_max=(500, 500), capacity=200_000, threads=1)
    world.add_archetype(throng.Controller([throng.Slot("seek")]))
    world.spawn(np.random.default_rng(1).uniform(-400, 400, size=(200_000, 2)))
    world.step()
    tracemalloc.start()
    try:
        for _ in range(100):
            total = float(world.positions[:, 0].sum()) + float(world.ids[-1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.isfinite(total)
    assert peak < 64 * 1024, peak
