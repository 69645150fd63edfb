# SPDX-License-Identifier: MIT
"""Outputs of a world from Python (docs/PYTHON.md, "Outputs, checkpoints,
metrics"): :class:`Writer` (files in the formats of ``throng run --out``),
:class:`StreamReader` and :func:`read_stream` (the binary stream read
back), :class:`Metrics` (quality metrics), scene checkpoints and the
helpers _measure.py (:class:`Measure`) and _feed.py (:class:`Feed`) share,
over ``include/throng/export.h`` and ``metrics.h``."""

from __future__ import annotations

import contextlib
import errno as _errno
import os
import re
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np

from . import _throng
from ._errors import FileError, InvalidArgument
from ._outputs_types import Frame, Stream, StreamInfo

if TYPE_CHECKING:
    from ._measure import Measure

PathLike = Union[str, bytes, "os.PathLike[str]"]

#: The names ``format=`` takes (``throng_format_from_name``); "auto" chooses by the path's extension.
FORMATS: Tuple[str, ...] = ("auto", "bin", "csv", "ped", "sqlite")
#: The names ``fields=`` takes (``throng_fields_parse``), and its shorthands.
FIELDS: Tuple[str, ...] = ("x", "y", "vx", "vy", "hx", "hy", "group", "archetype", "health", "combat_state")
FIELD_SHORTHANDS: Tuple[str, ...] = ("position", "velocity", "heading", "all")

_FLOAT_FIELDS = {"x", "y", "vx", "vy", "hx", "hy", "health"}


@contextlib.contextmanager
def _naming(path: PathLike) -> Iterator[None]:
    """Gives a :class:`FileError` raised inside the ``errno``, ``strerror``
    and ``filename`` of an OSError when the library's message (which
    always names the path) names a system error (ending with its
    ``strerror`` text, or naming it as "(ENOSPC)"): ``str()`` is then
    OSError's "[Errno 2] cannot open for reading: No such file or
    directory: 'PATH'"."""
    try:
        yield
    except FileError as e:
        if len(e.args) == 1 and isinstance(e.args[0], str) and e.errno is None:
            message = e.args[0]
            name = os.fsdecode(os.fspath(path))
            code = next((c for c in sorted(_errno.errorcode) if message.endswith(os.strerror(c))), None)
            symbol = re.search(r"\((E[A-Z0-9]+)\)", message)  # "no space left on the device (ENOSPC)"
            if code is None and symbol is not None:
                code = getattr(_errno, symbol.group(1), None)
            if code is not None:
                e.errno = code
                e.strerror = message[len(name) + 2:] if message.startswith(name + ": ") else message
                e.filename = name
        raise


def _world_of(target: Any, where: str = "Writer") -> Tuple[Any, Optional[str]]:
    """(world, scenario name) of a World or a Scene."""
    from ._scene import Scene
    from ._world import World

    if isinstance(target, Scene):
        return target.world, target.name
    if isinstance(target, World):
        return target, None
    raise TypeError(f"{where}: world: expected a throng.World or a throng.Scene, got {type(target).__name__}")


