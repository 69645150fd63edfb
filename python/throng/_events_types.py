# SPDX-License-Identifier: MIT
"""Types of events, zones, sources, units and bodies (docs/PYTHON.md,
"Events, zones, sources, units"): the NumPy dtypes of the event and body
lists, the enum names, and the dataclasses get_zone, get_source and
get_unit return."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _throng

_NAMES = _throng._names()
_LAYOUTS = _throng._layouts()

#: "No zone": the ``zone`` of an event that concerns none.
NO_ZONE: int = _NAMES["NO_ZONE"]
#: "No source": the ``source`` of an event that concerns none.
NO_SOURCE: int = _NAMES["NO_SOURCE"]
#: "No unit": an agent's or a body's ``unit`` when it belongs to none.
NO_UNIT: int = _NAMES["NO_UNIT"]
#: Most zones, most sources a world holds.
MAX_ZONES: int = _NAMES["MAX_ZONES"]
MAX_SOURCES: int = _NAMES["MAX_SOURCES"]


def _dtype(layout: Dict[str, int], formats: Dict[str, Any]) -> np.dtype:
    names = list(formats)
    return np.dtype({"names": names, "formats": [formats[n] for n in names],
                     "offsets": [layout[n] for n in names], "itemsize": layout["itemsize"]})


#: The dtype of :meth:`throng.World.events`: the C struct ``throng_event``
#: field for field (same offsets and itemsize).
EVENT_DTYPE: np.dtype = _dtype(_LAYOUTS["event"], {
    "step": np.uint64, "kind": np.int32, "agent": np.uint32, "zone": np.uint32, "source": np.uint32,
    "other": np.uint32})

#: The dtype of :meth:`throng.World.bodies`: the C struct ``throng_body``.
BODY_DTYPE: np.dtype = _dtype(_LAYOUTS["body"], {
    "position": (np.float32, (2,)), "facing": (np.float32, (2,)), "radius": np.float32, "agent": np.uint32,
    "killer": np.uint32, "group": np.uint32, "archetype": np.uint32, "unit": np.uint32, "obstacle": np.uint32,
    "step": np.uint64})

_EVENT_KINDS: Tuple[str, ...] = tuple(_NAMES["event_kinds"])
ZONE_SHAPES: Tuple[str, ...] = tuple(_NAMES["zone_shapes"])
SOURCE_SHAPES: Tuple[str, ...] = tuple(_NAMES["source_shapes"])
FORMATION_KINDS: Tuple[str, ...] = tuple(_NAMES["formation_kinds"])
ORDER_KINDS: Tuple[str, ...] = tuple(_NAMES["order_kinds"])


def event_kinds() -> Tuple[str, ...]:
    """The names of the event kinds, indexed by the ``kind`` field of
    :meth:`throng.World.events`: ``("added", "removed", "arrived",
    "entered", "left", "waited")`` (``throng_event_kind_name``)."""
    return _EVENT_KINDS


def event_kind(name: str) -> int:
    """The ``kind`` value of the event kind `name` (``event_kinds().index``);
    :class:`throng.InvalidArgument` listing the names for any other."""
    from ._errors import InvalidArgument
    try:
        return _EVENT_KINDS.index(name)
    except ValueError:
        raise InvalidArgument(f"throng.event_kind: name: unknown event kind {name!r} "
                              f"(expected one of: {', '.join(_EVENT_KINDS)})") from None





@dataclasses.dataclass(frozen=True)
class Zone:
    """A zone as the world holds it (``throng_zone_def``; World.get_zone).
    Lengths in m. Only the fields of its ``shape`` mean anything: circle
    ``center``, ``radius``; box ``min``, ``max``; polygon ``points``, an
    (N, 2) float32 array (None for the other shapes)."""

    id: int
    shape: str
    center: Tuple[float, float]
    radius: float
    min: Tuple[float, float]
    max: Tuple[float, float]
    points: Optional[np.ndarray]
    name: str
    sink: bool


@dataclasses.dataclass(frozen=True)
class SourceState:
    """What a source has done so far (``throng_source_state``)."""

    added: int
    waiting: int
    waited_steps: int
    done: bool


@dataclasses.dataclass(frozen=True)
class Source:
    """A source as the world holds it (``throng_source_def``;
    World.get_source) with its progress (``state``). ``from_`` is the C
    field ``from``. ``agent`` is the template of its agents as a dict of
    ``throng_agent_def`` fields (no ``position``: the source draws it)."""

    id: int
    shape: str
    min: Tuple[float, float]
    max: Tuple[float, float]
    center: Tuple[float, float]
    radius: float
    from_: Tuple[float, float]
    to: Tuple[float, float]
    rate: float
    count: int
    start: float
    stop: float
    relative_target: bool
    name: str
    agent: Dict[str, Any]
    state: SourceState


@dataclasses.dataclass(frozen=True)
class UnitState:
    """A unit as the last step left it (``throng_unit_state``;
    World.get_unit). ``order`` is the order's kind ("halt", "move", "turn",
    "charge", "hold"), ``order_point`` its point; ``routed_step`` is
    2**64 - 1 for a unit that never routed."""

    id: int
    count: int
    most: int
    morale: float
    shock: float
    routing: bool
    rallies_left: int
    routed_step: int
    killed: int
    centre: Tuple[float, float]
    facing: Tuple[float, float]
    refuge: Tuple[float, float]
    order: str
    order_point: Tuple[float, float]
    charging: bool
    anchor: Tuple[float, float]
    heading: Tuple[float, float]


def _controller(d: Dict[str, Any]) -> Any:
    """A throng.Controller from the C side's dict; slot params that equal
    the library's defaults are left out, as Slot.make leaves them."""
    from ._types import Combat, Contact, Controller, Slot, TargetRule, default_params
    defaults = default_params()
    slots = [Slot(s["kind"], s["weight"], s["enabled"], s["priority"],
                  {k: v for k, v in s["params"].items() if v != defaults[k]}) for s in d["slots"]]
    rule = None if d["target_rule"] is None else TargetRule(**d["target_rule"])
    return Controller(slots, mode=d["mode"], relaxation_time=d["relaxation_time"], target_rule=rule,
                      contact=Contact(**d["contact"]), combat=Combat(**d["combat"]))


