# SPDX-License-Identifier: MIT
"""Dataclasses of throng's outputs: a binary stream's header
(:class:`StreamInfo`), one frame read back (:class:`Frame`) and a whole
stream (:class:`Stream`), as ``include/throng/export.h`` defines them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np


@dataclass(frozen=True)
class StreamInfo:
    """A binary stream's header (``throng_stream_info``)."""

    version: Tuple[int, int]  #: (major, minor): (2, 0), or (2, 1) with health or combat_state
    agents: int  #: agents when the stream began (frames say their own count)
    fields: Tuple[str, ...]  #: the per-agent fields, by name ("x", "y", "hx", ...), in bit order
    every: int  #: steps between frames
    dt: float  #: seconds per step
    bounds_mode: str  #: "contain", "wrap", "bounce" or "open"
    bounds_min: Tuple[float, float]  #: the world's extent (m)
    bounds_max: Tuple[float, float]
    seed: int  #: the world's seed
    scenario: str  #: the scenario's name, "" when none
    header_bytes: int  #: where frame 0 starts
    frame_bytes: int  #: version 1: bytes per frame; version 2: 0


@dataclass(frozen=True, eq=False)
class Frame:
    """One frame of a stream: the agents alive at its step, in increasing
    id order. Each array is a NumPy copy of `count` values (float32 for
    x, y, vx, vy, hx, hy, health; uint32 for ids, group, archetype,
    combat_state), None for a field the stream does not hold."""

    index: int  #: 0, 1, 2, ... in the stream
    step: int  #: the world's step counter at this frame
    time: float  #: step * dt (s)
    ids: np.ndarray
    x: Optional[np.ndarray] = None
    y: Optional[np.ndarray] = None
    vx: Optional[np.ndarray] = None
    vy: Optional[np.ndarray] = None
    hx: Optional[np.ndarray] = None
    hy: Optional[np.ndarray] = None
    group: Optional[np.ndarray] = None
    archetype: Optional[np.ndarray] = None
    health: Optional[np.ndarray] = None
    combat_state: Optional[np.ndarray] = None

    @property
    def count(self) -> int:
        """Agents in the frame."""
        return int(self.ids.shape[0])

    @property
    def positions(self) -> Optional[np.ndarray]:
        """(count, 2) float32: x and y side by side, or None without them."""
        return None if self.x is None or self.y is None else np.stack([self.x, self.y], axis=1)

    @property
    def velocities(self) -> Optional[np.ndarray]:
        """(count, 2) float32: vx and vy, or None without them."""
        return None if self.vx is None or self.vy is None else np.stack([self.vx, self.vy], axis=1)

    @property
    def headings(self) -> Optional[np.ndarray]:
        """(count, 2) float32: hx and hy, or None without them."""
        return None if self.hx is None or self.hy is None else np.stack([self.hx, self.hy], axis=1)


@dataclass(frozen=True, eq=False)
class Stream:
    """A whole binary stream read back (:func:`throng.read_stream`)."""

    info: StreamInfo
    frames: List[Frame] = field(default_factory=list)
    complete: bool = False  #: the writer finished (the end record was read)
    interrupted: bool = False  #: the end record says the run was stopped early
