# SPDX-License-Identifier: MIT
"""Builds an animated throng crowd in Blender.

Design, for 100,000 agents x 600 frames:
- One mesh object per group label whose vertices are the group's agents
  (vertex j of group g is the agent idx_g[j]; the object keeps the ids in
  the `throng_id` attribute). A shared Geometry Nodes group puts an
  instance of the agent shape on every vertex, turned by the `throng_yaw`
  attribute and scaled by `throng_radius`, with the group's material: the
  crowd costs a handful of objects, never one per agent.
- Nothing is baked. A frame-change handler reads the frame it needs from
  the memory-mapped stream (reader.py) and writes the positions and
  headings into the meshes with foreach_set (numpy buffers, no per-agent
  Python): memory stays at one frame whatever the run's length, and
  renders (`blender -b ... -a`) see every frame.
- Saved .blend files keep the stream's path on the collection; the add-on's
  load handler reconnects them when the file is opened again.
- Agents that come and go (stream version 2): every agent the run ever
  held has its vertex; on a frame that does not hold it, the handler sets
  its `throng_radius` to 0, so its instance is scaled to nothing (hidden),
  and back to its radius on the frames that hold it. Nothing is keyed.
  The dead of a battle (combat removes them) are hidden so.
- A stream with health or combat_state (version 2.1, `--fields
  ...,health,combat_state`) also gives each vertex a `throng_health`
  (float) or `throng_combat_state` (int: 1 struck, 2 hit in that step)
  attribute, set every frame, for a shader to dim the wounded or an
  animation to swing and flinch.

Coordinates: throng's x, y (m) are Blender's x, y on the ground (z = 0),
so throng's "Y up" is up in Blender's top view. Blender frame
`frame_start + k` shows stream frame k; frames outside the run hold the
first or last frame.
"""
import math
import os

import bpy
import numpy as np

from . import reader, scenefile

# Okabe and Ito's colour-blind-safe colours (sRGB), as throng-view's
# viewer/palette.h has them. Every group its own side: SIDE_COLORS, in an
# order where neighbouring labels differ most (`armies` labels each army
# by one group: 0 blue, 1 vermillion). Armies of several groups (group
# label = army_groups * army + role, as in `charge`): army 0 the blues and
# the bluish green, army 1 the vermillion, orange and reddish purple
# (ARMY_COLORS[3 * (army % 2) + role % 3]), so the two armies are told
# apart at a glance by hue, their roles by shade.
SIDE_COLORS = ("0072b2", "d55e00", "009e73", "e69f00", "cc79a7", "56b4e9", "f0e442", "999999")
ARMY_COLORS = ("0072b2", "56b4e9", "009e73", "d55e00", "e69f00", "cc79a7")
ARMY_SCENES = {"charge": 3}  # scenes whose groups make armies of several groups: the groups per army
GROUND_SRGB = "d8d8d0"
WALL_SRGB = "303030"
BACKGROUND_SRGB = "f4f6f8"  # the world behind the ground, in the camera's corners
SHAPE_HEIGHT = 1.7 / 0.3  # the agent shape is modelled for radius 1: a 0.3 m agent stands 1.7 m tall
SHAPE_TOP = SHAPE_HEIGHT + 0.6  # its nose's top, radii above the ground
CAMERAS = ("perspective", "top")
CAMERA_PITCH = 55.0  # degrees below the horizon, the perspective camera's view
CAMERA_LENS = 35.0  # mm, on a 36 mm sensor: 54 degrees across the longer side
CAMERA_MARGIN = 0.03  # of the frame's width and height, kept clear on every side
WALL_HEIGHT = 2.0  # m
WALL_THICKNESS = 0.2  # m

_players = {}  # collection name -> Player


def srgb_to_linear(hex6):
    """'rrggbb' (sRGB) to Blender's linear (r, g, b, 1)."""
    out = []
    for i in (0, 2, 4):
        c = int(hex6[i:i + 2], 16) / 255.0
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return (*out, 1.0)


def group_srgb(label, army_groups=1):
    """The colour ('rrggbb', sRGB) of group `label` when each army has `army_groups` groups (1: no armies)."""
    if army_groups > 1:
        return ARMY_COLORS[3 * (label // army_groups % 2) + label % army_groups % 3]
    return SIDE_COLORS[label % len(SIDE_COLORS)]


def groups_per_army(crowd, scene):
    """Groups per army: ARMY_SCENES's for a stream or scene file of such a scene, else 1 (no armies)."""
    names = (crowd.scenario, scene["name"] if scene else None)
    return next((ARMY_SCENES[n] for n in names if n in ARMY_SCENES), 1)


def _material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba  # what Workbench shows
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    if bsdf is not None:  # what Cycles and EEVEE show
        bsdf.inputs["Base Color"].default_value = rgba
        bsdf.inputs["Roughness"].default_value = 0.8
    return mat


def _mesh_object(name, verts, faces, coll):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(v) for v in verts], [], faces)
    me.update()
    ob = bpy.data.objects.new(name, me)
    coll.objects.link(ob)
    return ob


