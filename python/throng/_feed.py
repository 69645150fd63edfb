# SPDX-License-Identifier: MIT
"""The live feed from Python (docs/PYTHON.md, "Outputs, checkpoints,
metrics"; docs/FORMAT.md, "Live feed"): :class:`Feed` publishes a world's
frames to shared memory and :class:`FeedReader` reads them, over
``include/throng/export.h``'s ``throng_feed_*``."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _throng
from ._errors import InvalidArgument
from ._io import _Reader, _fields_arg, _frame, _text_arg, _world_of
from ._outputs_types import Frame, StreamInfo


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


class FeedReader(_Reader):
    """Reads a live feed by name (``throng_feed_open``):
    :class:`throng.NotFound` when no feed has that name (yet),
    :class:`throng.CorruptData` when the object is no throng feed.
    ``info`` is its header (:class:`throng.StreamInfo`, `agents` being the
    capacity); :meth:`read` gives the newest frame not yet returned or
    None (it never waits); :attr:`writer_state` is "alive", "finished" or
    "gone"."""

    __slots__ = ("name", "info")

    def __init__(self, name: str) -> None:
        self._handle = None
        if not isinstance(name, str):
            raise TypeError(f"FeedReader: name: expected a str, got {type(name).__name__}")
        self.name = name
        self._handle = _throng._feed_open(name)
        self.info: StreamInfo = StreamInfo(**_throng._feed_info(self._handle))

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

