# SPDX-License-Identifier: MIT
"""The package's surface: names, errors, help texts."""

from __future__ import annotations

import pydoc

import throng


def test_public_names():
    for name in throng.__all__:
        assert hasattr(throng, name), name
    assert throng.__version__.count(".") == 2
    assert throng.NO_AGENT == 2**32 - 1


def test_error_family():
    pairs = {throng.InvalidArgument: ValueError, throng.CapacityError: ValueError, throng.OutOfMemory: MemoryError,
             throng.NotFound: KeyError, throng.Unsupported: ValueError, throng.FileError: OSError,
             throng.CorruptData: ValueError}
    statuses = set(throng._throng._status_names()[1:])
    for cls, builtin in pairs.items():
        assert issubclass(cls, throng.Error) and issubclass(cls, builtin)
        assert cls.status in statuses
    assert {cls.status for cls in pairs} == statuses
    assert str(throng.NotFound("no agent 3")) == "no agent 3"  # not KeyError's quoted form


def test_help_is_readable():
    text = pydoc.render_doc(throng.World, renderer=pydoc.plaintext)
    for words in ("bounds_mode", "positions", "agents_by_id", "step(n=1)", "Views"):
        assert words in text, words
    text = pydoc.render_doc(throng.Scene, renderer=pydoc.plaintext)
    for words in ("builtin", "load", "save", "step(n=1)", "world"):
        assert words in text, words
    assert "docs/PYTHON.md" in throng.__doc__


def test_every_public_name_has_a_docstring():
    import inspect
    missing = []
    for name in throng.__all__:
        obj = getattr(throng, name)
        if (inspect.isclass(obj) or callable(obj)) and not inspect.getdoc(obj):
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for member, value in inspect.getmembers(obj):
            if member.startswith("_"):
                continue
            routine = inspect.isroutine(value) or isinstance(value, property)
            if routine and not inspect.getdoc(value):
                missing.append(f"{name}.{member}")
    assert not missing, missing
    for name in ("remove", "query_radius", "events", "add_zone", "save_checkpoint", "export", "spawn"):
        assert name in pydoc.render_doc(throng.World, renderer=pydoc.plaintext), name
