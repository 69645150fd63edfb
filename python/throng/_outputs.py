# SPDX-License-Identifier: MIT
"""throng.World's methods for outputs: the binary stream, CSV, SQLite, checkpoints, metrics (a mixin of throng.World)."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Type, TypeVar, Union

from . import _throng
from ._io import Metrics, PathLike, Writer, _naming

_W = TypeVar("_W")


class _OutputsMixin:
    """Methods of :class:`throng.World`: outputs: the binary stream, CSV, SQLite, checkpoints, metrics."""

    __slots__ = ()

    def export(
        self,
        path: PathLike,
        *,
        format: str = "auto",
        fields: Union[None, str, Sequence[str]] = None,
        every: int = 1,
        scenario: Optional[str] = None,
    ) -> Writer:
        """A :class:`throng.Writer` of this world to `path`: ``with
        world.export("run.thr") as w: ... w.write()``. The arguments are
        Writer's: `format` ("auto", "bin", "csv", "ped", "sqlite"),
        `fields` (names or a comma-separated string), `every` (steps
        between frames), `scenario` (the name in the header)."""
        return Writer(self, path, format=format, fields=fields, every=every, scenario=scenario)

    def save_checkpoint(self, path: PathLike) -> None:
        """Writes a checkpoint of the world to `path`
        (``throng_world_save_checkpoint``): every bit a later step depends
        on; the file is replaced whole when the write succeeds and left as
        it was when it fails (:class:`throng.FileError`, an OSError with
        ``filename``)."""
        with _naming(path):
            _throng._save_checkpoint(self, path)

    @classmethod
    def load_checkpoint(cls: Type[_W], path: PathLike) -> _W:
        """A new world made from the checkpoint file at `path`
        (``throng_world_load_checkpoint``): it steps to the same hashes as
        the world saved. :class:`throng.CorruptData` (naming the path and
        the byte offset) for a file that is not a whole, intact
        checkpoint; :class:`throng.FileError` for one that cannot be read."""
        with _naming(path):
            return _throng._load_checkpoint(cls, path, False)

    def checkpoint_bytes(self) -> bytes:
        """The world's checkpoint as bytes (``throng_world_write_checkpoint``):
        the bytes :meth:`save_checkpoint` writes."""
        return _throng._checkpoint_bytes(self)

    @property
    def checkpoint_size(self) -> int:
        """The size in bytes of the world's checkpoint now
        (``throng_world_checkpoint_size``)."""
        return _throng._checkpoint_size(self)

    @classmethod
    def from_checkpoint_bytes(cls: Type[_W], data: Union[bytes, bytearray, memoryview]) -> _W:
        """A new world from a checkpoint in memory (``throng_world_read_checkpoint``);
        :class:`throng.CorruptData` for bytes that are not a whole, intact
        checkpoint."""
        try:
            memoryview(data)
        except TypeError:
            raise TypeError(f"World.from_checkpoint_bytes: data: expected bytes, got {type(data).__name__}") from None
        return _throng._load_checkpoint(cls, data, True)

    def overlap_stats(self) -> Tuple[int, float]:
        """(pairs, deepest) of the current state (``throng_world_overlap_stats``):
        pairs of agents whose centres are closer than the sum of their
        radii, and the deepest as 1 - d / (r_i + r_j) (0 without any)."""
        return _throng._overlap_stats(self)

    def metrics(self, *, goal_radius: float = 0.0) -> Metrics:
        """A :class:`throng.Metrics` of this world from its current state:
        call its ``observe()`` after each step, ``result()`` for the
        figures. `goal_radius` (m, >= 0): an agent reaches its goal (its
        target now) within it; 0: no goals."""
        return Metrics(self, goal_radius=goal_radius)