def _agent_shape(coll):
    """A low-poly pawn of radius 1 facing +x: a 12-sided prism and a nose wedge on top."""
    sides, h = 12, SHAPE_HEIGHT
    verts = [(math.cos(2 * math.pi * i / sides), math.sin(2 * math.pi * i / sides), z)
             for z in (0.0, h) for i in range(sides)]
    faces = [(i, (i + 1) % sides, sides + (i + 1) % sides, sides + i) for i in range(sides)]
    faces += [tuple(reversed(range(sides))), tuple(range(sides, 2 * sides))]
    b = len(verts)  # the nose: a wedge from the centre line out to 1.4 radii
    verts += [(0.3, -0.45, h), (0.3, 0.45, h), (1.4, 0.0, h), (0.3, -0.45, h + 0.6), (0.3, 0.45, h + 0.6),
              (1.4, 0.0, h + 0.15)]
    faces += [(b, b + 2, b + 1), (b + 3, b + 4, b + 5), (b, b + 3, b + 5, b + 2), (b + 1, b + 2, b + 5, b + 4),
              (b, b + 1, b + 4, b + 3)]
    ob = _mesh_object("throng agent shape", verts, faces, coll)
    ob.hide_render = True
    ob.hide_set(True)
    return ob


def _float_output(named_attribute):
    """The Named Attribute node's float output (it has one "Attribute" output per data type)."""
    return next(o for o in named_attribute.outputs if o.type == "VALUE")


def _node_group(shape):
    """Geometry Nodes: an instance of `shape` on every point, turned and scaled per agent."""
    ng = bpy.data.node_groups.new("throng agents", "GeometryNodeTree")
    ng.inputs.new("NodeSocketGeometry", "Geometry")
    ng.inputs.new("NodeSocketMaterial", "Material")
    ng.outputs.new("NodeSocketGeometry", "Geometry")
    n, link = ng.nodes, ng.links.new
    gin, gout = n.new("NodeGroupInput"), n.new("NodeGroupOutput")
    info = n.new("GeometryNodeObjectInfo")
    info.inputs["Object"].default_value = shape
    setmat = n.new("GeometryNodeSetMaterial")
    inst = n.new("GeometryNodeInstanceOnPoints")
    yaw, rad = n.new("GeometryNodeInputNamedAttribute"), n.new("GeometryNodeInputNamedAttribute")
    for node, name in ((yaw, "throng_yaw"), (rad, "throng_radius")):
        node.data_type = "FLOAT"
        node.inputs["Name"].default_value = name
    rot = n.new("ShaderNodeCombineXYZ")
    link(info.outputs["Geometry"], setmat.inputs["Geometry"])
    link(gin.outputs["Material"], setmat.inputs["Material"])
    link(gin.outputs["Geometry"], inst.inputs["Points"])
    link(setmat.outputs["Geometry"], inst.inputs["Instance"])
    link(_float_output(yaw), rot.inputs["Z"])
    link(rot.outputs["Vector"], inst.inputs["Rotation"])
    link(_float_output(rad), inst.inputs["Scale"])
    link(inst.outputs["Instances"], gout.inputs["Geometry"])
    return ng