def _text_arg(where: str, value: Any) -> Optional[str]:
    """value (a str or None) unchanged; TypeError naming `where` otherwise."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{where}: expected a str or None, got {type(value).__name__}")
    return value


def _fields_arg(where: str, fields: Union[None, str, Sequence[str]]) -> Optional[str]:
    if fields is None:
        return None
    if isinstance(fields, str):
        return fields
    names = list(fields)
    for k, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"{where}: fields[{k}]: expected a field name, got {type(name).__name__}")
    if not names:
        raise InvalidArgument(f"{where}: fields: empty (expected some of: {', '.join(FIELDS + FIELD_SHORTHANDS)})")
    return ",".join(names)


class Writer:
    """A file of frames of one world, as ``throng run --out`` writes it
    (``throng_exporter_*``): the binary stream (docs/FORMAT.md), CSV, the
    pedestrian text format or a SQLite trajectory database.

    ``Writer(world, path, *, format="auto", fields=None, every=1,
    scenario=None)``:

    - `world`: a :class:`throng.World`, or a :class:`throng.Scene` (its
      world, and its name as `scenario`, as ``throng run`` records it);
    - `path`: the file ("-" is standard output); it is written to a
      temporary beside it and replaces the path only on :meth:`close`;
    - `format`: one of :data:`FORMATS`: "auto" (from the extension: .csv,
      .txt/.ped, .sqlite/.sqlite3/.db, anything else binary), "bin",
      "csv", "ped", "sqlite";
    - `fields`: the per-agent fields of the binary stream and CSV, a
      comma-separated string or a list of names (:data:`FIELDS`, or
      "position", "velocity", "heading", "all"); None: x, y, hx, hy;
    - `every`: one frame every `every` steps (>= 1);
    - `scenario`: the name written into the header (None: none, or the
      scene's name).

    :meth:`write` after each step writes a frame when one is due (the
    first call always does). Use it as a context manager: the file is
    finished and published on exit; when the block raises, the frames
    written so far are kept and a binary stream's end record says the run
    was interrupted. A writer dropped without :meth:`close` is discarded:
    the path is left as it was.

    Raises :class:`throng.InvalidArgument` for a bad format, field or
    `every` (the message lists the valid names) and
    :class:`throng.FileError` (an OSError, with ``filename`` and, where the
    library names one, ``errno``) when the path cannot be written.
    """

    __slots__ = ("_handle", "_world", "path", "format", "_frames")

    def __init__(
        self,
        world: Any,
        path: PathLike,
        *,
        format: str = "auto",
        fields: Union[None, str, Sequence[str]] = None,
        every: int = 1,
        scenario: Optional[str] = None,
    ) -> None:
        self._handle = None
        self._frames = 0
        world, name = _world_of(world)
        if scenario is None:
            scenario = name
        _text_arg("Writer: scenario", scenario)
        if not isinstance(format, str):
            raise TypeError(f"Writer: format: expected a name, got {type(format).__name__}")
        if isinstance(every, bool) or not isinstance(every, int):
            raise TypeError(f"Writer: every: expected a whole number, got {type(every).__name__}")
        if every < 1 or every > 0xFFFFFFFF:
            raise InvalidArgument(f"Writer: every: got {every}, expected a count of steps from 1 to 4294967295")
        fields_str = _fields_arg("Writer", fields)
        self._world = world
        self.path = os.fsdecode(os.fspath(path))
        with _naming(path):
            self._handle = _throng._exporter_create(world, path, format, fields_str, every, scenario)
        self.format = _throng._format_of(path) if format == "auto" else format

    def write(self) -> bool:
        """Writes the world's current state as a frame when one is due
        (every `every` steps after the first frame); True when it wrote
        one. :class:`throng.FileError` when the write fails (a full disk,
        a closed pipe: the message says what the file holds); every later
        call then fails too. ValueError once closed."""
        if self._handle is None:
            raise ValueError("Writer.write: it is closed")
        with _naming(self.path):
            frames = _throng._exporter_write(self._handle, self._world)
        wrote = frames != self._frames
        self._frames = frames
        return wrote

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return self._frames

    @property
    def closed(self) -> bool:
        """True after :meth:`close` or :meth:`discard`."""
        return self._handle is None

    @property
    def notice(self) -> Optional[str]:
        """What the library says about the output file (hard links that
        keep the old contents, leftovers of a killed run), or None."""
        if self._handle is None:
            return None
        return _throng._exporter_info(self._handle)[1]

    def close(self, *, interrupted: bool = False) -> None:
        """Finishes the file (a binary stream's end record, marked
        interrupted when asked; SQLite's last transaction and index) and
        publishes it on the path. A second call does nothing.
        :class:`throng.FileError` when finishing fails."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with _naming(self.path):
                _throng._exporter_close(handle, bool(interrupted), True)

    def discard(self) -> None:
        """Drops the file without publishing it: the path stays as it was
        (a path written in place, a pipe, keeps what it received)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _throng._exporter_close(handle, False, False)

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        self.close(interrupted=kind is not None)

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"{self._frames} frames"
        return f"<throng.Writer {self.path!r} ({self.format}): {state}>"


def _frame(raw: Tuple[int, int, float, Dict[str, bytearray]]) -> Frame:
    index, step, time, arrays = raw
    values: Dict[str, Optional[np.ndarray]] = {name: None for name in FIELDS}
    for name, data in arrays.items():
        values[name] = np.frombuffer(data, dtype=np.float32 if name in _FLOAT_FIELDS else np.uint32)
    return Frame(index=index, step=step, time=time, ids=values.pop("id"), **values)  # type: ignore[arg-type]


_R = TypeVar("_R", bound="_Reader")


class _Reader:
    """What the stream and feed readers share: a library handle, refused
    once closed, released by :meth:`close` or a ``with`` block."""

    __slots__ = ("_handle",)

    def _open_handle(self, fn: str) -> Any:
        if self._handle is None:
            raise ValueError(f"{type(self).__name__}.{fn}: it is closed")
        return self._handle

    def close(self) -> None:
        """Releases the reader (the file or the mapping); a second call
        does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _throng._close(handle)

    def __enter__(self: _R) -> _R:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class StreamReader(_Reader):
    """Reads a binary stream (docs/FORMAT.md) frame by frame
    (``throng_stream_*``): ``StreamReader(path, *, verify=True)``; `path`
    "-" is standard input. `verify` checks each frame's CRC-32 (the
    header's is always checked).

    ``info`` is the header (:class:`throng.StreamInfo`); iterating gives
    :class:`throng.Frame` objects (their arrays are copies, the reader's
    to drop); :attr:`complete` and :attr:`interrupted` tell how the stream
    ended once it is read to its end. A file that cannot be opened raises
    :class:`throng.FileError`; a bad header, or a frame truncated or
    malformed, :class:`throng.CorruptData` whose message names the file,
    the byte offset and the field. Use it as a context manager, or call
    :meth:`close`.
    """

    __slots__ = ("path", "info")

    def __init__(self, path: PathLike, *, verify: bool = True) -> None:
        self._handle = None
        self.path = os.fsdecode(os.fspath(path))
        with _naming(path):
            self._open(_throng._stream_open(path, bool(verify)))

    def _open(self, handle: Any) -> None:
        self._handle = handle
        self.info: StreamInfo = StreamInfo(**_throng._stream_info(handle))

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview], *, verify: bool = True) -> "StreamReader":
        """A reader of a stream held in memory (``throng_stream_open_memory``):
        the standard output of ``throng run ... --out -``, say. `data` is
        kept (bytes) or copied (bytearray, memoryview); ``path`` is
        "<bytes>". The same checks and exceptions as a file's."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"StreamReader.from_bytes: data: expected bytes, got {type(data).__name__}")
        self = cls.__new__(cls)
        self._handle = None
        self.path = "<bytes>"
        self._open(_throng._stream_open_bytes(bytes(data), bool(verify)))
        return self

    def read(self) -> Optional[Frame]:
        """The next frame, or None at the end of the stream."""
        raw = _throng._stream_read(self._open_handle("read"))
        return None if raw is None else _frame(raw)

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    @property
    def complete(self) -> bool:
        """True once the end record was read: the writer finished."""
        return _throng._stream_state(self._open_handle("complete"))[0]

    @property
    def interrupted(self) -> bool:
        """True when the end record says the run was stopped before its
        planned end (every frame is still valid)."""
        return _throng._stream_state(self._open_handle("interrupted"))[1]

    @property
    def offset(self) -> int:
        """Byte offset of the next unread byte."""
        return _throng._stream_state(self._open_handle("offset"))[2]



def read_stream(source: Union[PathLike, bytes, bytearray, memoryview], *, verify: bool = True) -> Stream:
    """The whole binary stream in `source`, a path (str or os.PathLike)
    or the stream's bytes (bytes, bytearray, memoryview), as
    :class:`throng.Stream` (its header, every frame, and whether it is
    complete and interrupted), as :class:`StreamReader` reads it; the same
    exceptions."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        opened = StreamReader.from_bytes(source, verify=verify)
    else:
        opened = StreamReader(source, verify=verify)
    with opened as reader:
        frames: List[Frame] = list(reader)
        return Stream(info=reader.info, frames=frames, complete=reader.complete, interrupted=reader.interrupted)


