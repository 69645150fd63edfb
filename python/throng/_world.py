# SPDX-License-Identifier: MIT
"""throng.World: a world of agents, made from Python (docs/PYTHON.md)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _throng
from ._arrays import _column, _pairs
from ._errors import InvalidArgument, NotFound
from ._events import _EventsMixin
from ._living import _LivingMixin
from ._outputs import _OutputsMixin
from ._types import Controller, WorldStats

# _throng._View kinds (python/src/view.c).
_POSITIONS, _VELOCITIES, _HEADINGS, _IDS, _GROUPS, _ARCHETYPES, _RADII = range(7)

_COUNTING = {"off": 0, "work": _throng.COUNT_WORK, "time": _throng.COUNT_TIME,
             "all": _throng.COUNT_WORK | _throng.COUNT_TIME}

ArrayLike = Any


class World(_LivingMixin, _EventsMixin, _OutputsMixin, _throng.World):
    """A world of agents (``throng_world``): every argument is keyword-only
    and mirrors a field of ``throng_world_def``; one left out (or None) keeps
    the library's default (``throng_world_default_def()``):

    - ``bounds_min``, ``bounds_max``: corners (x, y) in m; default (-50, -50), (50, 50)
    - ``bounds_mode``: "contain" (default), "wrap", "bounce" or "open"
    - ``dt``: the fixed step in s, in (0, 1]; default 1/60
    - ``seed``: keys every random draw; default 1
    - ``cell_size``: the grid's cell in m, 0 = from the archetypes (default)
    - ``capacity``: agents the world makes room for at first (it grows); default 1024
    - ``engine``: "simd" (default) or "scalar": the same bits
    - ``record_forces``: keep each slot's force per agent; default False
    - ``threads``: OpenMP threads of a step, 0 = OpenMP's default
    - ``threads_policy``: "adapt" (default) or "fixed"

    A bad value raises :class:`throng.InvalidArgument` (a ValueError) whose
    message names the argument; a value of the wrong type a TypeError.

    The arrays ``positions``, ``velocities``, ``headings`` (N, 2) float32,
    ``ids``, ``groups``, ``archetypes`` (N,) uint32 and ``radii`` (N,)
    float32 are read-only NumPy views of the library's own memory, in
    storage order (not id order: ``ids[k]`` is the id of row k). Take them
    anew after each step or change: see docs/PYTHON.md, "Views".
    """

    def __init__(
        self,
        *,
        bounds_min: Optional[Tuple[float, float]] = None,
        bounds_max: Optional[Tuple[float, float]] = None,
        bounds_mode: Optional[str] = None,
        dt: Optional[float] = None,
        seed: Optional[int] = None,
        cell_size: Optional[float] = None,
        capacity: Optional[int] = None,
        engine: Optional[str] = None,
        record_forces: Optional[bool] = None,
        threads: Optional[int] = None,
        threads_policy: Optional[str] = None,
    ) -> None:
        given = dict(bounds_min=bounds_min, bounds_max=bounds_max, bounds_mode=bounds_mode, dt=dt, seed=seed,
                     cell_size=cell_size, capacity=capacity, engine=engine, record_forces=record_forces,
                     threads=threads, threads_policy=threads_policy)
        super().__init__(**{k: v for k, v in given.items() if v is not None})

    def __repr__(self) -> str:
        try:
            return f"<throng.World: {self.agent_count} agents, step {self._stats['steps']}>"
        except (ValueError, RuntimeError):  # not made, or being stepped in another thread
            return "<throng.World>"

    def __len__(self) -> int:
        return self.agent_count

    def add_archetype(self, controller: Union[Controller, Dict[str, Any]]) -> int:
        """Adds an archetype with `controller` (a :class:`throng.Controller`,
        or its ``to_dict()``); returns the archetype's id (0, 1, ...)."""
        if isinstance(controller, Controller):
            controller = controller.to_dict()
        return self._add_archetype(controller)

    def spawn(
        self,
        positions: ArrayLike,
        *,
        velocities: ArrayLike = None,
        headings: ArrayLike = None,
        targets: ArrayLike = None,
        max_speed: ArrayLike = None,
        max_force: ArrayLike = None,
        radius: ArrayLike = None,
        archetype: ArrayLike = None,
        group: ArrayLike = None,
        target_agent: ArrayLike = None,
        path: ArrayLike = None,
        unit: ArrayLike = None,
    ) -> np.ndarray:
        """Adds N agents at once (``throng_world_spawn``): all, or none
        when any value is invalid (:class:`throng.InvalidArgument`, the
        message naming the field and the agent).

        ``positions``, ``velocities``, ``headings`` and ``targets`` are (N, 2)
        arrays (or one pair for every agent); ``max_speed``, ``max_force``,
        ``radius`` (float) and ``archetype``, ``group``, ``target_agent``
        (an agent id to pursue, evade or follow, or :data:`throng.NO_AGENT`),
        ``path`` (from :meth:`add_path`, or :data:`throng.NO_PATH`) and ``unit``
        (from :meth:`add_unit`, or :data:`throng.NO_UNIT`) (whole numbers)
        are N values or one. What is left out keeps
        ``throng_agent_default_def()``: at rest, heading from the velocity,
        max_speed 1.3 m/s, max_force 4 m/s^2, radius 0.3 m, archetype 0,
        group 0, target (0, 0), no target agent, no path, no unit.

        Returns the new agents' ids, a uint32 array (consecutive). A
        spawn past the capacity moves every array: views taken before it
        keep showing the old ones, with the agents before the spawn
        (docs/PYTHON.md, "Views"); take new views to see the new agents.
        """
        fn, rows = "World.spawn", "as positions"
        pos = _pairs(fn, "positions", positions, None)
        n = pos.shape[0]
        pairs = [None if v is None else _pairs(fn, name, v, n, rows)
                 for name, v in (("velocities", velocities), ("headings", headings), ("targets", targets))]
        floats = [None if v is None else _column(fn, name, v, n, False, rows)
                  for name, v in (("max_speed", max_speed), ("max_force", max_force), ("radius", radius))]
        ints = [None if v is None else _column(fn, name, v, n, True, rows)
                for name, v in (("archetype", archetype), ("group", group), ("target_agent", target_agent),
                                ("path", path), ("unit", unit))]
        first = self._spawn(n, pos, *pairs, *floats, *ints)
        return np.arange(first, first + n, dtype=np.uint32)

    # Views: zero-copy, read-only NumPy arrays of the library's memory.
    @property
    def positions(self) -> np.ndarray:
        """(N, 2) float32, m, storage order; read-only, no copy."""
        return np.asarray(self._view(_POSITIONS))

    @property
    def velocities(self) -> np.ndarray:
        """(N, 2) float32, m/s, storage order; read-only, no copy."""
        return np.asarray(self._view(_VELOCITIES))

    @property
    def headings(self) -> np.ndarray:
        """(N, 2) float32 unit vectors, storage order; read-only, no copy."""
        return np.asarray(self._view(_HEADINGS))

    @property
    def ids(self) -> np.ndarray:
        """(N,) uint32: the stable id of each row; read-only, no copy."""
        return np.asarray(self._view(_IDS))

    @property
    def groups(self) -> np.ndarray:
        """(N,) uint32 group labels, storage order; read-only, no copy."""
        return np.asarray(self._view(_GROUPS))

    @property
    def archetypes(self) -> np.ndarray:
        """(N,) uint32 archetype ids, storage order; read-only, no copy."""
        return np.asarray(self._view(_ARCHETYPES))

    @property
    def radii(self) -> np.ndarray:
        """(N,) float32 body radii (m), storage order; read-only, no copy."""
        return np.asarray(self._view(_RADII))

    def agents_by_id(self, ids: ArrayLike) -> np.ndarray:
        """The rows of the views (storage slots, int64) of the agents
        `ids`, in the order given: ``world.positions[world.agents_by_id(ids)]``
        are their positions. Valid until the next step or change, as the
        views. :class:`throng.NotFound` (a KeyError) for an id that is no
        live agent's, naming it."""
        array = np.asarray(ids)
        if array.dtype.kind not in "iu":
            raise TypeError(f"World.agents_by_id: ids: expected whole numbers, got dtype {array.dtype}")
        flat = array.reshape(-1)
        bad = np.nonzero((flat < 0) | (flat > 0xFFFFFFFF))[0]
        if bad.size:
            raise NotFound(f"World.agents_by_id: ids[{bad[0]}]: no live agent with id {flat[bad[0]]}")
        query = np.ascontiguousarray(flat, dtype=np.uint32)
        out = np.empty(query.shape, dtype=np.int64)
        self._slots_of(query, out)
        return out.reshape(array.shape)

    @property
    def stats(self) -> WorldStats:
        """Running figures (``throng_world_stats``), copied now."""
        return WorldStats(**self._stats)

    @property
    def steps(self) -> int:
        """Steps taken."""
        return self._stats["steps"]

    @property
    def counting(self) -> str:
        """What the counters count: "off" (default), "work", "time" or
        "all"; setting it clears them (``throng_world_set_counting``)."""
        bits = self._counting
        return next(name for name, value in _COUNTING.items() if value == bits)

    @counting.setter
    def counting(self, what: str) -> None:
        if what not in _COUNTING:
            raise InvalidArgument(f"World.counting: got {what!r}, expected one of: {', '.join(_COUNTING)}")
        self._counting = _COUNTING[what]

    @property
    def counters(self) -> Dict[str, Dict[str, Any]]:
        """The work (and time) of steps (``throng_world_counters``), as
        ``{"last_step": {...}, "total": {...}}``; per-behaviour and
        per-stage arrays as dicts by name. All zero while ``counting`` is
        "off"."""
        return self._counters