class Player:
    """Writes stream frame k into the group meshes when Blender shows frame frame_start + k.

    radii: every agent's radius; an agent frame k does not hold is given
    radius 0 there (hidden), when the crowd has churn."""

    def __init__(self, crowd, groups, frame_start, radii):
        self.crowd, self.groups, self.frame_start = crowd, groups, frame_start  # groups: [(index, mesh name)]
        self.radii = np.asarray(radii, dtype=np.float32)
        self.shown = None

    def update(self, frame):
        k = min(max(frame - self.frame_start, 0), self.crowd.frames - 1)
        if k == self.shown:
            return
        f = self.crowd.frame(k)
        x, y = f["x"], f["y"]
        if "hx" in f:
            yaw = np.arctan2(f["hy"], f["hx"]).astype(np.float32)
        elif "vx" in f:
            yaw = np.arctan2(f["vy"], f["vx"]).astype(np.float32)
        else:
            yaw = np.zeros(self.crowd.agents, dtype=np.float32)
        for idx, mesh_name in self.groups:
            me = bpy.data.meshes.get(mesh_name)
            if me is None:  # the user deleted it
                continue
            co = np.zeros((len(me.vertices), 3), dtype=np.float32)
            co[:, 0] = x[idx]
            co[:, 1] = y[idx]
            me.vertices.foreach_set("co", co.ravel())
            me.attributes["throng_yaw"].data.foreach_set("value", np.ascontiguousarray(yaw[idx]))
            if "health" in f and "throng_health" in me.attributes:  # combat (stream 2.1): for a shader to dim the wounded
                me.attributes["throng_health"].data.foreach_set("value", np.ascontiguousarray(f["health"][idx], np.float32))
            if "combat_state" in f and "throng_combat_state" in me.attributes:  # struck (1), hit (2) in that step
                me.attributes["throng_combat_state"].data.foreach_set(
                    "value", np.ascontiguousarray(f["combat_state"][idx], np.int32))
            if self.crowd.churn:  # absent agents shrink to nothing
                shown = np.where(f["present"][idx], self.radii[idx], np.float32(0))
                me.attributes["throng_radius"].data.foreach_set("value", np.ascontiguousarray(shown, np.float32))
            me.update()
        self.shown = k


def _index(mask):
    """Agents (indices into the crowd's ids) where mask holds: a slice when they
    are consecutive (cheaper gathers)."""
    idx = np.flatnonzero(mask)
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _walls(name, segs, coll):
    """Each segment as a box WALL_THICKNESS wide and WALL_HEIGHT tall (numpy, no loop per wall)."""
    a, b = segs[:, 0:2], segs[:, 2:4]
    d = b - a
    nrm = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.maximum(np.linalg.norm(d, axis=1), 1e-9)[:, None]
    off = nrm * (WALL_THICKNESS / 2)
    base = np.stack([a - off, b - off, b + off, a + off], axis=1)  # (K, 4, 2)
    verts = np.zeros((len(segs), 8, 3), dtype=np.float32)
    verts[:, :4, :2] = base
    verts[:, 4:, :2] = base
    verts[:, 4:, 2] = WALL_HEIGHT
    box = np.array([[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]])
    faces = (box[None, :, :] + 8 * np.arange(len(segs))[:, None, None]).reshape(-1, 4)
    me = bpy.data.meshes.new(name)
    me.vertices.add(len(segs) * 8)
    me.vertices.foreach_set("co", verts.ravel())
    me.loops.add(faces.size)
    me.loops.foreach_set("vertex_index", faces.ravel().astype(np.int32))
    me.polygons.add(len(faces))
    me.polygons.foreach_set("loop_start", np.arange(0, faces.size, 4, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(faces), 4, dtype=np.int32))
    me.update(calc_edges=True)
    ob = bpy.data.objects.new(name, me)
    coll.objects.link(ob)
    return ob


def _obstacles(name, obs, coll, sides=16):
    """Each obstacle as a 16-sided prism of its radius, WALL_HEIGHT tall."""
    t = 2 * np.pi * np.arange(sides) / sides
    ring = np.stack([np.cos(t), np.sin(t)], axis=1)  # (S, 2)
    k = len(obs)
    verts = np.zeros((k, 2 * sides, 3), dtype=np.float32)
    xy = obs[:, None, :2] + obs[:, None, 2:3] * ring[None]
    verts[:, :sides, :2] = xy
    verts[:, sides:, :2] = xy
    verts[:, sides:, 2] = WALL_HEIGHT
    me = bpy.data.meshes.new(name)
    faces = []
    for j in range(k):
        o = 2 * sides * j
        faces += [(o + i, o + (i + 1) % sides, o + sides + (i + 1) % sides, o + sides + i) for i in range(sides)]
        faces.append(tuple(o + sides + i for i in range(sides)))
    me.from_pydata(verts.reshape(-1, 3).tolist(), [], faces)
    me.update()
    ob = bpy.data.objects.new(name, me)
    coll.objects.link(ob)
    return ob


