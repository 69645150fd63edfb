# SPDX-License-Identifier: MIT
"""The exceptions of throng: one class for each failure status of the C
library, all derived from :class:`Error` and from the built-in exception a
Python programmer would catch for it. The message is the library's own
(``throng_last_error()``), which names the argument or field at fault."""

from __future__ import annotations


class Error(Exception):
    """Base of every exception the library raises. ``status`` is the C
    library's status name ("invalid argument", "not found", ...)."""

    status: str = ""


class InvalidArgument(Error, ValueError):
    """A parameter is out of range, non-finite or inconsistent
    (THRONG_ERR_INVALID_ARGUMENT)."""

    status = "invalid argument"


class CapacityError(Error, ValueError):
    """A world's capacity is exhausted: too many agents or ids
    (THRONG_ERR_CAPACITY)."""

    status = "capacity exhausted"


class OutOfMemory(Error, MemoryError):
    """An allocation failed (THRONG_ERR_OUT_OF_MEMORY)."""

    status = "out of memory"


class NotFound(Error, KeyError):
    """No agent, archetype, obstacle, wall or scenario with that id or
    name (THRONG_ERR_NOT_FOUND)."""

    status = "not found"

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class Unsupported(Error, ValueError):
    """The request names something this build lacks
    (THRONG_ERR_UNSUPPORTED)."""

    status = "unsupported"


class FileError(Error, OSError):
    """A file, pipe or shared-memory object could not be opened, read or
    written (THRONG_ERR_IO)."""

    status = "input/output error"


class CorruptData(Error, ValueError):
    """Data read back is truncated or malformed (THRONG_ERR_CORRUPT)."""

    status = "corrupt data"


class ScenarioWarning(UserWarning):
    """A scenario file that loads but has something a user should hear
    about (a key that does nothing, as ``throng check`` lists them); the
    message is ``FILE:LINE:COL: warning: path: message``."""


ERRORS = {
    cls.status: cls
    for cls in (InvalidArgument, CapacityError, OutOfMemory, NotFound, Unsupported, FileError, CorruptData)
}
