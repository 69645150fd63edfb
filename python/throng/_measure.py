# SPDX-License-Identifier: MIT
"""Measurement lines and areas from Python (docs/PYTHON.md, "Outputs,
checkpoints, metrics"): :class:`Measure` and its structured dtypes
:data:`CROSSING_DTYPE` and :data:`SAMPLE_DTYPE`, over
``include/throng/measure.h``."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _throng
from ._errors import InvalidArgument
from ._io import _number, _world_of
from ._outputs_types import Frame


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
