# SPDX-License-Identifier: MIT
"""Reads what the importer needs from a throng scenario file (docs/SCENARIOS.md).

The binary stream carries positions, headings and (with --fields) group
labels, but neither the agents' radii nor the scene's walls and obstacles:
those live in the scenario file. This reads only them; throng itself
(`throng validate FILE`) is the judge of a file's correctness.

Agents get consecutive ids, groups in file order, so the file gives every
agent's radius and group label exactly for a stream of that file
(`throng run FILE.yaml`). A built-in scene deals its ids another way: the
walls and obstacles of its file twin are still right.
"""
import json
import os

import numpy as np

DEFAULT_RADIUS = 0.3  # throng_agent_default_def()'s radius (m)
# The radius of a preset's body (m), for the groups of an archetype with
# `preset: NAME` that state none (docs/SCENARIOS.md, "Presets"):
# throng_agent_pedestrian_def()'s. tests/test_scenario_preset.c fails
# when this is not the library's value.
PRESET_RADIUS = {"pedestrian": 0.17}


class SceneFileError(Exception):
    """A scenario file the importer cannot use; the message names the file and field."""


def _load(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SceneFileError(f"{path}: cannot read: {e.strerror or e}") from e
    if path.endswith(".json"):
        try:
            return json.loads(text)
        except ValueError as e:
            raise SceneFileError(f"{path}: not JSON: {e}") from e
    try:
        import yaml
    except ImportError as e:
        raise SceneFileError(f"{path}: reading YAML needs PyYAML (Debian: python3-yaml); "
                             "or give the scene as JSON") from e
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise SceneFileError(f"{path}: not YAML: {e}") from e


def _point(path, where, p):
    if not (isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, (int, float)) for v in p)):
        raise SceneFileError(f"{path}: {where}: expected a point [x, y], found {p!r}")
    return float(p[0]), float(p[1])


def read_scene(path):
    """Returns {name, labels, radii, walls, obstacles} from the scenario file at `path`.

    labels and radii are per agent id (uint32, float32 in m); walls is a
    (K, 4) float32 array of segments x0, y0, x1, y1 (m); obstacles a (K, 3)
    float32 array of centre x, y and radius (m).
    """
    path = os.fspath(path)
    doc = _load(path)
    if not isinstance(doc, dict):
        raise SceneFileError(f"{path}: expected a mapping at the top level")
    groups = doc.get("groups") or {}
    rows = (doc.get("agents") or {}).get("rows") if isinstance(doc.get("agents"), dict) else None
    if not isinstance(groups, dict) or not (groups or rows):
        raise SceneFileError(f"{path}: groups: expected a mapping of one or more groups")
    archetypes = doc.get("archetypes") if isinstance(doc.get("archetypes"), dict) else {}
    labels, radii = [], []
    for index, (name, g) in enumerate(groups.items()):
        where = f"groups.{name}"
        if not isinstance(g, dict):
            raise SceneFileError(f"{path}: {where}: expected a mapping")
        count = g.get("count")
        if not isinstance(count, int) or count < 1:
            raise SceneFileError(f"{path}: {where}.count: expected a whole number >= 1, found {count!r}")
        label = g.get("id", index)
        arch = archetypes.get(g.get("archetype")) if isinstance(g.get("archetype"), str) else None
        preset = arch.get("preset") if isinstance(arch, dict) else None
        default = PRESET_RADIUS.get(preset, DEFAULT_RADIUS) if isinstance(preset, str) else DEFAULT_RADIUS
        radius = g.get("radius", default)
        if not isinstance(label, int) or label < 0:
            raise SceneFileError(f"{path}: {where}.id: expected a whole number >= 0, found {label!r}")
        if not isinstance(radius, (int, float)) or not radius > 0:
            raise SceneFileError(f"{path}: {where}.radius: expected a number > 0 (m), found {radius!r}")
        labels.append(np.full(count, label, dtype=np.uint32))
        radii.append(np.full(count, radius, dtype=np.float32))
    # Version 2 (what `throng save` writes): agents one by one after the
    # groups', [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius,
    # archetype, group, path].
    for i, r in enumerate(rows or []):
        if not isinstance(r, list) or len(r) != 14:
            raise SceneFileError(f"{path}: agents.rows[{i}]: expected a row of 14 values")
        labels.append(np.full(1, r[12], dtype=np.uint32))
        radii.append(np.full(1, r[10], dtype=np.float32))
    walls = []
    for i, w in enumerate(doc.get("walls") or []):
        where = f"walls[{i}]"
        closed = False
        if isinstance(w, dict):
            closed = bool(w.get("closed", False))
            w = w.get("points")
        if not isinstance(w, list) or len(w) < 2:
            raise SceneFileError(f"{path}: {where}: expected a segment [[x, y], [x, y]] or {{points: [...]}}")
        pts = [_point(path, where, p) for p in w]
        if closed:
            pts.append(pts[0])
        walls += [a + b for a, b in zip(pts, pts[1:])]
    obstacles = []
    for i, o in enumerate(doc.get("obstacles") or []):
        where = f"obstacles[{i}]"
        if not isinstance(o, dict) or not isinstance(o.get("radius"), (int, float)):
            raise SceneFileError(f"{path}: {where}: expected {{center: [x, y], radius: r}}")
        obstacles.append(_point(path, where + ".center", o.get("center")) + (float(o["radius"]),))
    return {
        "path": path,
        "name": str(doc.get("name", "")),
        "labels": np.concatenate(labels),
        "radii": np.concatenate(radii),
        "walls": np.array(walls, dtype=np.float32).reshape(-1, 4),
        "obstacles": np.array(obstacles, dtype=np.float32).reshape(-1, 3),
    }


def per_agent(crowd, scene):
    """Group labels and radii per agent id of `crowd` (a reader.Crowd), with `scene` or None.

    Labels: the stream's group field (each agent's in the first frame that
    holds it: agents come and go), else the scene file's groups in id
    order, else 0. Radii: from the scene file by group label when each label
    has one radius there (right for a file's run and for a built-in scene's
    file twin, which deals ids differently but keeps the labels), else by id
    (a file's run only), else throng's default.
    """
    n = crowd.agents
    default = np.full(n, DEFAULT_RADIUS, dtype=np.float32)
    if "group" in crowd.fields:
        labels = np.array(crowd.first_values("group"), dtype=np.uint32)  # an agent's label where it first appears
        if scene is None:
            return labels, default
        by_label = {}
        for label, radius in zip(scene["labels"].tolist(), scene["radii"].tolist()):
            by_label.setdefault(label, set()).add(radius)
        if all(len(r) == 1 for r in by_label.values()) and set(np.unique(labels).tolist()) <= by_label.keys():
            lut = {label: r.pop() for label, r in by_label.items()}
            return labels, np.array([lut[v] for v in labels.tolist()], dtype=np.float32)
    elif scene is None:
        return np.zeros(n, dtype=np.uint32), default
    if scene["labels"].size != n:
        raise SceneFileError(f"{scene['path']}: groups: {scene['labels'].size} agents, but the stream "
                             f"{crowd.path} has {n}")
    labels = labels if "group" in crowd.fields else scene["labels"]
    return labels, scene["radii"]
