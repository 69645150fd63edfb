# SPDX-License-Identifier: MIT
"""throng.World's methods for events, zones, sources and sinks, units, bodies (a mixin of throng.World)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _throng
from ._errors import InvalidArgument
from ._events_types import BODY_DTYPE, EVENT_DTYPE, Source, SourceState, UnitState, Zone

Pair = Tuple[float, float]


def _given(**values: Any) -> Dict[str, Any]:
    """The keyword arguments that were given (not None)."""
    return {k: v for k, v in values.items() if v is not None}


class _EventsMixin:
    """Methods of :class:`throng.World`: events, zones, sources and sinks, units, bodies."""

    __slots__ = ()

    # Events and bodies: copies (see events()).
    def events(self) -> np.ndarray:
        """The events listed now (``throng_world_events``): those of the
        calls made before the last step (agents added, removed), what that
        step did (agents that arrived, entered or left a zone, removed by a
        sink, added by a source, a source that waited), then those of the
        calls made since; reading it once after every step sees every
        event once. In the library's order (calls in call order; a step's
        by agent id, then kind, then zone; then sinks' removals; then
        sources').

        Returns a NumPy structured array of dtype :data:`throng.EVENT_DTYPE`
        with fields ``step`` (uint64: the step count after the step, or
        between steps for a call's event), ``kind`` (int32: an index into
        :func:`throng.event_kinds`), ``agent`` (uint32 id;
        :data:`throng.NO_AGENT` for "waited"), ``zone`` (uint32: entered,
        left, removed by a sink; else :data:`throng.NO_ZONE`), ``source``
        (uint32: added by a source, waited; else :data:`throng.NO_SOURCE`),
        ``other`` (uint32: the killer of an agent removed by combat; else
        NO_AGENT).

        A copy, not a view, and a method, not a property, to say so: the
        library keeps the list only until the next call that changes the
        world (any setter, not only those that may move the agent arrays,
        which the views' lifetime rule guards), so a view could dangle; the
        list is short, and the copy is writable and yours to keep.
        """
        return np.frombuffer(_throng._events(self), dtype=EVENT_DTYPE)

    def bodies(self) -> np.ndarray:
        """The bodies on the ground (``throng_world_bodies``): agents
        killed in combat whose archetype has a ``body_radius``, in the
        order they fell (by step, then id). A structured array of dtype
        :data:`throng.BODY_DTYPE`: ``position``, ``facing`` ((2,) float32:
        where it fell, m; the unit vector from its feet to its head),
        ``radius`` (float32, m), ``agent``, ``killer``, ``group``,
        ``archetype``, ``unit`` (:data:`throng.NO_UNIT` for none),
        ``obstacle`` (its obstacle's id) (uint32), ``step`` (uint64: the
        step count after the step it died in). A copy, for the reason
        :meth:`events` gives."""
        return np.frombuffer(_throng._bodies(self), dtype=BODY_DTYPE)

    def set_arrival_radius(self, radius: float) -> None:
        """Distance (m) from its target point within which an agent counts
        as arrived (an "arrived" event each time it comes within it after
        a step); 0, the default, lists no arrivals. 0 or in [1e-6, 1e6];
        :class:`throng.InvalidArgument` otherwise (NaN, inf included)."""
        _throng._set_arrival_radius(self, radius)

    # Zones.
    def add_zone(
        self,
        shape: str = "circle",
        *,
        center: Optional[Pair] = None,
        radius: Optional[float] = None,
        min: Optional[Pair] = None,  # noqa: A002 (the C field's name)
        max: Optional[Pair] = None,  # noqa: A002
        points: Any = None,
        name: str = "",
        sink: bool = False,
    ) -> int:
        """Adds a zone (``throng_world_add_zone``): a region whose entries
        and exits become "entered" and "left" events, tested on the agents'
        centres. `shape` is "circle" (``center``, ``radius``; default a
        circle of radius 1 m at the origin), "box" (corners ``min`` <=
        ``max``) or "polygon" (``points``: 3 to 4096 (x, y), an (N, 2)
        array, either winding). Lengths in m. ``name``: "" or a name unique
        among the world's zones (at most 31 bytes). ``sink``: an exit: an
        agent that enters it leaves the world at the end of the step
        ("entered", then "removed" with this zone). An agent inside when
        the zone is added enters it at the next step.

        Returns the zone's id (0, 1, ... in order). Raises
        :class:`throng.InvalidArgument` naming the field (an unknown shape,
        listing the valid ones; a value not finite or out of range; a name
        taken or too long; a bad polygon), TypeError for a value of the
        wrong type, :class:`throng.CapacityError`... as the library says
        (at most :data:`throng.MAX_ZONES` zones).
        """
        fields = _given(shape=shape, center=center, radius=radius, min=min, max=max, sink=sink)
        pts = None
        if points is not None:
            try:
                pts = np.ascontiguousarray(points, dtype=np.float32)
            except (TypeError, ValueError) as e:
                raise TypeError(f"World.add_zone: points: expected an (N, 2) array of numbers ({e})") from None
            if pts.ndim != 2 or pts.shape[1] != 2:
                raise InvalidArgument(f"World.add_zone: points: expected shape (N, 2), got {pts.shape}")
        return _throng._add_zone(self, fields, name, pts)

    def get_zone(self, id: int) -> Zone:  # noqa: A002
        """Zone `id` as a :class:`throng.Zone` (a renderer draws zones it
        did not add). :class:`throng.NotFound` naming the id for no such
        zone."""
        fields, name, points = _throng._get_zone(self, id)
        pts = None if points is None else np.frombuffer(points, dtype=np.float32).reshape(-1, 2).copy()
        return Zone(id=id, shape=fields["shape"], center=fields["center"], radius=fields["radius"],
                    min=fields["min"], max=fields["max"], points=pts, name=name, sink=fields["sink"])

    def find_zone(self, name: str) -> int:
        """The id of the zone called `name`; :class:`throng.NotFound`
        naming it when none is."""
        return _throng._find_zone(self, name)

    @property
    def zone_count(self) -> int:
        """Number of zones."""
        return _throng._zone_count(self)

    # Sources.
    def add_source(
        self,
        shape: str = "box",
        *,
        min: Optional[Pair] = None,  # noqa: A002
        max: Optional[Pair] = None,  # noqa: A002
        center: Optional[Pair] = None,
        radius: Optional[float] = None,
        from_: Optional[Pair] = None,
        to: Optional[Pair] = None,
        rate: Optional[float] = None,
        count: Optional[int] = None,
        start: Optional[float] = None,
        stop: Optional[float] = None,
        agent: Optional[Dict[str, Any]] = None,
        relative_target: bool = False,
        name: str = "",
    ) -> int:
        """Adds a source (``throng_world_add_source``): a region that adds
        agents while the world runs. `shape` is "box" (``min``, ``max``;
        default a 1 m box at the origin), "circle" (``center``, ``radius``)
        or "segment" (``from_``, ``to``: a door; the C field ``from``).
        Lengths in m. Its k-th agent (k = 0, 1, ...) is due at ``start`` +
        k / ``rate`` s (``rate`` agents a second, default 1; ``start``
        default 0), until it has added ``count`` (0, the default: no
        limit) or ``stop`` (s, default inf) has come; a step adds those
        due before its end, each at a random free point of the region
        ("added" events with the source's id, after the step's others).

        ``agent``: the template of its agents, a dict of
        ``throng_agent_def`` fields (velocity, heading, max_speed,
        max_force, radius, archetype, group, target, target_agent (must be
        NO_AGENT), path, unit); the default is ``throng_agent_default_def()``.
        ``relative_target``: the target is ``agent["target"]`` added to the
        point the agent appears at. ``name``: "" or a name unique among the
        sources. The region must lie inside the bounds unless they are
        open; not in a part world.

        Returns the source's id (0, 1, ...). Raises
        :class:`throng.InvalidArgument` naming the field (unknown shape,
        listing the valid ones; a value not finite or out of range),
        TypeError for an unknown field or a wrong type. A step in which
        the source adds agents past the capacity moves the arrays: views
        taken before it keep showing the old ones (docs/PYTHON.md,
        "Views").
        """
        fields = _given(shape=shape, min=min, max=max, center=center, radius=radius, to=to, rate=rate,
                        count=count, start=start, stop=stop, relative_target=relative_target)
        if from_ is not None:
            fields["from"] = from_
        return _throng._add_source(self, fields, agent, name)

    def get_source(self, id: int) -> Source:  # noqa: A002
        """Source `id` as a :class:`throng.Source`, with its progress
        (``state``: agents added, waiting, steps waited, done).
        :class:`throng.NotFound` naming the id for no such source."""
        fields, agent, name, state = _throng._get_source(self, id)
        fields["from_"] = fields.pop("from")
        return Source(id=id, name=name, agent=agent, state=SourceState(**state), **fields)

    def find_source(self, name: str) -> int:
        """The id of the source called `name`; :class:`throng.NotFound`
        naming it when none is."""
        return _throng._find_source(self, name)

    @property
    def source_count(self) -> int:
        """Number of sources."""
        return _throng._source_count(self)

    # Units.
    def add_unit(
        self,
        *,
        archetype: int = 0,
        rout_archetype: int = 0,
        army: int = 0,
        refuge: Optional[Pair] = None,
        morale: Optional[Dict[str, Any]] = None,
        formation: Optional[Dict[str, Any]] = None,
        march_archetype: int = 0,
    ) -> int:
        """Adds a unit (``throng_world_add_unit``; docs/ARMIES.md): a body
        of soldiers that breaks and runs together. Agents join it when
        they are made with its id as ``unit`` (a source's ``agent``
        template). ``archetype``: theirs in good order; ``rout_archetype``:
        theirs while it routs; ``army``: its side's label; ``refuge`` (m):
        where it runs (None: 1 km behind its facing); ``morale``: a dict of
        ``throng_morale`` fields (breaks_at, flank, rear, panic,
        panic_radius, recovery, rally_time, rally_morale, rallies,
        army_breaks_at) over the defaults; ``formation``: a dict of
        ``throng_formation`` fields (kind: "none", "line", "column",
        "square", "wedge"; files, spacing, rank_spacing, speed,
        turn_rate); ``march_archetype``: theirs while it marches in
        formation.

        Returns the unit's id (0, 1, ...). Raises :class:`throng.NotFound`
        naming the field for an archetype or rout_archetype that does not
        exist, :class:`throng.InvalidArgument` naming the field for a
        value out of range, TypeError for an unknown field or a wrong type.
        """
        fields = dict(archetype=archetype, rout_archetype=rout_archetype, army=army,
                      march_archetype=march_archetype, has_refuge=refuge is not None)
        if refuge is not None:
            fields["refuge"] = refuge
        return _throng._add_unit(self, fields, morale, formation)

    def get_unit(self, id: int) -> UnitState:  # noqa: A002
        """Unit `id` as the last step left it (a :class:`throng.UnitState`:
        live members, morale, routing, centre, order...).
        :class:`throng.NotFound` naming the id for no such unit."""
        return UnitState(id=id, **_throng._get_unit(self, id))

    def order_unit(self, id: int, kind: str, point: Pair = (0.0, 0.0)) -> None:  # noqa: A002
        """Gives unit `id` (one with a formation) an order from the next
        step on (``throng_world_order_unit``): "halt", "move" (to `point`,
        m), "turn" (to face the direction `point`, not (0, 0)), "charge"
        or "hold". :class:`throng.NotFound` for no such unit,
        :class:`throng.InvalidArgument` naming the field (an unknown kind,
        listing the valid ones; a unit without a formation; a point not
        finite; a turn towards (0, 0))."""
        _throng._order_unit(self, id, kind, point)

    @property
    def unit_count(self) -> int:
        """Number of units."""
        return _throng._unit_count(self)
