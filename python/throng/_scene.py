# SPDX-License-Identifier: MIT
"""throng.Scene: a built-in scenario or a scenario file, stepped as
``throng run`` steps it (docs/PYTHON.md)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Union

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
        :class:`throng.FileError` (an OSError). A file that loads with
        warnings (a key that does nothing, as ``throng check`` lists
        them) issues each as a :class:`throng.ScenarioWarning` (a
        UserWarning) through Python's ``warnings``."""
        return cls._load(path, **_scene_def(seed=seed, engine=engine, threads=threads,
                                            threads_policy=threads_policy, record_forces=record_forces))

    @classmethod
    def load_checkpoint(
        cls,
        source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
        *,
        scene: Optional[str] = None,
        agents: int = 0,
        seed: Optional[int] = None,
    ) -> "Scene":
        """The scene saved in `source` (a checkpoint file's path or its
        bytes): it steps on to the same hashes as the scene that never
        stopped, as ``throng run --resume`` does. `scene`, `agents` and
        `seed`, when given, must be the checkpoint's (see
        :func:`throng.load_scene_checkpoint`)."""
        from ._io import load_scene_checkpoint
        return load_scene_checkpoint(source, scene=scene, agents=agents, seed=seed)

    def save_checkpoint(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes a checkpoint of the scene (its world and its script's
        state) to `path`; :class:`throng.FileError` naming the path when it
        cannot be written."""
        from ._io import save_scene_checkpoint
        save_scene_checkpoint(self, path)

    def checkpoint_bytes(self) -> bytes:
        """The scene's checkpoint as bytes: what :meth:`save_checkpoint`
        writes."""
        from ._io import scene_checkpoint_bytes
        return scene_checkpoint_bytes(self)

    @property
    def outcomes(self) -> Dict[str, float]:
        """The figures of the scene's own outcome measure on its current
        state, by name (armies: how far the battle has come); {} for a
        scenario without one. ``throng run`` prints them as ``outcome_*``."""
        from ._io import scene_outcomes
        return scene_outcomes(self)

    @property
    def goal_radius(self) -> float:
        """The distance to its target within which an agent counts as
        arrived (m), 0 without goals: the ``goal_radius`` for
        :class:`throng.Metrics` that ``throng run`` uses."""
        from ._io import scene_goal_radius
        return scene_goal_radius(self)

    def measure(self) -> Any:
        """A :class:`throng.Measure` of the lines and areas the scene
        declares (a scenario file's ``measurements``), or None. Feed it
        the scene after each step (and once before the first)."""
        from ._io import scene_measure
        return scene_measure(self)

    def export(self, path: Union[str, "os.PathLike[str]"], **options: Any) -> Any:
        """A :class:`throng.Writer` of this scene to `path` (the options
        as Writer's: format, fields, every); the scenario's name goes in
        the file's header, as ``throng run --out`` writes it."""
        from ._io import Writer
        return Writer(self, path, **options)

    def hash(self) -> int:
        """The world's state hash (``throng run`` prints it as ``hash:``
        in hexadecimal: ``f"{scene.hash():016x}"``)."""
        return self.world.hash()

    def __repr__(self) -> str:
        return f"<throng.Scene {self.name!r}: {self.world.agent_count} agents, step {self.world.steps}>"