def _as_dict(fighting: Any, fn: str) -> Dict[str, Any]:
    from ._types import Controller
    if isinstance(fighting, Controller):
        return fighting.to_dict()
    if isinstance(fighting, dict):
        return fighting
    raise TypeError(f"throng.{fn}: fighting: expected a throng.Controller, got {type(fighting).__name__}")


def formation_controller(fighting: Any) -> Any:
    """The marching controller made from a fighting one
    (``throng_controller_formation``), for a unit's ``march_archetype``:
    the same blend, contact, combat and target rule, every slot that
    steers by a target agent, the threat or the target point dropped, and
    an "arrive" at the target point (the soldier's slot) added, weight 1,
    slowing within 1 m. `fighting` is a :class:`throng.Controller` (or its
    ``to_dict()``); returns a new :class:`throng.Controller`. A bad
    controller raises as World.add_archetype does."""
    return _controller(_throng._controller_formation(_as_dict(fighting, "formation_controller")))


def routing_controller(fighting: Any) -> Any:
    """The routing controller made from a fighting one
    (``throng_controller_routing``), for a unit's ``rout_archetype``: the
    same blend, contact and combat, no attack and no target rule; every
    slot that steers by a target agent, the threat or the target point
    dropped; and a "seek" to the target point (the refuge) added,
    weight 1. Arguments and result as :func:`formation_controller`."""
    return _controller(_throng._controller_routing(_as_dict(fighting, "routing_controller")))
