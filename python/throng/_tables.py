# SPDX-License-Identifier: MIT
"""Reading the CSV and SQLite outputs back (docs/FORMAT.md, "CSV" and
"SQLite") as NumPy structured arrays, one row per agent per frame: what
an analysis script wants of a run that ``throng run --out`` or a
:class:`throng.Writer` wrote. The binary stream has its own reader
(:class:`throng.StreamReader`)."""

from __future__ import annotations

import errno as _errno
import os
import pathlib
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Dict, Union

import numpy as np

from ._errors import CorruptData, FileError

PathLike = Union[str, "os.PathLike[str]"]

# The CSV's columns (docs/FORMAT.md, "CSV") and their NumPy types.
_CSV_TYPES: Dict[str, Any] = {
    "id": np.uint32, "frame": np.uint32, "time": np.float64,
    "x": np.float32, "y": np.float32, "velocity_x": np.float32, "velocity_y": np.float32,
    "heading_x": np.float32, "heading_y": np.float32, "group": np.uint32, "archetype": np.uint32,
    "health": np.float32, "combat_state": np.uint32,
}

#: The rows of :func:`read_sqlite`'s ``trajectory`` (JuPedSim's
#: trajectory_data: the values are the float32 ones written).
SQLITE_DTYPE = np.dtype([("frame", np.uint32), ("id", np.uint32), ("x", np.float32), ("y", np.float32),
                         ("ori_x", np.float32), ("ori_y", np.float32)])


def _readable(fn: str, path: PathLike) -> str:
    """The path as a str, or FileError (an OSError with errno) naming it."""
    name = os.fsdecode(os.fspath(path))
    if not os.path.exists(name):
        raise FileError(_errno.ENOENT, f"{fn}: cannot open {name}: {os.strerror(_errno.ENOENT)}", name)
    if os.path.isdir(name):
        raise FileError(_errno.EISDIR, f"{fn}: cannot read {name}: {os.strerror(_errno.EISDIR)}", name)
    return name


def read_csv(path: PathLike) -> np.ndarray:
    """A CSV output read back: a structured array with one row per agent
    per frame, in the file's order (by frame, then id), and the file's
    columns as fields: ``id``, ``frame`` (uint32), ``time`` (float64, s)
    and those of ``x``, ``y``, ``velocity_x``, ``velocity_y``,
    ``heading_x``, ``heading_y``, ``health`` (float32: the values written,
    bit for bit), ``group``, ``archetype``, ``combat_state`` (uint32) the
    file has. ``rows[rows["frame"] == k]`` is frame k.

    :class:`throng.FileError` (an OSError) when the file cannot be read;
    :class:`throng.CorruptData` naming the file and the line for a header
    that is not throng's, a row of the wrong length or a value that is not
    a number."""
    name = _readable("read_csv", path)
    with open(name, encoding="utf-8", newline="") as f:
        header = f.readline().rstrip("\r\n").split(",")
        unknown = [c for c in header if c not in _CSV_TYPES]
        if header[:3] != ["id", "frame", "time"] or unknown:
            raise CorruptData(f"read_csv: {name}: line 1: not a throng CSV header (expected id,frame,time and "
                              f"some of {', '.join(list(_CSV_TYPES)[3:])}; got {','.join(header)!r})")
        dtype = np.dtype([(c, _CSV_TYPES[c]) for c in header])
        rows = []
        for line_no, line in enumerate(f, start=2):
            values = line.rstrip("\r\n").split(",")
            if values == [""]:
                continue
            if len(values) != len(header):
                raise CorruptData(f"read_csv: {name}: line {line_no}: {len(values)} values, expected "
                                  f"{len(header)} ({','.join(header)})")
            rows.append(values)
    table = np.empty(len(rows), dtype=dtype)
    if not rows:
        return table
    text = np.array(rows, dtype=object)
    for k, column in enumerate(header):
        try:
            if np.issubdtype(dtype[column], np.integer):
                whole = np.array([int(v) for v in text[:, k]], dtype=np.int64)
                if whole.min() < 0 or whole.max() > 0xFFFFFFFF:
                    raise ValueError(column)
                table[column] = whole.astype(dtype[column])
            else:
                table[column] = np.array(text[:, k], dtype=np.float64).astype(dtype[column])
        except (ValueError, OverflowError):
            bad = next(i for i, v in enumerate(text[:, k]) if not _parses(v, np.issubdtype(dtype[column], np.integer)))
            raise CorruptData(f"read_csv: {name}: line {bad + 2}: column '{column}': {text[bad, k]!r} is not "
                              f"{'a whole number' if np.issubdtype(dtype[column], np.integer) else 'a number'}"
                              ) from None
    return table


def _parses(value: str, integer: bool) -> bool:
    try:
        number = int(value) if integer else float(value)
    except ValueError:
        return False
    return not integer or 0 <= number <= 0xFFFFFFFF


@dataclass(frozen=True, eq=False)
class SqliteRun:
    """A SQLite output read back (:func:`read_sqlite`)."""

    trajectory: np.ndarray  #: SQLITE_DTYPE rows, by frame then id
    metadata: Dict[str, str] = field(default_factory=dict)  #: the metadata table (fps, dt, scenario, ...)
    walkable_area: str = ""  #: the geometry's WKT POLYGON (the area people walk on)

    @property
    def frames(self) -> int:
        """Frames in the file (one past the last frame index; 0 when empty)."""
        return int(self.trajectory["frame"].max()) + 1 if self.trajectory.size else 0

    def frame(self, k: int) -> np.ndarray:
        """The rows of frame `k`, by id."""
        return self.trajectory[self.trajectory["frame"] == k]


def read_sqlite(path: PathLike) -> SqliteRun:
    """A SQLite output (JuPedSim's trajectory schema, version 2) read back
    with Python's own sqlite3, read-only: the trajectory as a structured
    array (:data:`SQLITE_DTYPE`: frame, id, x, y, ori_x, ori_y, ordered by
    frame then id), the metadata and the walkable area's WKT.

    :class:`throng.FileError` when the file cannot be read;
    :class:`throng.CorruptData` naming the file when it is not a SQLite
    database with throng's tables."""
    name = _readable("read_sqlite", path)
    try:
        db = sqlite3.connect(pathlib.Path(name).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise FileError(f"read_sqlite: cannot open {name}: {e}") from None
    try:
        metadata = dict(db.execute("SELECT key, value FROM metadata").fetchall())
        rows = db.execute("SELECT frame, id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data "
                          "ORDER BY frame, id").fetchall()
        geometry = db.execute("SELECT wkt FROM geometry").fetchall()
    except sqlite3.DatabaseError as e:
        raise CorruptData(f"read_sqlite: {name}: not a throng SQLite output ({e})") from None
    finally:
        db.close()
    if metadata.get("version") != "2":
        raise CorruptData(f"read_sqlite: {name}: metadata version {metadata.get('version')!r}, expected '2'")
    trajectory = np.array(rows, dtype=SQLITE_DTYPE) if rows else np.empty(0, dtype=SQLITE_DTYPE)
    return SqliteRun(trajectory, metadata, geometry[0][0] if geometry else "")