def import_crowd(path, scene_file=None, frame_start=1, ground=True, camera="perspective", context=None,
                 army_groups=0):
    """Imports the throng output at `path` (a binary stream or CSV) into the current scene.

    scene_file: the scenario file (YAML or JSON) for radii, group labels,
    walls and obstacles. Everything is read and checked before anything is
    built: a malformed input raises reader.ThrongReadError (or
    scenefile.SceneFileError) and leaves the .blend file untouched.
    camera: "perspective" (from the south, looking down at CAMERA_PITCH),
    "top" (orthographic, straight down) or None; either frames the whole
    scene for the render's aspect at import (fit_camera frames it again).
    army_groups: groups per army (group label = army_groups * army + role),
    0 for the scene's own (ARMY_SCENES, else 1: every group a side).
    Returns the new collection.
    """
    context = context or bpy.context
    crowd = reader.read(path)
    if "x" not in crowd.fields or "y" not in crowd.fields:
        raise reader.ThrongReadError(f"{path}: the stream has no positions (write it with x and y in --fields)",
                                     path=path, field="x" if "x" not in crowd.fields else "y")
    scene = scenefile.read_scene(scene_file) if scene_file else None
    labels, radii = scenefile.per_agent(crowd, scene)
    army_groups = army_groups or groups_per_army(crowd, scene)

    name = f"throng {crowd.scenario or 'crowd'}"
    coll = bpy.data.collections.new(name)
    context.scene.collection.children.link(coll)
    shape = _agent_shape(coll)
    ng = _node_group(shape)
    mat_input = ng.inputs["Material"].identifier
    groups = []
    ids = crowd.ids.astype(np.int32)  # throng's ids: with churn, not 0 .. agents-1
    for label in np.unique(labels):
        idx = _index(labels == label)
        m = len(ids[idx])
        me = bpy.data.meshes.new(f"throng group {label}")
        me.vertices.add(m)
        me.attributes.new("throng_id", "INT", "POINT").data.foreach_set("value", ids[idx])
        me.attributes.new("throng_radius", "FLOAT", "POINT").data.foreach_set("value", radii[idx])
        me.attributes.new("throng_yaw", "FLOAT", "POINT")
        if "health" in crowd.fields:
            me.attributes.new("throng_health", "FLOAT", "POINT")
        if "combat_state" in crowd.fields:
            me.attributes.new("throng_combat_state", "INT", "POINT")
        ob = bpy.data.objects.new(me.name, me)
        ob["throng_group"] = int(label)
        coll.objects.link(ob)
        mod = ob.modifiers.new("throng agents", "NODES")
        mod.node_group = ng
        mod[mat_input] = _material(f"throng group {label}", srgb_to_linear(group_srgb(int(label), army_groups)))
        groups.append((idx, me.name))
    if scene is not None and len(scene["walls"]):
        walls = _walls("throng walls", scene["walls"], coll)
        walls.data.materials.append(_material("throng walls", srgb_to_linear(WALL_SRGB)))
    if scene is not None and len(scene["obstacles"]):
        obstacles = _obstacles("throng obstacles", scene["obstacles"], coll)
        obstacles.data.materials.append(_material("throng obstacles", srgb_to_linear(WALL_SRGB)))
    x0, y0, x1, y1 = crowd.bounds if crowd.bounds else _extent(crowd)
    if ground:
        g = _mesh_object("throng ground", [(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)], [(0, 1, 2, 3)], coll)
        g.data.materials.append(_material("throng ground", srgb_to_linear(GROUND_SRGB)))
    if camera in CAMERAS:
        top = max(WALL_HEIGHT if scene is not None and len(scene["walls"]) + len(scene["obstacles"]) else 0.0,
                  SHAPE_TOP * float(np.max(radii, initial=0.0)))
        box = _scene_box((x0, y0, x1, y1), scene, top)
        context.scene.camera = _camera(camera, box, context.scene, coll)
    sc = context.scene
    rate = crowd.fps
    sc.render.fps = max(1, round(rate))
    sc.render.fps_base = sc.render.fps / rate
    sc.frame_start, sc.frame_end = frame_start, frame_start + crowd.frames - 1
    coll["throng_path"] = os.path.abspath(bpy.path.abspath(path))  # reopened from anywhere
    coll["throng_frame_start"] = frame_start
    coll["throng_scene_file"] = os.path.abspath(bpy.path.abspath(scene_file)) if scene_file else ""
    _players[coll.name] = Player(crowd, groups, frame_start, radii)
    _players[coll.name].update(sc.frame_current)
    return coll


def _scene_box(bounds, scene, top):
    """The box (x0, y0, z0, x1, y1, z1), m, that holds the world's bounds, the walls and the obstacles."""
    x0, y0, x1, y1 = bounds
    if scene is not None:
        walls, obs, t = scene["walls"], scene["obstacles"], WALL_THICKNESS / 2
        xs = [walls[:, 0::2].ravel() - t, walls[:, 0::2].ravel() + t, obs[:, 0] - obs[:, 2], obs[:, 0] + obs[:, 2]]
        ys = [walls[:, 1::2].ravel() - t, walls[:, 1::2].ravel() + t, obs[:, 1] - obs[:, 2], obs[:, 1] + obs[:, 2]]
        x0, x1 = min(x0, *(float(v.min(initial=x0)) for v in xs)), max(x1, *(float(v.max(initial=x1)) for v in xs))
        y0, y1 = min(y0, *(float(v.min(initial=y0)) for v in ys)), max(y1, *(float(v.max(initial=y1)) for v in ys))
    return (x0, y0, 0.0, x1, y1, top)


