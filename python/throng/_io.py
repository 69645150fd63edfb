# SPDX-License-Identifier: MIT
"""Outputs of a world from Python (docs/PYTHON.md, "Outputs, checkpoints,
metrics"): :class:`Writer` (files in the formats of ``throng run --out``),
:class:`StreamReader` and :func:`read_stream` (the binary stream read
back), :class:`Metrics` (quality metrics) and :class:`Measure`
(measurement lines and areas), over ``include/throng/export.h``,
``metrics.h`` and ``measure.h``."""

from __future__ import annotations

import contextlib
import errno as _errno
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _throng
from ._errors import FileError, InvalidArgument
from ._outputs_types import Frame, Stream, StreamInfo

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


class StreamReader:
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

    __slots__ = ("_handle", "path", "info")

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

    def _open_handle(self, fn: str) -> Any:
        if self._handle is None:
            raise ValueError(f"StreamReader.{fn}: it is closed")
        return self._handle

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

    def close(self) -> None:
        """Closes the file; a second call does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _throng._close(handle)

    def __enter__(self) -> "StreamReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


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


def _pair(where: str, value: Any) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: expected a pair of numbers (x, y), got {value!r}") from None
    if array.shape != (2,):
        raise InvalidArgument(f"{where}: expected a pair (x, y), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InvalidArgument(f"{where}: got {tuple(array.tolist())}, expected finite coordinates")
    return array


def _dtype(layout: Tuple[int, Dict[str, int]], kinds: Dict[str, Any]) -> np.dtype:
    size, offsets = layout
    names = list(offsets)
    return np.dtype({"names": names, "formats": [kinds[n] for n in names], "offsets": [offsets[n] for n in names],
                     "itemsize": size})


_LAYOUTS = _throng._measure_layouts()
#: The structured dtype of :meth:`Measure.crossings` (``throng_crossing``).
CROSSING_DTYPE = _dtype(_LAYOUTS["crossing"], {"time": np.float64, "id": np.uint32, "direction": np.int32,
                                               "x": np.float64, "y": np.float64})
#: The structured dtype of :meth:`Measure.samples` (``throng_area_sample``).
SAMPLE_DTYPE = _dtype(_LAYOUTS["sample"], {"time": np.float64, "inside": np.uint32, "with_speed": np.uint32,
                                           "density": np.float64, "mean_speed": np.float64,
                                           "voronoi_density": np.float64, "voronoi_speed": np.float64})


class Measure:
    """Measurement lines and areas as PedPy defines them
    (``throng_measure_*``, docs/QUALITY.md, "Measurement"):
    ``Measure(*, cutoff_radius=0.0, cutoff_segments=0, bounds=None,
    wrap=False)``: the Voronoi cut-off circle's radius (m) and its
    segments per quarter circle (0: the library's 0.8 m and 3, at most
    64); `bounds` ((xmin, ymin), (xmax, ymax)) clips the Voronoi
    cells; `wrap` (with bounds) takes a step longer than half the bounds
    for a jump across the seam.

    Add lines (:meth:`add_line`) and areas (:meth:`add_rect`,
    :meth:`add_area`) before the first :meth:`feed`; then feed a world's
    state once per step (the time is the world's step * dt). Results:
    :meth:`crossings` (a structured array, :data:`CROSSING_DTYPE`: time,
    id, direction +1 to the left of a -> b or -1, x, y), :meth:`flow`
    (crossings per second in a window), :meth:`samples` (per state:
    time, inside, with_speed, density, mean_speed, voronoi_density,
    voronoi_speed; :data:`SAMPLE_DTYPE`) and :meth:`means`.
    :class:`throng.InvalidArgument` for a bad coordinate, line or polygon
    (non-finite, zero length, not simple), :class:`throng.NotFound` for an
    unknown line or area.
    """

    __slots__ = ("_handle",)

    def __init__(
        self,
        *,
        cutoff_radius: float = 0.0,
        cutoff_segments: int = 0,
        bounds: Optional[Tuple[Tuple[float, float], Tuple[float, float]]] = None,
        wrap: bool = False,
    ) -> None:
        if bounds is None:
            lo, hi = (0.0, 0.0), (0.0, 0.0)
        else:
            try:
                lo, hi = bounds
            except (TypeError, ValueError):
                raise TypeError(f"Measure: bounds: expected ((xmin, ymin), (xmax, ymax)) or None, got {bounds!r}"
                                ) from None
        lo = tuple(_pair("Measure: bounds[0]", lo).tolist())
        hi = tuple(_pair("Measure: bounds[1]", hi).tolist())
        if isinstance(cutoff_segments, bool) or not isinstance(cutoff_segments, int):
            raise TypeError(f"Measure: cutoff_segments: expected a whole number, got {type(cutoff_segments).__name__}")
        if not 0 <= cutoff_segments <= 64:  # the library's most (measure.h)
            raise InvalidArgument(f"Measure: cutoff_segments: got {cutoff_segments}, expected 0 to 64")
        self._handle = _throng._measure_create(_number("Measure: cutoff_radius", cutoff_radius), cutoff_segments, lo,
                                               hi, bool(wrap))

    def add_line(self, a: Sequence[float], b: Sequence[float]) -> int:
        """Adds the line a -> b (m); returns its id (0, 1, ...)."""
        points = np.array([_pair("Measure.add_line: a", a), _pair("Measure.add_line: b", b)], dtype=np.float32)
        return _throng._measure_add(self._handle, 0, points)

    def add_rect(self, lo: Sequence[float], hi: Sequence[float]) -> int:
        """Adds the rectangle [lo, hi] (m) as an area; returns its id."""
        points = np.array([_pair("Measure.add_rect: lo", lo), _pair("Measure.add_rect: hi", hi)], dtype=np.float32)
        return _throng._measure_add(self._handle, 1, points)

    def add_area(self, points: Any) -> int:
        """Adds the simple polygon `points` ((K, 2), K >= 3, either
        orientation) as an area; returns its id."""
        array = np.asarray(points, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != 2:
            raise InvalidArgument(f"Measure.add_area: points: expected shape (K, 2), got {array.shape}")
        bad = np.nonzero(~np.all(np.isfinite(array), axis=1))[0]
        if bad.size:
            raise InvalidArgument(f"Measure.add_area: points[{bad[0]}]: got {tuple(array[bad[0]].tolist())}, "
                                  "expected finite coordinates")
        return _throng._measure_add(self._handle, 2, np.ascontiguousarray(array, dtype=np.float32))

    @classmethod
    def _adopt(cls, handle: Any) -> "Measure":
        self = cls.__new__(cls)
        self._handle = handle
        return self

    def feed(self, world: Any) -> None:
        """Takes the current state of `world` (a World, or a Scene's world)
        at time step * dt, with its velocities: the crossings since the
        previous state and one sample per area."""
        _throng._measure_feed_world(self._handle, _world_of(world, "Measure.feed")[0])

    def feed_state(self, time: float, ids: Any, positions: Any, velocities: Any = None) -> None:
        """Takes one state given as arrays (``throng_measure_feed``): `time`
        (s, after the previous state's), `ids` (N distinct whole numbers),
        `positions` (N, 2) (m) and `velocities` (N, 2) (m/s) or None (the
        speeds then come from the displacement since the previous state).
        :class:`throng.InvalidArgument` for a time not after the last, a
        non-finite value or a repeated id (the library names the index)."""
        id_array = np.asarray(ids)
        if id_array.ndim != 1 or (id_array.size and id_array.dtype.kind not in "iu"):
            raise TypeError(f"Measure.feed_state: ids: expected N whole numbers, got {id_array.dtype} "
                            f"of shape {id_array.shape}")
        n = id_array.shape[0]
        if n and (id_array.min() < 0 or id_array.max() > 0xFFFFFFFF):
            raise InvalidArgument("Measure.feed_state: ids: got values outside 0 to 4294967295")
        columns = []
        for name, value in (("positions", positions), ("velocities", velocities)):
            if value is None:
                columns += [None, None]
                continue
            array = np.asarray(value, dtype=np.float32)
            if array.shape != (n, 2):
                raise InvalidArgument(f"Measure.feed_state: {name}: expected shape ({n}, 2), got {array.shape}")
            columns += [np.ascontiguousarray(array[:, 0]), np.ascontiguousarray(array[:, 1])]
        _throng._measure_feed(self._handle, _number("Measure.feed_state: time", time),
                              np.ascontiguousarray(id_array, dtype=np.uint32), *columns)

    def feed_frame(self, frame: Frame, *, velocities: bool = True) -> None:
        """Takes a :class:`throng.Frame` read back (its time, ids and
        positions; its velocities when it holds them and `velocities` is
        True), as ``throng measure RUN`` does."""
        if frame.x is None or frame.y is None:
            raise InvalidArgument("Measure.feed_frame: frame: the stream holds no positions (fields x and y)")
        vel = frame.velocities if velocities else None
        self.feed_state(frame.time, frame.ids, frame.positions, vel)

    @property
    def line_count(self) -> int:
        """Lines added."""
        return _throng._measure_counts(self._handle)[0]

    @property
    def area_count(self) -> int:
        """Areas added."""
        return _throng._measure_counts(self._handle)[1]

    @property
    def states(self) -> int:
        """States fed so far."""
        return _throng._measure_counts(self._handle)[2]

    def area_size(self, area: int) -> float:
        """The area's size (m^2); :class:`throng.NotFound` for an unknown id."""
        size = _throng._measure_area_size(self._handle, self._index("area_size", "area", area, self.area_count))
        return size

    def _index(self, fn: str, what: str, value: int, count: int) -> int:
        from ._errors import NotFound

        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"Measure.{fn}: {what}: expected an id, got {type(value).__name__}")
        if not 0 <= value < count:
            raise NotFound(f"Measure.{fn}: {what}: no {what} {value} (there are {count})")
        return int(value)

    def crossings(self, line: int) -> np.ndarray:
        """The line's crossings in time order (ties by id), a copy, as a
        structured array of :data:`CROSSING_DTYPE`."""
        data = _throng._measure_records(self._handle, 0, self._index("crossings", "line", line, self.line_count))
        return np.frombuffer(data, dtype=CROSSING_DTYPE)

    def samples(self, area: int) -> np.ndarray:
        """The area's samples, one per state fed, a copy, as a structured
        array of :data:`SAMPLE_DTYPE`."""
        data = _throng._measure_records(self._handle, 1, self._index("samples", "area", area, self.area_count))
        return np.frombuffer(data, dtype=SAMPLE_DTYPE)

    def flow(self, line: int, t0: float, t1: float) -> Dict[str, Any]:
        """The line's crossings with t0 <= time < t1 (s): left, right
        (counts), first_passings, flow_left, flow_right, flow_total,
        flow_net (1/s). :class:`throng.InvalidArgument` for a non-finite
        window or t1 <= t0."""
        index = self._index("flow", "line", line, self.line_count)
        return _throng._measure_window(self._handle, 0, index, _number("Measure.flow: t0", t0),
                                       _number("Measure.flow: t1", t1))

    def means(self, area: int, t0: Optional[float] = None, t1: Optional[float] = None) -> Dict[str, Any]:
        """The means of the area's samples with t0 <= time <= t1 (s):
        samples, density, mean_speed, voronoi_density, voronoi_speed.
        None (default): from the first sample, to the last.
        :class:`throng.InvalidArgument` for a non-finite window or t1 < t0."""
        index = self._index("means", "area", area, self.area_count)
        lo = -1e300 if t0 is None else _number("Measure.means: t0", t0)
        hi = 1e300 if t1 is None else _number("Measure.means: t1", t1)
        return _throng._measure_window(self._handle, 1, index, lo, hi)


class Feed:
    """A live feed of one world (``throng_feed_*``, docs/FORMAT.md "Live
    feed"): every frame published to the POSIX shared-memory object
    ``/NAME`` (``/dev/shm/NAME``) for a renderer beside the simulation,
    as ``throng run --shm NAME`` does; the writer never waits and a
    reader never sees a torn frame.

    ``Feed(world, name, *, fields=None, every=1, capacity=0,
    scenario=None, replace=False)``: `world` a World or a Scene; `name`
    one name ("crowd" or "/crowd"); `fields` as :class:`Writer`'s;
    `capacity` the most agents a frame may hold (0: twice the agents now,
    at least 1024); `replace` removes a stale object of that name first
    (``--shm-replace``). Creation is exclusive: :class:`throng.FileError`
    when the name exists. :meth:`publish` after each step; :meth:`close`
    (or the end of a ``with`` block) finishes the feed and removes the
    name. :class:`throng.CapacityError` from :meth:`publish` for a frame
    of more agents than the capacity (readers keep the last frame); size
    the feed for the run's peak.
    """

    __slots__ = ("_handle", "_world", "name", "_frames")

    def __init__(
        self,
        world: Any,
        name: str,
        *,
        fields: Union[None, str, Sequence[str]] = None,
        every: int = 1,
        capacity: int = 0,
        scenario: Optional[str] = None,
        replace: bool = False,
    ) -> None:
        self._handle = None
        self._frames = 0
        world, scene_name = _world_of(world, "Feed")
        if not isinstance(name, str):
            raise TypeError(f"Feed: name: expected a str, got {type(name).__name__}")
        _text_arg("Feed: scenario", scenario)
        for arg, value in (("every", every), ("capacity", capacity)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Feed: {arg}: expected a whole number, got {type(value).__name__}")
            if value < 0 or value > 0xFFFFFFFF:
                raise InvalidArgument(f"Feed: {arg}: got {value}, expected a count from {1 if arg == 'every' else 0} "
                                      "to 4294967295")
        self._world = world
        self.name = name
        self._handle = _throng._feed_create(world, name, _fields_arg("Feed", fields), every, capacity,
                                            scene_name if scenario is None else scenario, bool(replace))

    def publish(self) -> bool:
        """Publishes the world's current state as the newest frame when
        one is due (as :meth:`Writer.write`); True when it published."""
        if self._handle is None:
            raise ValueError("Feed.publish: it is closed")
        frames = _throng._feed_publish(self._handle, self._world)
        published = frames != self._frames
        self._frames = frames
        return published

    def heartbeat(self) -> None:
        """Tells readers the writer is alive without publishing (for
        pauses longer than 10 s between :meth:`publish` calls)."""
        if self._handle is None:
            raise ValueError("Feed.heartbeat: it is closed")
        _throng._feed_heartbeat(self._handle)

    @property
    def frames(self) -> int:
        """Frames published so far."""
        return self._frames

    def close(self) -> None:
        """Finishes the feed: readers see it finished and keep the last
        frame; the name is removed. A second call does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _throng._feed_close(handle)

    def __enter__(self) -> "Feed":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class FeedReader:
    """Reads a live feed by name (``throng_feed_open``):
    :class:`throng.NotFound` when no feed has that name (yet),
    :class:`throng.CorruptData` when the object is no throng feed.
    ``info`` is its header (:class:`throng.StreamInfo`, `agents` being the
    capacity); :meth:`read` gives the newest frame not yet returned or
    None (it never waits); :attr:`writer_state` is "alive", "finished" or
    "gone"."""

    __slots__ = ("_handle", "name", "info")

    def __init__(self, name: str) -> None:
        self._handle = None
        if not isinstance(name, str):
            raise TypeError(f"FeedReader: name: expected a str, got {type(name).__name__}")
        self.name = name
        self._handle = _throng._feed_open(name)
        self.info: StreamInfo = StreamInfo(**_throng._feed_info(self._handle))

    def _open_handle(self, fn: str) -> Any:
        if self._handle is None:
            raise ValueError(f"FeedReader.{fn}: it is closed")
        return self._handle

    def read(self) -> Optional[Frame]:
        """The newest frame published since the last one returned, or None."""
        raw = _throng._feed_read(self._open_handle("read"))
        return None if raw is None else _frame(raw)

    @property
    def finished(self) -> bool:
        """True once the writer finished the feed."""
        return _throng._feed_state(self._open_handle("finished"))[0]

    @property
    def writer_state(self) -> str:
        """"alive", "finished" or "gone" (ended without finishing)."""
        return _throng._feed_state(self._open_handle("writer_state"))[1]

    @property
    def writer_pid(self) -> int:
        """The writer's process id (in its pid namespace)."""
        return _throng._feed_state(self._open_handle("writer_pid"))[2]

    def close(self) -> None:
        """Unmaps the feed; a second call does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _throng._close(handle)

    def __enter__(self) -> "FeedReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


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
    handle = _throng._scene_measure(scene)
    return None if handle is None else Measure._adopt(handle)
