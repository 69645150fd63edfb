# SPDX-License-Identifier: MIT
"""Arguments as the C-contiguous NumPy arrays the extension reads, with
errors that name the method and the argument (throng.World's spawn and
the living world's setters and queries)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._errors import InvalidArgument

ArrayLike = Any


def _pairs(fn: str, name: str, value: ArrayLike, n: Optional[int], rows: str = "one per id") -> np.ndarray:
    """value as a C-contiguous float32 (n, 2) array; one pair (2,) is
    repeated for each of the n rows (n None: any number of rows)."""
    try:
        array = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{fn}: {name}: expected an (N, 2) array of numbers ({e})") from None
    if n is not None and array.shape == (2,):
        array = np.broadcast_to(array, (n, 2))
    if array.ndim != 2 or array.shape[1] != 2:
        raise InvalidArgument(f"{fn}: {name}: expected shape (N, 2), got {array.shape}")
    if n is not None and array.shape[0] != n:
        raise InvalidArgument(f"{fn}: {name}: expected {n} rows ({rows}), got {array.shape[0]}")
    return np.ascontiguousarray(array)


def _column(fn: str, name: str, value: ArrayLike, n: int, integer: bool, rows: str = "one per id") -> np.ndarray:
    """value as a C-contiguous float32 or uint32 array of n entries; a
    scalar is repeated."""
    array = np.asarray(value)
    if integer:
        if array.dtype.kind not in "iu":
            raise TypeError(f"{fn}: {name}: expected whole numbers, got dtype {array.dtype}")
        if array.size and (array.min() < 0 or array.max() > 0xFFFFFFFF):
            raise InvalidArgument(f"{fn}: {name}: got values outside 0 to 4294967295")
        dtype = np.uint32
    else:
        if array.dtype.kind not in "iuf":
            raise TypeError(f"{fn}: {name}: expected numbers, got dtype {array.dtype}")
        dtype = np.float32
    array = array.astype(dtype, copy=False)
    if array.ndim == 0:
        array = np.broadcast_to(array, (n,))
    if array.shape != (n,):
        raise InvalidArgument(f"{fn}: {name}: expected {n} values ({rows}) or one, got shape {array.shape}")
    return np.ascontiguousarray(array)
