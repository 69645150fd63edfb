# SPDX-License-Identifier: MIT
"""throng.Scene: a built-in scenario or a scenario file, stepped as
``throng run`` steps it (docs/PYTHON.md)."""

from __future__ import annotations

import os
from typing import Any, List, Optional, Union

from . import _throng
from ._types import ScenarioInfo


def scenarios() -> List[ScenarioInfo]:
    """The built-in scenarios, in ``throng list``'s order."""
    return [ScenarioInfo(**info) for info in _throng._scenarios()]


def _scene_def(**given: Any) -> dict:
    return {k: v for k, v in given.items() if v is not None}


class Scene(_throng.Scene):
    """A world plus the script that drives it (``throng_scene``). Make one
    with :meth:`Scene.builtin` or :meth:`Scene.load`; step it with
    :meth:`step` (not ``scene.world.step``, which skips the script).
    ``scene.world`` is its :class:`throng.World` (it keeps the scene alive).
    """

    @classmethod
    def builtin(
        cls,
        name: str,
        *,
        agents: Optional[int] = None,
        seed: Optional[int] = None,
        engine: Optional[str] = None,
        threads: Optional[int] = None,
        threads_policy: Optional[str] = None,
        record_forces: Optional[bool] = None,
    ) -> "Scene":
        """A built-in scene by name (``throng list``, :func:`throng.scenarios`):
        `agents` (default: the scenario's own count), `seed` (default 1),
        `engine` ("simd" or "scalar"), `threads` (0: OpenMP's default) and
        `threads_policy` as ``throng run`` takes them; the same arguments
        give the same hash as ``throng run NAME --agents N --seed S``.
        :class:`throng.NotFound` for an unknown name (listing the known)."""
        return cls._builtin(name, **_scene_def(agents=agents, seed=seed, engine=engine, threads=threads,
                                               threads_policy=threads_policy, record_forces=record_forces))

    @classmethod
    def load(
        cls,
        path: Union[str, "os.PathLike[str]"],
        *,
        seed: Optional[int] = None,
        engine: Optional[str] = None,
        threads: Optional[int] = None,
        threads_policy: Optional[str] = None,
        record_forces: Optional[bool] = None,
    ) -> "Scene":
        """A scenario file (YAML or JSON, docs/SCENARIOS.md). `seed`, when
        given and not 1, replaces the file's world.seed. A file with
        problems raises :class:`throng.InvalidArgument` listing every one
        as ``FILE:LINE:COL: path: message``; one that cannot be read
        :class:`throng.FileError` (an OSError)."""
        return cls._load(path, **_scene_def(seed=seed, engine=engine, threads=threads,
                                            threads_policy=threads_policy, record_forces=record_forces))

    def hash(self) -> int:
        """The world's state hash (``throng run`` prints it as ``hash:``
        in hexadecimal: ``f"{scene.hash():016x}"``)."""
        return self.world.hash()

    def __repr__(self) -> str:
        return f"<throng.Scene {self.name!r}: {self.world.agent_count} agents, step {self.world.steps}>"
