# SPDX-License-Identifier: MIT
"""Plain Python objects for the library's structs: a controller and its
slots, target rule, contacts and combat (``throng/behavior.h``), and the
world's running figures (``throng_world_stats``). Every default is read
from the C library when the package is imported, so it is the library's."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _throng

_DEFAULTS = _throng._defaults()


def default_params() -> Dict[str, Any]:
    """Every behaviour parameter (``throng_behavior_params``) at its
    library default, by name: the keys :attr:`Slot.params` takes."""
    return dict(_DEFAULTS["params"])


@dataclass
class Slot:
    """One entry of a controller: a behaviour by name ("seek", "arrive",
    "separation", ... as ``throng_behavior_kind_name`` gives them), its
    weight, whether it is enabled, whether it is a priority slot (hybrid
    blend) or an interaction (relaxation blend), and the parameters that
    differ from the library's defaults, by name (``default_params()``
    lists them: ``{"slow_radius": 5.0}``)."""

    kind: str
    weight: float = _DEFAULTS["slot_weight"]
    enabled: bool = _DEFAULTS["slot_enabled"]
    priority: bool = _DEFAULTS["slot_priority"]
    params: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, kind: str, weight: float = 1.0, enabled: bool = True, priority: bool = False, **params: Any) -> "Slot":
        """``Slot.make("arrive", slow_radius=5.0)``: the parameters as
        keyword arguments."""
        return cls(kind, weight, enabled, priority, dict(params))

    def to_dict(self) -> Dict[str, Any]:
        """The slot as the dict the C library reads (params by name)."""
        return {"kind": self.kind, "weight": self.weight, "enabled": self.enabled, "priority": self.priority,
                "params": dict(self.params)}


def _struct(name: str, doc: str, values: Dict[str, Any]) -> type:
    """A dataclass whose fields are the library's struct fields, in order,
    each defaulting to the library's value."""
    fields = [(key, type(value), field(default=value)) for key, value in values.items()]

    def to_dict(self: Any) -> Dict[str, Any]:
        """The fields as the dict the C library reads, by name."""
        return dataclasses.asdict(self)

    cls = dataclasses.make_dataclass(name, fields, namespace={"to_dict": to_dict})
    cls.__doc__ = doc + "\n\nFields and defaults: " + ", ".join(f"{k}={v!r}" for k, v in values.items()) + "."
    cls.__module__ = "throng"
    return cls


TargetRule = _struct(
    "TargetRule",
    "Target selection (``throng_target_rule``): every `every` steps each agent takes as its target agent the "
    "nearest agent of group `group` within `sight_radius`. A controller with a TargetRule has it enabled "
    "unless it says enabled=False.",
    {**_DEFAULTS["target_rule"], "enabled": True},
)
Contact = _struct("Contact", "Solid contacts between agents (``throng_contact``).", _DEFAULTS["contact"])
Combat = _struct("Combat", "Health, armour and an attack (``throng_combat``, docs/ARMIES.md).", _DEFAULTS["combat"])


@dataclass
class Controller:
    """An archetype's controller (``throng_controller``): ordered slots and
    a blend mode ("weighted", "priority", "hybrid", "relaxation"), with an
    optional target rule, contacts (on by default) and combat (off)."""

    slots: List[Slot] = field(default_factory=list)
    mode: str = "weighted"
    relaxation_time: float = _DEFAULTS["relaxation_time"]
    target_rule: Optional[Any] = None
    contact: Any = field(default_factory=lambda: Contact())
    combat: Any = field(default_factory=lambda: Combat())

    def to_dict(self) -> Dict[str, Any]:
        """The dict World.add_archetype hands to the C library."""

        def as_dict(value: Any) -> Any:
            if value is None or isinstance(value, dict):
                return value
            return value.to_dict()

        return {
            "mode": self.mode,
            "relaxation_time": self.relaxation_time,
            "slots": [slot.to_dict() if isinstance(slot, Slot) else slot for slot in self.slots],
            "target_rule": as_dict(self.target_rule),
            "contact": as_dict(self.contact),
            "combat": as_dict(self.combat),
        }


@dataclass(frozen=True)
class WorldStats:
    """Running figures the world keeps while it steps
    (``throng_world_stats``; include/throng/throng.h describes each)."""

    steps: int
    max_speed_ratio: float
    nonfinite: int
    clamped: int
    neighbor_candidates: int
    neighbor_most_candidates: int
    neighbor_most_met: int
    neighbor_capped: int
    target_most_candidates: int
    target_capped: int
    contacts: int
    contact_capped: int
    contact_iterations: int
    shape_pushes: int
    shape_reverts: int
    threads_last: int
    steps_one_thread: int
    agents_added: int
    agents_removed: int
    agents_peak: int


@dataclass(frozen=True)
class ScenarioInfo:
    """A built-in scenario, as ``throng list`` shows it."""

    name: str
    description: str
    default_agents: int
    default_steps: int
