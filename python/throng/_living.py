# SPDX-License-Identifier: MIT
"""throng.World's methods for the living world: removal, the per-agent
setters, spatial queries, controllers at run time, obstacles, walls,
paths, the threat, threads and recorded forces (a mixin of throng.World;
the C side is python/src/living.c)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _throng
from ._arrays import _column, _pairs
from ._errors import InvalidArgument, NotFound
from ._types import Combat, Contact, Controller, Slot, TargetRule

ArrayLike = Any
Point = Tuple[float, float]

_U32 = 0xFFFFFFFF
_ANY = _U32  # THRONG_ANY
_NO_AGENT = _throng.NO_AGENT
_NO_PATH = _U32  # THRONG_NO_PATH

# _throng._set kinds (python/src/living.c, enum setter_kind).
(_POSITION, _VELOCITY, _HEADING, _TARGET, _TARGET_AGENT, _MAX_SPEED, _MAX_FORCE, _RADIUS, _GROUP, _ARCHETYPE,
 _HEALTH, _PATH) = range(12)
# _throng._View kinds of combat (python/src/view.c).
_VIEW_HEALTH, _VIEW_COMBAT_STATE = 7, 8


def _ids(fn: str, ids: ArrayLike, name: str = "ids") -> np.ndarray:
    """ids (one whole number or a 1-D array of them) as a C-contiguous
    uint32 array; NotFound for one that no uint32 holds (no agent has it)."""
    array = np.asarray(ids)
    if array.size == 0 and array.ndim == 1:  # [] is float64 to NumPy
        return np.zeros(0, dtype=np.uint32)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {name}: expected whole numbers, got dtype {array.dtype}")
    if array.ndim > 1:
        raise InvalidArgument(f"{fn}: {name}: expected one id or a 1-D array of ids, got shape {array.shape}")
    flat = array.reshape(-1)
    bad = np.nonzero((flat < 0) | (flat > _U32))[0]
    if bad.size:
        raise NotFound(f"{fn}: {name}[{bad[0]}]: no live agent with id {flat[bad[0]]}")
    return np.ascontiguousarray(flat, dtype=np.uint32)


def _id(fn: str, id: int) -> np.ndarray:
    """One agent id as a uint32 array of one entry."""
    if isinstance(id, (bool, np.bool_)) or not isinstance(id, (int, np.integer)):
        raise TypeError(f"{fn}: id: expected a whole number, got {type(id).__name__}")
    if not 0 <= int(id) <= _U32:
        raise NotFound(f"{fn}: id: no live agent with id {id}")
    return np.array([id], dtype=np.uint32)


def _point(fn: str, name: str, value: ArrayLike) -> Point:
    """A pair of numbers (x, y)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{fn}: {name}: expected a pair of numbers (x, y) ({e})") from None
    if array.shape != (2,):
        raise InvalidArgument(f"{fn}: {name}: expected a pair (x, y), got shape {array.shape}")
    return float(array[0]), float(array[1])


def _number(fn: str, name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{fn}: {name}: expected a number, got {type(value).__name__}")
    return float(value)


def _whole(fn: str, name: str, value: Any, most: int = _U32) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}: {name}: expected a whole number, got {type(value).__name__}")
    if not 0 <= int(value) <= most:
        raise InvalidArgument(f"{fn}: {name}: got {value}, expected 0 to {most}")
    return int(value)


def _filter(fn: str, group: Optional[int], archetype: Optional[int], exclude: Optional[int]) -> Tuple[int, int, int]:
    """A throng_query_filter: None keeps every group, every archetype, no
    agent left out."""
    return (_ANY if group is None else _whole(fn, "group", group, _U32 - 1),
            _ANY if archetype is None else _whole(fn, "archetype", archetype, _U32 - 1),
            _NO_AGENT if exclude is None else _whole(fn, "exclude", exclude, _U32 - 1))


