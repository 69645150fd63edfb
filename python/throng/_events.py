# SPDX-License-Identifier: MIT
"""throng.World's methods for events, zones, sources and sinks, units, bodies (a mixin of throng.World)."""

from __future__ import annotations


class _EventsMixin:
    """Methods of :class:`throng.World`: events, zones, sources and sinks, units, bodies."""

    __slots__ = ()