def _number(where: str, value: Any) -> float:
    """value as a float; TypeError naming `where` for anything but a real
    number (the library refuses non-finite values, naming the field)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: expected a number, got {type(value).__name__}")
    return float(value)


class Metrics:
    """Crowd-quality metrics of one world (``throng_metrics_*``,
    docs/QUALITY.md): ``Metrics(world, *, goal_radius=0.0)`` takes the
    current state as the start (and, with `goal_radius` > 0 (m), each
    agent's target now as its goal). Call :meth:`observe` once after every
    step; :meth:`result` gives the figures so far as a dict of
    ``throng_quality``'s fields (agents, steps, overlaps,
    overlaps_per_agent_step, deepest_overlap, reached, mean_time_to_goal,
    jitter, out_of_bounds, wall_crossings, ...).

    :class:`throng.InvalidArgument` for a negative or non-finite
    `goal_radius`, and from :meth:`observe` when a step went unobserved.
    """

    __slots__ = ("_handle", "_world")

    def __init__(self, world: Any, *, goal_radius: float = 0.0) -> None:
        from ._world import World

        if not isinstance(world, World):
            raise TypeError(f"Metrics: world: expected a throng.World, got {type(world).__name__}")
        self._world = world
        self._handle = _throng._metrics_create(world, _number("Metrics: goal_radius", goal_radius))

    def observe(self) -> None:
        """Takes the world's current state (after a step) into the figures."""
        _throng._metrics_observe(self._handle, self._world)

    def result(self) -> Dict[str, Any]:
        """The figures so far (``throng_metrics_result``), as a dict."""
        return _throng._metrics_result(self._handle)