def _controller_from_dict(d: Dict[str, Any]) -> Controller:
    """The Controller of a dict of _throng._get_controller."""
    rule = d["target_rule"]
    return Controller(
        slots=[Slot(s["kind"], s["weight"], s["enabled"], s["priority"], dict(s["params"])) for s in d["slots"]],
        mode=d["mode"],
        relaxation_time=d["relaxation_time"],
        target_rule=None if rule is None else TargetRule(**rule),
        contact=Contact(**d["contact"]),
        combat=Combat(**d["combat"]),
    )


class _LivingMixin:
    """Methods of :class:`throng.World` for the living world: removal,
    setters, spatial queries, controllers, obstacles, walls, paths, the
    threat, threads and recorded forces."""

    __slots__ = ()

    # Removal.
    def remove(self, ids: ArrayLike) -> None:
        """Removes agents between steps (``throng_world_remove_agents``):
        `ids` is one id or a 1-D array of them (no id twice). All go, or,
        when any id is not a live agent's or repeats, none does:
        :class:`throng.NotFound` (a KeyError) naming the first bad id
        ("World.remove: ids[3]: no live agent with id 99"),
        :class:`throng.InvalidArgument` for a repeated id. An empty array
        removes nothing. Ids are never given again. Agents that targeted a
        removed agent target nobody afterwards.

        Views: a removal allocates and frees nothing, so it is allowed
        while views are alive, and a view taken before it still reads the
        library's memory; but rows move: the agents after each hole move
        down (scalar engine) or the last agents fill the holes (SIMD
        engine), and the views' length is the old count. What an old view
        shows is unspecified: take the views anew ("valid until the next
        step or change", docs/PYTHON.md)."""
        array = _ids("World.remove", ids)
        if array.size == 0:
            return
        _throng._remove(self, array)

    # Setters: one agent, and the same over arrays.
    def _lv_set(self, fn: str, kind: int, ids: np.ndarray, values: np.ndarray,
             waypoints: Optional[np.ndarray] = None) -> None:
        _throng._set(self, fn, kind, ids, values, waypoints)

    def _lv_set_pairs(self, fn: str, kind: int, name: str, ids: ArrayLike, values: ArrayLike) -> None:
        array = _ids(fn, ids)
        self._lv_set(fn, kind, array, _pairs(fn, name, values, array.size))

    def _lv_set_column(self, fn: str, kind: int, name: str, ids: ArrayLike, values: ArrayLike, integer: bool) -> None:
        array = _ids(fn, ids)
        self._lv_set(fn, kind, array, _column(fn, name, values, array.size, integer))

    def _lv_set_one_pair(self, fn: str, kind: int, name: str, id: int, value: ArrayLike) -> None:
        self._lv_set(fn, kind, _id(fn, id), np.array([_point(fn, name, value)], dtype=np.float32))

    def _lv_set_one_number(self, fn: str, kind: int, name: str, id: int, value: Any, integer: bool) -> None:
        if integer:
            array = np.array([_whole(fn, name, value)], dtype=np.uint32)
        else:
            array = np.array([_number(fn, name, value)], dtype=np.float32)
        self._lv_set(fn, kind, _id(fn, id), array)

    def set_position(self, id: int, position: Point) -> None:
        """Moves (teleports) agent `id` to `position` (x, y in m;
        ``throng_world_set_position``): finite, |x|, |y| <= 1e6, inside the
        bounds unless they are open; velocity and heading are kept.
        :class:`throng.NotFound` for an id that is no live agent's,
        :class:`throng.InvalidArgument` naming the argument for a bad
        value. Like every setter it writes in place: the views show the
        new value (same memory) and stay valid."""
        self._lv_set_one_pair("World.set_position", _POSITION, "position", id, position)

    def set_positions(self, ids: ArrayLike, positions: ArrayLike) -> None:
        """Moves many agents at once: ``ids`` (N,) whole numbers,
        ``positions`` (N, 2) (or one pair for all) in m
        (``throng_world_set_positions``). All or none; errors name the
        entry ("World.set_positions: ids[2]: no live agent with id 7")."""
        self._lv_set_pairs("World.set_positions", _POSITION, "positions", ids, positions)

    def set_velocity(self, id: int, velocity: Point) -> None:
        """Sets agent `id`'s velocity (m/s): finite, no longer than its
        max_speed (refused, not limited); the heading is kept."""
        self._lv_set_one_pair("World.set_velocity", _VELOCITY, "velocity", id, velocity)

    def set_velocities(self, ids: ArrayLike, velocities: ArrayLike) -> None:
        """Sets many velocities at once ((N, 2) m/s, or one pair for all);
        all or none."""
        self._lv_set_pairs("World.set_velocities", _VELOCITY, "velocities", ids, velocities)

    def set_heading(self, id: int, heading: Point) -> None:
        """Sets agent `id`'s heading: a unit vector (within 1e-3), stored
        normalised."""
        self._lv_set_one_pair("World.set_heading", _HEADING, "heading", id, heading)

    def set_headings(self, ids: ArrayLike, headings: ArrayLike) -> None:
        """Sets many headings ((N, 2) unit vectors, or one for all); all
        or none (the agents changed before a refused one get their old
        heading back)."""
        self._lv_set_pairs("World.set_headings", _HEADING, "headings", ids, headings)

    def set_target(self, id: int, target: Point) -> None:
        """Moves agent `id`'s target point (m), for its target-point
        behaviours (seek, arrive...)."""
        self._lv_set_one_pair("World.set_target", _TARGET, "target", id, target)

    def set_targets(self, ids: ArrayLike, targets: ArrayLike) -> None:
        """Moves many target points ((N, 2) m, or one pair for all); all
        or none."""
        self._lv_set_pairs("World.set_targets", _TARGET, "targets", ids, targets)

    def set_target_agent(self, id: int, target_agent: int) -> None:
        """Sets the agent that agent `id` pursues or evades (a live
        agent's id, or ``throng.NO_AGENT`` for none)."""
        self._lv_set_one_number("World.set_target_agent", _TARGET_AGENT, "target_agent", id, target_agent, True)

    def set_target_agents(self, ids: ArrayLike, target_agents: ArrayLike) -> None:
        """Sets many target agents ((N,) ids or ``throng.NO_AGENT``, or
        one for all); all or none."""
        self._lv_set_column("World.set_target_agents", _TARGET_AGENT, "target_agents", ids, target_agents, True)

    def set_max_speed(self, id: int, max_speed: float) -> None:
        """Changes agent `id`'s top speed (m/s, in [1e-6, 1e6]); a faster
        velocity is scaled down to it, its direction kept."""
        self._lv_set_one_number("World.set_max_speed", _MAX_SPEED, "max_speed", id, max_speed, False)

    def set_max_speeds(self, ids: ArrayLike, max_speeds: ArrayLike) -> None:
        """Changes many top speeds ((N,) m/s, or one for all); all or
        none (an agent put back also gets its old velocity back)."""
        self._lv_set_column("World.set_max_speeds", _MAX_SPEED, "max_speeds", ids, max_speeds, False)

    def set_max_force(self, id: int, max_force: float) -> None:
        """Changes agent `id`'s steering limit (m/s^2, in [1e-6, 1e6])."""
        self._lv_set_one_number("World.set_max_force", _MAX_FORCE, "max_force", id, max_force, False)

    def set_max_forces(self, ids: ArrayLike, max_forces: ArrayLike) -> None:
        """Changes many steering limits ((N,) m/s^2, or one for all); all
        or none."""
        self._lv_set_column("World.set_max_forces", _MAX_FORCE, "max_forces", ids, max_forces, False)

    def set_radius(self, id: int, radius: float) -> None:
        """Changes agent `id`'s body radius (m, in [1e-6, 1e6])."""
        self._lv_set_one_number("World.set_radius", _RADIUS, "radius", id, radius, False)

    def set_radii(self, ids: ArrayLike, radii: ArrayLike) -> None:
        """Changes many body radii ((N,) m, or one for all); all or none."""
        self._lv_set_column("World.set_radii", _RADIUS, "radii", ids, radii, False)

    def set_group(self, id: int, group: int) -> None:
        """Changes agent `id`'s group label (0 to 4294967295)."""
        self._lv_set_one_number("World.set_group", _GROUP, "group", id, group, True)

    def set_groups(self, ids: ArrayLike, groups: ArrayLike) -> None:
        """Changes many group labels ((N,), or one for all)."""
        self._lv_set_column("World.set_groups", _GROUP, "groups", ids, groups, True)

    def set_archetype(self, id: int, archetype: int) -> None:
        """Gives agent `id` another archetype (its behaviours from the next
        step); :class:`throng.NotFound` for an archetype that does not
        exist. Its health: kept when both archetypes have combat, the new
        one's starting health when only it has, 0 when it has none."""
        self._lv_set_one_number("World.set_archetype", _ARCHETYPE, "archetype", id, archetype, True)

    def set_archetypes(self, ids: ArrayLike, archetypes: ArrayLike) -> None:
        """Gives many agents another archetype ((N,), or one for all); all
        or none."""
        self._lv_set_column("World.set_archetypes", _ARCHETYPE, "archetypes", ids, archetypes, True)

    def set_health(self, id: int, health: float) -> None:
        """Sets agent `id`'s health (combat): in (0, 1e6], and only for an
        agent whose archetype has combat (:class:`throng.InvalidArgument`
        otherwise; to take an agent out, remove it)."""
        self._lv_set_one_number("World.set_health", _HEALTH, "health", id, health, False)

    def set_healths(self, ids: ArrayLike, healths: ArrayLike) -> None:
        """Sets many healths ((N,), or one for all); all or none."""
        self._lv_set_column("World.set_healths", _HEALTH, "healths", ids, healths, False)

    def set_path(self, id: int, path: int, waypoint: int = 0) -> None:
        """Puts agent `id` on path `path` (an id of :meth:`add_path`, or
        ``None`` for no path), heading for its waypoint `waypoint`."""
        fn = "World.set_path"
        p = _NO_PATH if path is None else _whole(fn, "path", path)
        self._lv_set(fn, _PATH, _id(fn, id), np.array([p], dtype=np.uint32),
                  np.array([_whole(fn, "waypoint", waypoint)], dtype=np.uint32))

    def set_paths(self, ids: ArrayLike, paths: ArrayLike, waypoints: ArrayLike = 0) -> None:
        """Puts many agents on paths ((N,) path ids, or one for all;
        4294967295 for none) heading for `waypoints` ((N,) or one); all or
        none."""
        fn = "World.set_paths"
        array = _ids(fn, ids)
        self._lv_set(fn, _PATH, array, _column(fn, "paths", paths, array.size, True),
                  _column(fn, "waypoints", waypoints, array.size, True))

    # Spatial queries (throng/query.h).
    def _lv_grow(self, call: Any) -> np.ndarray:
        """Runs call(out) with an out buffer large enough for the total."""
        out = np.empty(64, dtype=np.uint32)
        total = call(out)
        if total > out.size:
            out = np.empty(total, dtype=np.uint32)
            total = call(out)
        return out[:total].copy() if total < out.size else out

    def query_radius(self, center: Point, radius: float, *, group: Optional[int] = None,
                     archetype: Optional[int] = None, exclude: Optional[int] = None) -> np.ndarray:
        """The ids (uint32 array) of the agents whose centre lies within
        `radius` (m, finite, >= 0) of `center` (x, y in m), the circle
        included, nearest first (by squared distance, then id). In a wrap
        world, distances go to each agent's nearest image.

        Filter: `group`, `archetype` (None: any) and `exclude` (an agent
        id left out, typically the one asking). :class:`throng.NotFound`
        for an archetype that does not exist, :class:`throng.InvalidArgument`
        for a non-finite centre or a bad radius."""
        fn = "World.query_radius"
        cx, cy = _point(fn, "center", center)
        r = _number(fn, "radius", radius)
        f = _filter(fn, group, archetype, exclude)
        return self._lv_grow(lambda out: _throng._query_radius(self, cx, cy, r, *f, out))

    def query_box(self, lo: Point, hi: Point, *, group: Optional[int] = None, archetype: Optional[int] = None,
                  exclude: Optional[int] = None) -> np.ndarray:
        """The ids (uint32, increasing) of the agents whose centre lies in
        the box lo <= p <= hi (m; the edges belong to it). Filter as
        :meth:`query_radius`; :class:`throng.InvalidArgument` when lo > hi
        on an axis or a corner is not finite."""
        fn = "World.query_box"
        lx, ly = _point(fn, "lo", lo)
        hx, hy = _point(fn, "hi", hi)
        f = _filter(fn, group, archetype, exclude)
        return self._lv_grow(lambda out: _throng._query_box(self, lx, ly, hx, hy, *f, out))

    def query_polygon(self, points: ArrayLike, *, group: Optional[int] = None, archetype: Optional[int] = None,
                      exclude: Optional[int] = None) -> np.ndarray:
        """The ids (uint32, increasing) of the agents whose centre lies in
        the polygon `points` ((n, 2) m, 3 to 4096 points, either winding;
        the last joins the first; even-odd rule). On the boundary: left
        and bottom edges are in, right and top edges out. Filter as
        :meth:`query_radius`."""
        fn = "World.query_polygon"
        poly = _pairs(fn, "points", points, None)
        f = _filter(fn, group, archetype, exclude)
        return self._lv_grow(lambda out: _throng._query_polygon(self, poly, *f, out))

    def query_nearest(self, point: Point, k: int, *, group: Optional[int] = None, archetype: Optional[int] = None,
                      exclude: Optional[int] = None) -> np.ndarray:
        """The ids (uint32) of the `k` (>= 1) agents nearest to `point` (m),
        nearest first (ties by id); fewer when fewer agents match. Filter
        as :meth:`query_radius`."""
        fn = "World.query_nearest"
        px, py = _point(fn, "point", point)
        count = _whole(fn, "k", k)
        f = _filter(fn, group, archetype, exclude)
        # No more can match than there are agents: a k of 2**32 - 1 asks
        # for no 16 GiB buffer. k 0 goes to the library as it is (refused).
        room = min(count, max(self.agent_count, 1)) if count > 0 else 0
        out = np.empty(room, dtype=np.uint32)
        total = _throng._query_nearest(self, px, py, room, *f, out)
        if total < room:
            out.resize(total, refcheck=False)  # in place: no view keeps a larger buffer alive
        return out

    def query_radius_batch(self, centers: ArrayLike, radius: float, *, per_query: Optional[int] = None,
                           group: Optional[int] = None, archetype: Optional[int] = None,
                           exclude: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """:meth:`query_radius` around each of the M `centers` ((M, 2) m),
        with one radius and filter. Returns ``(ids, totals)``: ids a
        (M, per_query) uint32 array, row q holding query q's nearest agents
        first and ``throng.NO_AGENT`` after its last; totals (M,) uint32,
        the agents each query matched (more than per_query when cut).
        per_query None: as many as the largest total (nothing is cut). Every
        centre is checked before any query runs."""
        fn = "World.query_radius_batch"
        pts = _pairs(fn, "centers", centers, None)
        r = _number(fn, "radius", radius)
        f = _filter(fn, group, archetype, exclude)
        totals = np.zeros(pts.shape[0], dtype=np.uint32)
        if per_query is None:
            _throng._query_batch(self, False, pts, r, 0, *f, np.empty((pts.shape[0], 0), np.uint32), totals)
            per = int(totals.max()) if totals.size else 0
        else:
            per = _whole(fn, "per_query", per_query)
        ids = np.full((pts.shape[0], per), _NO_AGENT, dtype=np.uint32)
        _throng._query_batch(self, False, pts, r, per, *f, ids, totals)
        return ids, totals

    def query_nearest_batch(self, points: ArrayLike, k: int, *, group: Optional[int] = None,
                            archetype: Optional[int] = None,
                            exclude: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """:meth:`query_nearest` from each of the M `points` ((M, 2) m).
        Returns ``(ids, totals)``: ids (M, k) uint32, nearest first,
        ``throng.NO_AGENT`` past each row's total; totals (M,) uint32."""
        fn = "World.query_nearest_batch"
        pts = _pairs(fn, "points", points, None)
        count = _whole(fn, "k", k)
        f = _filter(fn, group, archetype, exclude)
        totals = np.zeros(pts.shape[0], dtype=np.uint32)
        ids = np.full((pts.shape[0], count), _NO_AGENT, dtype=np.uint32)
        _throng._query_batch(self, True, pts, 0.0, count, *f, ids, totals)
        return ids, totals

    # Controllers at run time.
    def get_controller(self, archetype: int) -> Controller:
        """A copy of archetype `archetype`'s controller, as a
        :class:`throng.Controller` (each slot's params: those that differ
        from its kind's defaults; target_rule None when off).
        :class:`throng.NotFound` for an archetype that does not exist."""
        fn = "World.get_controller"
        return _controller_from_dict(_throng._get_controller(self, _whole(fn, "archetype", archetype)))

    def set_controller(self, archetype: int, controller: Union[Controller, Dict[str, Any]]) -> None:
        """Replaces archetype `archetype`'s controller (weights, slots,
        mode) from the next step on; `controller` a
        :class:`throng.Controller` or its ``to_dict()``."""
        fn = "World.set_controller"
        if isinstance(controller, Controller):
            controller = controller.to_dict()
        _throng._set_controller(self, _whole(fn, "archetype", archetype), controller)

    # Obstacles, walls, paths, the threat.
    def add_obstacle(self, center: Point, radius: float) -> int:
        """Adds a circular obstacle (centre (x, y) in m, radius in
        [1e-6, 1e6] m); returns its id (0, 1, ...)."""
        fn = "World.add_obstacle"
        cx, cy = _point(fn, "center", center)
        return _throng._add_obstacle(self, cx, cy, _number(fn, "radius", radius))

    def get_obstacle(self, id: int) -> Tuple[Point, float]:
        """Obstacle `id`'s ``((x, y), radius)`` in m (float32 values);
        :class:`throng.NotFound` past :attr:`obstacle_count`."""
        return _throng._get_obstacle(self, _whole("World.get_obstacle", "id", id))

    def set_obstacle(self, id: int, center: Point, radius: float) -> None:
        """Moves or resizes obstacle `id` (centre in m, radius in m)."""
        fn = "World.set_obstacle"
        cx, cy = _point(fn, "center", center)
        _throng._set_obstacle(self, _whole(fn, "id", id), cx, cy, _number(fn, "radius", radius))

    @property
    def obstacle_count(self) -> int:
        """Number of obstacles (bodies left by combat included)."""
        return _throng._counts(self)[0]

    def add_wall(self, a: Point, b: Point) -> int:
        """Adds a wall segment from `a` to `b` (m; not of zero length);
        returns its id (0, 1, ...)."""
        fn = "World.add_wall"
        ax, ay = _point(fn, "a", a)
        bx, by = _point(fn, "b", b)
        return _throng._add_wall(self, ax, ay, bx, by)

    def get_wall(self, id: int) -> Tuple[Point, Point]:
        """Wall `id`'s end points ``((ax, ay), (bx, by))`` in m;
        :class:`throng.NotFound` past :attr:`wall_count`."""
        return _throng._get_wall(self, _whole("World.get_wall", "id", id))

    @property
    def wall_count(self) -> int:
        """Number of walls."""
        return _throng._counts(self)[1]

    def add_path(self, points: ArrayLike, *, loop: bool = False) -> int:
        """Adds a path of waypoints ((n, 2) m, 1 to 4096 points, copied);
        a looping path goes back to its first waypoint after the last.
        Returns its id, for :meth:`set_path`."""
        return _throng._add_path(self, _pairs("World.add_path", "points", points, None), bool(loop))

    @property
    def path_count(self) -> int:
        """Number of paths."""
        return _throng._counts(self)[2]

    def set_threat(self, position: Point, velocity: Point = (0.0, 0.0), *, active: bool = True) -> None:
        """Sets the threat point (position in m, velocity in m/s) the
        threat-target slots flee or evade; ``active=False`` makes them
        return zero force."""
        fn = "World.set_threat"
        px, py = _point(fn, "position", position)
        vx, vy = _point(fn, "velocity", velocity)
        _throng._set_threat(self, px, py, vx, vy, bool(active))

    def set_threads(self, threads: int, policy: str = "adapt") -> None:
        """Changes how many OpenMP threads the world's steps use (0:
        OpenMP's default, at most 1024) and the policy ("adapt" or
        "fixed"), from the next step on; no bit of a step depends on
        either. :class:`throng.InvalidArgument` for a bad value."""
        fn = "World.set_threads"
        if not isinstance(policy, str):
            raise TypeError(f"{fn}: policy: expected 'adapt' or 'fixed', got {type(policy).__name__}")
        _throng._set_threads(self, _whole(fn, "threads", threads), policy)

    # Views of combat (python/src/view.c kinds 7 and 8).
    @property
    def healths(self) -> np.ndarray:
        """(N,) float32: each agent's health (combat; 0 for an agent whose
        archetype has none), storage order; a read-only view without a
        copy, with the lifetime of :attr:`positions` (docs/PYTHON.md,
        "Views")."""
        return np.asarray(self._view(_VIEW_HEALTH))

    @property
    def combat_states(self) -> np.ndarray:
        """(N,) uint32: what the last step did to each agent in combat
        (``THRONG_COMBAT_*`` bits: struck 1, hit 2, routing 4), storage
        order; a read-only view, as :attr:`healths`."""
        return np.asarray(self._view(_VIEW_COMBAT_STATE))

    # Recorded forces (World(record_forces=True)).
    def _lv_forces(self, fn: str, ids: ArrayLike, slot: int) -> np.ndarray:
        array = _ids(fn, ids)
        out = np.empty((array.size, 2), dtype=np.float32)
        _throng._forces(self, array, slot, out)
        return out

    def slot_force(self, ids: ArrayLike, slot: int) -> np.ndarray:
        """The force (N, 2) float32 that slot `slot` of each agent's
        archetype produced in the last step, before weighting (zero for a
        disabled slot), for the agents `ids` in the order given. Needs
        ``World(record_forces=True)`` (:class:`throng.Unsupported`
        otherwise); :class:`throng.NotFound` for an id that is no live
        agent's or a slot the archetype lacks."""
        fn = "World.slot_force"
        return self._lv_forces(fn, ids, _whole(fn, "slot", slot))

    def total_force(self, ids: ArrayLike) -> np.ndarray:
        """The blended force (N, 2) float32 each agent's controller
        returned in the last step, for the agents `ids` in the order given.
        Needs ``World(record_forces=True)`` (:class:`throng.Unsupported`
        otherwise)."""
        return self._lv_forces("World.total_force", ids, -1)