def _camera(kind, box, scene, coll):
    """The camera `kind` (CAMERAS) over `box`, framed for the scene's render aspect."""
    cam = bpy.data.cameras.new(f"throng {kind}")
    cam.type = "ORTHO" if kind == "top" else "PERSP"
    cam.lens, cam.sensor_width, cam.sensor_fit = CAMERA_LENS, 36.0, "AUTO"
    cob = bpy.data.objects.new(cam.name, cam)
    cob["throng_box"] = list(box)
    cob.rotation_euler = (0.0 if kind == "top" else math.radians(90.0 - CAMERA_PITCH), 0.0, 0.0)
    coll.objects.link(cob)
    fit_camera(cob, scene)
    return cob


def fit_camera(cob, scene):
    """Moves (and zooms) throng's camera `cob` so that its box fills the frame
    of `scene`'s render aspect but for CAMERA_MARGIN on every side.

    The camera keeps its rotation. Perspective: for each screen axis, the
    box's corners i and j fit side by side at distance D along the view
    when D >= (q_i - q_j) / (2 k) + (z_i + z_j) / 2 (q across the axis, z
    along the view, camera space about the box's centre, k the tangent of
    the half field of view less the margin); the camera stands at the
    largest such D, shifted across to centre the corners. Orthographic:
    the box's width or height, whichever the aspect makes longer, sets the
    scale."""
    r = scene.render
    aspect = (r.resolution_x * r.pixel_aspect_x) / (r.resolution_y * r.pixel_aspect_y)
    x0, y0, z0, x1, y1, z1 = cob["throng_box"]
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2])
    corners = np.array([(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]) - centre
    rot = np.array(cob.rotation_euler.to_matrix())  # columns: the camera's right, up and back
    q = corners @ rot  # camera space about the centre
    cam, fill = cob.data, 1.0 - 2.0 * CAMERA_MARGIN
    if cam.type == "ORTHO":
        w, h = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        cam.ortho_scale = max(w, h * aspect) / fill if aspect >= 1 else max(h, w / aspect) / fill
        dist = float(q[:, 2].max()) + 50.0
        shift = (q[:, :2].max(axis=0) + q[:, :2].min(axis=0)) / 2
    else:
        tan = cam.sensor_width / (2.0 * cam.lens)
        ks = fill * np.array([tan, tan / aspect] if aspect >= 1 else [tan * aspect, tan])
        z = q[:, 2]
        dist = max(float(((q[:, a, None] - q[None, :, a]) / (2 * k) + (z[:, None] + z[None, :]) / 2).max())
                   for a, k in enumerate(ks))
        shift = np.array([((q[:, a] - k * (dist - z)).max() + (q[:, a] + k * (dist - z)).min()) / 2
                          for a, k in enumerate(ks)])
    cob.location = tuple(centre + rot @ np.array([shift[0], shift[1], dist]))
    cam.clip_start = 0.1
    cam.clip_end = dist + float(np.abs(q).max()) * 2 + 10.0


def _extent(crowd):
    """The first frame's agents' extent, grown by 1 m (a CSV has no bounds)."""
    f = next((f for f in map(crowd.frame, range(crowd.frames)) if f["present"].any()), None)
    if f is None:
        return -1.0, -1.0, 1.0, 1.0
    x, y = f["x"][f["present"]], f["y"][f["present"]]
    return float(x.min()) - 1, float(y.min()) - 1, float(x.max()) + 1, float(y.max()) + 1


def reconnect(coll):
    """Rebuilds the player of a saved crowd collection (after the .blend is opened again)."""
    crowd = reader.read(coll["throng_path"])
    groups = []
    scene = scenefile.read_scene(coll["throng_scene_file"]) if coll.get("throng_scene_file") else None
    labels, radii = scenefile.per_agent(crowd, scene)
    for ob in coll.objects:
        if "throng_group" in ob.keys() and ob.type == "MESH":
            groups.append((_index(labels == ob["throng_group"]), ob.data.name))
    _players[coll.name] = Player(crowd, groups, int(coll["throng_frame_start"]), radii)


def on_frame_change(scene, depsgraph=None):
    for p in list(_players.values()):
        p.update(scene.frame_current)


def forget_all():
    _players.clear()