# Scene checkpoints: module-level functions over a throng.Scene (the Scene
# class may wrap them as methods).


def save_scene_checkpoint(scene: Any, path: PathLike) -> None:
    """Writes a checkpoint of `scene` (its world and its script's state,
    ``throng_scene_save_checkpoint``) to `path`; :class:`throng.FileError`
    naming the path when it cannot be written."""
    with _naming(path):
        _throng._scene_save_checkpoint(scene, path)


def scene_checkpoint_bytes(scene: Any) -> bytes:
    """`scene`'s checkpoint as bytes (``throng_scene_write_checkpoint``),
    the bytes :func:`save_scene_checkpoint` writes."""
    return _throng._scene_checkpoint_bytes(scene)


def load_scene_checkpoint(
    source: Union[PathLike, bytes, bytearray, memoryview],
    *,
    scene: Optional[str] = None,
    agents: int = 0,
    seed: Optional[int] = None,
) -> Any:
    """The :class:`throng.Scene` saved in `source`, a checkpoint file's
    path or its bytes (``throng_scene_load_checkpoint`` /
    ``throng_scene_read_checkpoint``): it steps on to the same hashes as
    the scene that never stopped. `scene` (a built-in's name or a
    scenario file's path), `agents` (> 0) and `seed`, when given, must be
    the checkpoint's (:class:`throng.InvalidArgument` naming both values
    otherwise). :class:`throng.CorruptData` for a damaged checkpoint,
    :class:`throng.FileError` for a file that cannot be read."""
    from ._scene import Scene

    _text_arg("load_scene_checkpoint: scene", scene)
    if isinstance(agents, bool) or not isinstance(agents, int):
        raise TypeError(f"load_scene_checkpoint: agents: expected a whole number, got {type(agents).__name__}")
    if not 0 <= agents <= 0xFFFFFFFF:
        raise InvalidArgument(f"load_scene_checkpoint: agents: got {agents}, expected 0 (any) or a count "
                              "to 4294967295")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"load_scene_checkpoint: seed: expected a whole number or None, got {type(seed).__name__}")
        if not 0 <= seed <= 0xFFFFFFFFFFFFFFFF:
            raise InvalidArgument(f"load_scene_checkpoint: seed: got {seed}, expected 0 to 18446744073709551615")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _throng._scene_load_checkpoint(Scene, source, True, scene, agents, seed)
    with _naming(source):
        return _throng._scene_load_checkpoint(Scene, os.fspath(source), False, scene, agents, seed)


def scene_outcomes(scene: Any) -> Dict[str, float]:
    """The figures of `scene`'s own outcome measure on its current state
    (``throng_scene_outcomes``; armies: how far the battle has come,
    docs/QUALITY.md), by name; {} for a scenario without one."""
    return _throng._scene_outcomes(scene)


def scene_goal_radius(scene: Any) -> float:
    """The distance to its target within which an agent of `scene` counts
    as arrived (m; ``throng_scene_goal_radius``), 0 without goals: the
    `goal_radius` for :class:`throng.Metrics` that ``throng run`` uses."""
    return _throng._scene_goal_radius(scene)


def scene_measure(scene: Any) -> Optional[Measure]:
    """A :class:`throng.Measure` of the lines and areas `scene`'s
    definition declares (a scenario file's ``measurements``,
    ``throng_scene_measure_create``), the Voronoi cells clipped to the
    world's bounds; None when it declares none. Feed it the scene after
    each step (and once before the first), as ``throng run`` does."""
    from ._measure import Measure

    handle = _throng._scene_measure(scene)
    return None if handle is None else Measure._adopt(handle)
