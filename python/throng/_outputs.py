# SPDX-License-Identifier: MIT
"""throng.World's methods for outputs: the binary stream, CSV, SQLite, checkpoints, metrics (a mixin of throng.World)."""

from __future__ import annotations


class _OutputsMixin:
    """Methods of :class:`throng.World`: outputs: the binary stream, CSV, SQLite, checkpoints, metrics."""

    __slots__ = ()
