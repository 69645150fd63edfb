# SPDX-License-Identifier: MIT
"""throng: a crowd simulator (Reynolds' steering behaviours) from Python.

    >>> import throng
    >>> scene = throng.Scene.builtin("crossing", agents=400, seed=1)
    >>> scene.step(600)
    >>> scene.world.positions.shape         # a read-only view, no copy
    (400, 2)

The package is a thin layer over the C library (``include/throng/``)
through its extension module ``throng._throng``; docs/PYTHON.md is the
guide: install, a first session, the classes, the lifetime of the NumPy
views, errors.

Classes: :class:`World` (with the living world, events, zones,
sources, units and bodies as its methods), :class:`Scene`,
:class:`Controller`, :class:`Slot`, :class:`TargetRule`,
:class:`Contact`, :class:`Combat`, :class:`WorldStats`,
:class:`ScenarioInfo`; outputs: :class:`Writer`, :class:`StreamReader`,
:func:`read_stream`, :func:`read_csv`, :func:`read_sqlite`, :class:`Metrics`, :class:`Measure`, :class:`Feed`,
:class:`FeedReader`. Errors: :class:`Error` and its subclasses
:class:`InvalidArgument` (ValueError), :class:`NotFound` (KeyError),
:class:`FileError` (OSError), :class:`CapacityError`,
:class:`OutOfMemory`, :class:`Unsupported`, :class:`CorruptData`;
warnings: :class:`ScenarioWarning`.
"""

from __future__ import annotations

from . import _throng
from ._errors import (CapacityError, CorruptData, Error, FileError, InvalidArgument, NotFound, OutOfMemory,
                      ScenarioWarning, Unsupported, ERRORS as _ERRORS)
from ._events_types import (BODY_DTYPE, EVENT_DTYPE, MAX_SOURCES, MAX_ZONES, NO_SOURCE, NO_UNIT, NO_ZONE, Source,
                            SourceState, UnitState, Zone, event_kind, event_kinds, formation_controller,
                            routing_controller)
from ._feed import Feed, FeedReader
from ._io import (FIELDS, FORMATS, Frame, Metrics, Stream, StreamInfo, StreamReader, Writer, load_scene_checkpoint,
                  read_stream, save_scene_checkpoint, scene_checkpoint_bytes, scene_goal_radius, scene_measure,
                  scene_outcomes)
from ._measure import CROSSING_DTYPE, SAMPLE_DTYPE, Measure
from ._scene import Scene, scenarios
from ._tables import SQLITE_DTYPE, SqliteRun, read_csv, read_sqlite
from ._types import Combat, Contact, Controller, ScenarioInfo, Slot, TargetRule, WorldStats, default_params
from ._world import World

_throng._register(World, _ERRORS, ScenarioWarning)

__version__ = "%d.%d.%d" % _throng.library_version
NO_AGENT: int = _throng.NO_AGENT
NO_PATH: int = _throng.NO_PATH

__all__ = [
    # Worlds and scenes
    "World", "Scene", "scenarios", "ScenarioInfo", "WorldStats", "NO_AGENT", "NO_PATH",
    # Controllers
    "Controller", "Slot", "TargetRule", "Contact", "Combat", "default_params", "formation_controller",
    "routing_controller",
    # Events, zones, sources, units, bodies
    "event_kinds", "event_kind", "EVENT_DTYPE", "BODY_DTYPE", "Zone", "Source", "SourceState", "UnitState",
    "NO_ZONE", "NO_SOURCE", "NO_UNIT", "MAX_ZONES", "MAX_SOURCES",
    # Outputs, checkpoints, metrics
    "Writer", "StreamReader", "read_stream", "Stream", "StreamInfo", "Frame", "Metrics", "Measure", "Feed",
    "FeedReader", "FORMATS", "FIELDS", "CROSSING_DTYPE", "SAMPLE_DTYPE", "save_scene_checkpoint",
    "scene_checkpoint_bytes", "load_scene_checkpoint", "scene_outcomes", "scene_goal_radius", "scene_measure",
    "read_csv", "read_sqlite", "SqliteRun", "SQLITE_DTYPE",
    # Errors
    "Error", "InvalidArgument", "NotFound", "FileError", "CapacityError", "OutOfMemory", "Unsupported", "CorruptData",
    "ScenarioWarning",
]
