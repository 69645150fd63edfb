# SPDX-License-Identifier: MIT
"""Steps release the GIL: two worlds stepped from two Python threads at
once give the hashes they give one after the other; one world takes one
call at a time."""

from __future__ import annotations

import sys
import threading
import time

import pytest

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


class StepsWhenConverted:
    """A number whose conversion (__float__, __index__) starts a step of
    `world` in another thread and returns only once that step runs: the
    conversion of an argument lets a step begin, as any Python code there
    may. The world stays busy until the main thread lets go of the GIL
    (the step takes it back before clearing the flag), and a long switch
    interval (the caller's) keeps the main thread from letting go on its
    own: so the call that converted this number meets a busy world, every
    time."""

    def __init__(self, world: throng.World, value: float) -> None:
        self.world = world
        self.value = value
        self.thread: threading.Thread = None  # type: ignore[assignment]

    def _start_a_step(self) -> None:
        steps = 20
        while True:
            thread = threading.Thread(target=self.world.step, args=(steps,))
            thread.start()
            while thread.is_alive():
                try:
                    self.world.hash()
                except RuntimeError:
                    self.thread = thread
                    return
                time.sleep(0.0002)
            thread.join()
            steps *= 4  # the step ended before it was seen: a longer one

    def __float__(self) -> float:
        self._start_a_step()
        return float(self.value)

    def __index__(self) -> int:
        self._start_a_step()
        return int(self.value)


def busy_world() -> tuple:
    world = small_world(n=1500, threads=1)
    archetype = 0
    world.add_zone("circle", center=(0.0, 0.0), radius=1.0, name="z")
    world.add_source("box", min=(-1.0, -1.0), max=(1.0, 1.0), rate=0.001, name="s")
    world.add_unit(archetype=archetype, formation={"kind": "line"})
    return world, archetype


def controller_dict(weight) -> dict:
    d = throng.Controller([throng.Slot("separation")]).to_dict()
    d["slots"][0]["weight"] = weight
    return d


ARGUMENT_SITES = {
    "set_arrival_radius": lambda w, a, x: w.set_arrival_radius(x),
    "add_zone": lambda w, a, x: w.add_zone("circle", center=(5.0, 5.0), radius=x),
    "get_zone": lambda w, a, x: w.get_zone(x),
    "add_source": lambda w, a, x: w.add_source("box", rate=x),
    "add_source agent": lambda w, a, x: w.add_source("box", agent={"radius": x}),
    "get_source": lambda w, a, x: w.get_source(x),
    "add_unit morale": lambda w, a, x: w.add_unit(morale={"breaks_at": x}),
    "get_unit": lambda w, a, x: w.get_unit(x),
    "order_unit id": lambda w, a, x: w.order_unit(x, "move", (1.0, 1.0)),
    "order_unit point": lambda w, a, x: w.order_unit(0, "move", (x, 1.0)),
    "set_controller": lambda w, a, x: w.set_controller(a, controller_dict(x)),
}


@pytest.mark.parametrize("site", sorted(ARGUMENT_SITES))
def test_a_step_started_while_an_argument_converts_is_refused(site):
    # The world is checked after the arguments are converted, just before
    # the library is called: a step that began during a conversion is met
    # (RuntimeError), not run beside (docs/PYTHON.md, threads).
    world, archetype = busy_world()
    value = 0 if site.startswith(("get_", "order_unit id")) else 0.5
    number = StepsWhenConverted(world, value)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        with pytest.raises(RuntimeError, match="another thread"):
            ARGUMENT_SITES[site](world, archetype, number)
    finally:
        sys.setswitchinterval(interval)
        if number.thread is not None:
            number.thread.join()
    assert number.thread is not None  # the conversion ran, and a step with it
    world.step()  # the world is whole and free again
