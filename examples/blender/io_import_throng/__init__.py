# SPDX-License-Identifier: MIT
"""Blender add-on: File > Import > throng crowd (.thr, .csv).

Imports a throng binary stream or CSV (docs/FORMAT.md) as an animated crowd:
Geometry Nodes instances on one point mesh per group, moved each frame
from a memory map of the stream. See docs/RENDERERS.md; without the add-on
installed, examples/blender/throng_import.py runs the same importer as a
script (`blender -b --python examples/blender/throng_import.py -- run.thr`).
"""

bl_info = {
    "name": "throng crowd importer",
    "author": "throng developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > throng crowd (.thr, .csv)",
    "description": "Animated crowds from throng's binary stream or CSV",
    "category": "Import-Export",
}

try:
    import bpy  # noqa: F401
except ImportError:  # outside Blender: reader and scenefile work on their own
    bpy = None

if bpy is not None:
    from .addon import register, unregister  # noqa: F401
