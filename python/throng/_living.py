# SPDX-License-Identifier: MIT
"""throng.World's methods for the living world: remove, setters, spatial queries, controllers (a mixin of throng.World)."""

from __future__ import annotations


class _LivingMixin:
    """Methods of :class:`throng.World`: the living world: remove, setters, spatial queries, controllers."""

    __slots__ = ()
