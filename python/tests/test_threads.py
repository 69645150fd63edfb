# SPDX-License-Identifier: MIT
"""Steps release the GIL: two worlds stepped from two Python threads at
once give the hashes they give one after the other; one world takes one
call at a time."""

from __future__ import annotations

import threading

import throng
from conftest import small_world


def run_scene(name: str, out: dict, key: str) -> None:
    scene = throng.Scene.builtin(name, agents=1500, seed=5, threads=1)
    scene.step(150)
    out[key] = scene.hash()


def test_two_threads_give_the_sequential_hashes():
    sequential: dict = {}
    run_scene("crossing", sequential, "a")
    run_scene("flock", sequential, "b")
    parallel: dict = {}
    threads = [threading.Thread(target=run_scene, args=("crossing", parallel, "a")),
               threading.Thread(target=run_scene, args=("flock", parallel, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert parallel == sequential


def test_two_worlds_from_two_threads():
    expected = []
    for seed in (1, 2):
        world = small_world(n=400, seed=seed, threads=1)
        world.step(200)
        expected.append(world.hash())
    worlds = [small_world(n=400, seed=seed, threads=1) for seed in (1, 2)]
    threads = [threading.Thread(target=w.step, args=(200,)) for w in worlds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [w.hash() for w in worlds] == expected


def test_a_world_being_stepped_refuses_other_calls():
    world = small_world(n=3000, threads=1)
    thread = threading.Thread(target=world.step, args=(400,))
    refused = 0
    thread.start()
    while thread.is_alive():
        try:
            world.hash()
        except RuntimeError as e:
            assert "another thread" in str(e)
            refused += 1
            break
    thread.join()
    assert refused == 1  # the main thread ran while the step did: the GIL was released
    assert world.steps == 400
