# SPDX-License-Identifier: MIT
"""The renderer test (ctest renderer_blender): run inside Blender, headless.

    throng run examples/blender/test_scene.yaml --fields all --every 4 --out DIR/run.thr
    throng run examples/blender/test_scene.yaml --fields all --every 4 --out DIR/run.csv
    blender -b --python-exit-code 1 --python test_render.py -- DIR

1. Damaged copies of the stream (a flipped byte in a frame, a cut inside a
   frame, a byte after the end record) must fail with the reader's error
   and leave Blender's data exactly as it was: no half crowd.
2. The stream is imported with its scene file; frame 0 and the last frame
   are rendered by Workbench through a fixed orthographic camera, and in
   each PNG every agent must show in its group's colour where its position
   projects, over a disc of its radius, with the nose on the side its
   heading points to; every other coloured pixel must belong to an agent,
   the wall or the obstacle; where the crowd stood at frame 0 the last
   frame must be empty ground.
3. The CSV of the same run imports to the same positions, bit for bit.
4. Agents that come and go (a version 2 stream written by test_reader.py's
   writer): an agent absent from a frame has radius 0 there (its instance
   shrinks to nothing) and is not drawn; one that comes in is drawn from
   its first frame; an agent's vertex keeps its throng id.
5. The default picture of `armies` (DIR/armies.thr, its first frames):
   rendered as throng_import.py renders it (studio light, the perspective
   camera), the west half of the world shows army 0's blues and the east
   half army 1's vermillion and orange, their hues far apart; with either
   camera at 1280x720 and 720x1280, every corner of the scene's box
   projects inside the frame with a margin, and every pixel of the
   picture's border is background.
6. `throng_import.py -- --help` exits 0 and lists every option, each with
   its meaning; the importer's colours are throng-view's (viewer/palette.h).
"""
import colorsys
import math
import os
import re
import struct
import subprocess
import sys

import bpy
import numpy as np
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Vector

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import check, failures  # noqa: E402
import io_import_throng  # noqa: E402
from io_import_throng import crowd, reader, scenefile  # noqa: E402
import throng_import  # noqa: E402  (its render settings)

CENTER, SCALE, RES = (0.0, -1.0), 20.0, 512  # camera: the 20 m square around (0, -1), 512 x 512 px
TOL = 4  # colour tolerance, 0-255


def srgb8(hex6):
    return np.array([int(hex6[i:i + 2], 16) for i in (0, 2, 4)])


def datablock_counts():
    d = bpy.data
    return [len(c) for c in (d.objects, d.meshes, d.collections, d.materials, d.node_groups, d.cameras)]


def damaged_streams(good, out_dir):
    raw = open(good, "rb").read()
    (header_bytes,) = struct.unpack_from("<I", raw, 16)
    (frame_bytes,) = struct.unpack_from("<Q", raw, header_bytes + 32)  # version 2: frame 0's own size
    f5 = header_bytes + 5 * frame_bytes  # a run without churn: frames of one size
    flip = bytearray(raw)
    flip[f5 + 100] ^= 0x10  # in the arrays: caught by the checksum
    cases = {
        "flipped": (bytes(flip), f"byte offset {f5 + 4}: frame 5 checksum mismatch"),
        "cut": (raw[:f5 + 100], f"byte offset {f5 + 100}: the stream ends inside frame 5"),
        "trailing": (raw + b"\0", f"byte offset {len(raw)}: data after the end record"),
    }
    for name, (data, expect) in cases.items():
        path = os.path.join(out_dir, f"bad_{name}.thr")
        with open(path, "wb") as f:
            f.write(data)
        yield name, path, expect


def test_malformed(good, scene_file, out_dir):
    for name, path, expect in damaged_streams(good, out_dir):
        before = datablock_counts()
        try:
            crowd.import_crowd(path, scene_file)
            check(False, f"{name}: the damaged stream was imported")
        except reader.ThrongReadError as e:
            check(str(e) == f"{path}: {expect}" or str(e).startswith(f"{path}: {expect} "),
                  f"{name}: error {str(e)!r}, expected {path}: {expect}...")
        check(datablock_counts() == before, f"{name}: the failed import left data behind "
              f"({before} -> {datablock_counts()})")
    # A stream stopped at a frame boundary (no end record) is whole: it imports.
    raw = open(good, "rb").read()
    stopped = os.path.join(out_dir, "stopped.thr")
    with open(stopped, "wb") as f:
        f.write(raw[:-16])
    c = reader.read_stream(stopped)
    check(not c.complete and c.frames == reader.read_stream(good).frames, "a stopped stream reads whole")
    try:
        scenefile.read_scene(os.path.join(out_dir, "missing.yaml"))
        check(False, "a missing scene file was read")
    except scenefile.SceneFileError as e:
        check("cannot read" in str(e), f"missing scene file: {e}")


def render(scene, frame, path):
    scene.frame_set(frame)
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(path)
    px = np.array(img.pixels[:], dtype=np.float32).reshape(img.size[1], img.size[0], 4)
    bpy.data.images.remove(img)
    return np.rint(px[:, :, :3] * 255).astype(np.int32)  # rows bottom-up, as Blender stores them


def to_px(x, y):
    return (int(math.floor(((x - CENTER[0]) / SCALE + 0.5) * RES)),
            int(math.floor(((y - CENTER[1]) / SCALE + 0.5) * RES)))


def colour_at(img, x, y):
    c, r = to_px(x, y)
    return img[r, c]


def near(a, b):
    return int(np.abs(np.asarray(a) - np.asarray(b)).max()) <= TOL


def check_frame(img, frame, radii, labels, tag):
    ground, wall = srgb8(crowd.GROUND_SRGB), srgb8(crowd.WALL_SRGB)
    x, y, hx, hy = frame["x"], frame["y"], frame["hx"], frame["hy"]
    for i in range(len(x)):
        c, r = srgb8(crowd.group_srgb(int(labels[i]))), float(radii[i])
        got = colour_at(img, x[i], y[i])
        check(near(got, c), f"{tag}: agent {i} at ({x[i]:.2f}, {y[i]:.2f}) shows {got}, expected group "
              f"{labels[i]}'s {c}")
        for a in np.linspace(0, 2 * np.pi, 8, endpoint=False):  # the disc reaches 0.8 r all round
            p = (x[i] + 0.8 * r * math.cos(a), y[i] + 0.8 * r * math.sin(a))
            check(near(colour_at(img, *p), c), f"{tag}: agent {i}'s disc does not reach 0.8 r at angle {a:.2f}")
        for sign, want, what in ((1, c, "nose ahead"), (-1, ground, "ground behind")):
            p = (x[i] + sign * 1.15 * r * hx[i], y[i] + sign * 1.15 * r * hy[i])
            check(near(colour_at(img, *p), want), f"{tag}: agent {i}: expected its {what} at 1.15 r, found "
                  f"{colour_at(img, *p)}")
        for sign in (1, -1):  # sideways, past the radius: ground
            p = (x[i] - sign * 1.15 * r * hy[i], y[i] + sign * 1.15 * r * hx[i])
            check(near(colour_at(img, *p), ground), f"{tag}: agent {i} is wider than its radius")
    check(near(colour_at(img, 0, 8), wall), f"{tag}: no wall at (0, 8)")
    check(near(colour_at(img, 0, -9.5), wall), f"{tag}: no obstacle at (0, -9.5)")
    # Every pixel off the ground is an agent's (within 1.4 r plus a pixel), the wall's or the obstacle's.
    rows, cols = np.nonzero(np.abs(img - ground).max(axis=2) > TOL)
    wx = (cols + 0.5) / RES * SCALE - SCALE / 2 + CENTER[0]
    wy = (rows + 0.5) / RES * SCALE - SCALE / 2 + CENTER[1]
    ok = (np.abs(wy - 8) <= 0.2) & (np.abs(wx) <= 8.2)
    ok |= np.hypot(wx, wy + 9.5) <= 1.1
    for i in range(len(x)):
        ok |= np.hypot(wx - x[i], wy - y[i]) <= 1.4 * radii[i] + 1.5 * SCALE / RES
    check(bool(ok.all()), f"{tag}: {int((~ok).sum())} coloured pixels where nothing stands, e.g. "
          f"({wx[~ok][:3]}, {wy[~ok][:3]})")


def churn_render(scene, out_dir):
    """Agent 5 stands at (4, 2) in frame 0 and is gone in frame 1; agent 9
    comes in at (-6, 2) in frame 1; agents 3 and 8 stay."""
    from test_reader import write_stream2
    path = os.path.join(out_dir, "churn.thr")
    data = [([3, 5, 8], {"x": [1.0, 4.0, -3.0], "y": [2.0] * 3, "group": [0] * 3}),
            ([3, 8, 9], {"x": [1.0, -3.0, -6.0], "y": [2.0] * 3, "group": [0] * 3})]
    with open(path, "wb") as f:
        f.write(write_stream2(data))
    for c in list(bpy.data.collections):  # only the churned crowd in the picture
        c.hide_render = True
    coll = crowd.import_crowd(path, ground=False, camera=False, frame_start=1)
    mesh = next(ob.data for ob in coll.objects if "throng_group" in ob.keys())
    ids = np.zeros(len(mesh.vertices), dtype=np.int32)
    mesh.attributes["throng_id"].data.foreach_get("value", ids)
    check(ids.tolist() == [3, 5, 8, 9], f"churn: the vertices' throng ids {ids.tolist()}")
    colour = srgb8(crowd.group_srgb(0))
    r = scenefile.DEFAULT_RADIUS
    for frame, shown in ((1, [r, r, r, 0]), (2, [r, 0, r, r])):
        img = render(scene, frame, os.path.join(out_dir, f"churn_{frame}.png"))
        radii = np.zeros(len(ids), dtype=np.float32)
        mesh.attributes["throng_radius"].data.foreach_get("value", radii)
        check(np.allclose(radii, shown), f"churn frame {frame}: radii {radii.tolist()}, expected {shown}")
        for x, there in ((4.0, frame == 1), (-6.0, frame == 2), (1.0, True)):
            got = colour_at(img, x, 2.0)
            check(near(got, colour) if there else not near(got, colour),
                  f"churn frame {frame}: at ({x}, 2) {got}, expected {'an agent' if there else 'no agent'}")


def import_alone(scene, run, scene_file, camera, resolution, percent):
    """`run` imported alone in the picture, as throng_import.py does it, rendered at `percent` of
    `resolution` with one sample a pixel (fast; no edge blends an agent's colour into the ground)."""
    for c in bpy.data.collections:
        c.hide_render = True
    throng_import.set_render(scene, "workbench", resolution)
    coll = crowd.import_crowd(run, scene_file, camera=camera)
    scene.render.resolution_percentage = percent
    scene.display.render_aa = "OFF"
    bpy.context.view_layer.update()  # the camera's matrix, for world_to_camera_view
    return coll


def hues(img):
    """Each pixel's hue (degrees) where it is saturated and not dark, else nan (ground, background, shade)."""
    rgb = img.reshape(-1, 3) / 255.0
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb])
    h = np.where((hsv[:, 1] > 0.4) & (hsv[:, 2] > 0.25), hsv[:, 0] * 360.0, np.nan)
    return h.reshape(img.shape[:2])


def armies_colours(scene, out_dir):
    """At frame 0 army 0 stands west of x = 0 and army 1 east: each half in its army's hue family."""
    import_alone(scene, os.path.join(out_dir, "armies.thr"), None, "perspective", "1280x720", 50)
    img = render(scene, 1, os.path.join(out_dir, "armies.png"))
    h = hues(img)
    cam = scene.camera
    split = world_to_camera_view(scene, cam, Vector((0.0, 0.0, 0.0))).x * img.shape[1]
    blue = (h >= 150) & (h <= 215)  # Okabe-Ito blue, sky blue, bluish green
    red = (h <= 50) | (h >= 300)  # vermillion, orange, reddish purple
    cols = np.arange(img.shape[1])[None, :]
    west, east = cols < split, cols >= split
    counts = {k: int(v.sum()) for k, v in (("west blue", blue & west), ("west red", red & west),
                                           ("east blue", blue & east), ("east red", red & east))}
    print(f"test_render.py: armies: saturated pixels {counts}")
    check(counts["west blue"] >= 200 and counts["east red"] >= 200, f"armies: too few army pixels {counts}")
    check(counts["west red"] * 20 <= counts["west blue"] and counts["east blue"] * 20 <= counts["east red"],
          f"armies: the armies' colours mix {counts}")
    mean = [math.degrees(np.angle(np.nanmean(np.exp(1j * np.radians(h[m & ~np.isnan(h)])))))
            for m in (west, east)]
    gap = abs((mean[0] - mean[1] + 180) % 360 - 180)
    check(gap >= 120, f"armies: the west's mean hue {mean[0]:.0f} and the east's {mean[1]:.0f} are {gap:.0f} "
          "degrees apart, expected 120 or more")


def no_crop(scene, out_dir, run, scene_file, kind, resolution):
    """The scene's box (bounds, walls, their height) projects inside the frame with the camera's margin,
    fills it along one axis, and the picture's border is background; so do the walls' tops."""
    import_alone(scene, run, scene_file, kind, resolution, 20)
    cam = scene.camera
    x0, y0, z0, x1, y1, z1 = cam["throng_box"]
    points = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    walls = scenefile.read_scene(scene_file)["walls"] if scene_file else np.zeros((0, 4))
    points += [(float(w[k]), float(w[k + 1]), crowd.WALL_HEIGHT) for w in walls for k in (0, 2)]
    uv = np.array([tuple(world_to_camera_view(scene, cam, Vector(p)))[:2] for p in points])
    tag = f"{os.path.basename(run)} {kind} {resolution}"
    m = crowd.CAMERA_MARGIN - 1e-4
    check(bool((uv >= m).all() and (uv <= 1 - m).all()), f"{tag}: the scene's corners project to {uv.round(3)}")
    check(float(np.ptp(uv, axis=0).max()) >= 1 - 2 * m - 1e-3, f"{tag}: the scene fills {np.ptp(uv, axis=0)}")
    img = render(scene, 1, os.path.join(out_dir, f"crop_{os.path.basename(run)}_{kind}_{resolution}.png"))
    back = srgb8(crowd.BACKGROUND_SRGB)
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    off = int((np.abs(border - back).max(axis=1) > TOL).sum())
    check(off == 0, f"{tag}: {off} border pixels are not background (the scene is cropped)")
    check(int((np.abs(img - back).max(axis=2) > TOL).sum()) > img.shape[0] * img.shape[1] // 4,
          f"{tag}: the scene covers less than a quarter of the picture")


def check_help():
    """`blender ... throng_import.py -- --help`: exit 0, every option with its meaning."""
    script = os.path.join(HERE, "throng_import.py")
    p = subprocess.run([bpy.app.binary_path, "-b", "--factory-startup", "--python-exit-code", "1", "--python",
                        script, "--", "--help"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"--help: exit {p.returncode}: {p.stderr}")
    for action in throng_import.parser()._actions:
        names = action.option_strings or [action.metavar]
        check(all(n in p.stdout for n in names) and bool(action.help),
              f"--help does not list {names} with a meaning")
        if action.default not in (None, False) and action.option_strings and action.dest != "help":
            check("default" in action.help, f"--help: {names} does not say its default")


def check_palette():
    """The importer's Okabe-Ito colours are throng-view's VW_SIDE_COLORS and VW_ARMY_COLORS."""
    with open(os.path.join(HERE, "..", "..", "viewer", "palette.h")) as f:
        text = f.read()
    for name, ours in (("VW_SIDE_COLORS", crowd.SIDE_COLORS), ("VW_ARMY_COLORS", crowd.ARMY_COLORS)):
        block = re.search(name + r"\[VW_COLOR_COUNT\] = \{(.*?)\};", text, re.S)
        rgb = re.findall(r"\{(\d+), (\d+), (\d+), 255\}", block.group(1)) if block else []
        theirs = ["%02x%02x%02x" % tuple(int(v) for v in c) for c in rgb]
        check(theirs[:len(ours)] == list(ours), f"crowd.py's colours {ours} are not {name}'s {theirs}")


def main(out_dir):
    good = os.path.join(out_dir, "run.thr")
    scene_file = os.path.join(HERE, "test_scene.yaml")
    io_import_throng.register()
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob)
    test_malformed(good, scene_file, out_dir)

    scene = bpy.context.scene
    coll = crowd.import_crowd(good, scene_file)
    run = reader.read_stream(good)
    check(scene.frame_start == 1 and scene.frame_end == run.frames, "frame range is the stream's")
    fps = scene.render.fps / scene.render.fps_base
    check(abs(fps - 1 / (run.dt * run.every)) < 1e-6, f"frame rate {fps}, expected 1 / (dt * every)")
    throng_import.set_render(scene, "workbench", f"{RES}x{RES}", "flat")
    scene.display.render_aa = "OFF"  # every pixel one sample: exact colours up to the edges
    cam = bpy.data.cameras.new("test camera")
    cam.type, cam.ortho_scale = "ORTHO", SCALE
    cob = bpy.data.objects.new("test camera", cam)
    cob.location = (CENTER[0], CENTER[1], 50.0)
    scene.collection.objects.link(cob)
    scene.camera = cob

    scene_info = scenefile.read_scene(scene_file)
    labels, radii = scene_info["labels"], scene_info["radii"]
    last = run.frames - 1
    img0 = render(scene, 1, os.path.join(out_dir, "frame_first.png"))
    check_frame(img0, run.frame(0), radii, labels, "frame 0")
    img1 = render(scene, 1 + last, os.path.join(out_dir, "frame_last.png"))
    check_frame(img1, run.frame(last), radii, labels, f"frame {last}")
    f0, f1 = run.frame(0), run.frame(last)
    ground = srgb8(crowd.GROUND_SRGB)
    emptied = 0
    for i in range(run.agents):  # where an agent stood at frame 0 and nobody stands now: ground
        if np.hypot(f1["x"] - f0["x"][i], f1["y"] - f0["y"][i]).min() > 2.5:
            emptied += 1
            check(near(colour_at(img1, f0["x"][i], f0["y"][i]), ground), f"frame {last}: agent {i}'s start "
                  "is not empty")
    check(emptied >= 3, f"only {emptied} start places emptied; the test scene should leave at least 3")

    # The CSV of the same run: the same positions, bit for bit.
    coll_csv = crowd.import_crowd(os.path.join(out_dir, "run.csv"), scene_file, ground=False, camera=False)
    scene.frame_set(1 + last)
    for c in (coll, coll_csv):
        for ob in c.objects:
            if "throng_group" in ob.keys():
                ids = np.zeros(len(ob.data.vertices), dtype=np.int32)
                ob.data.attributes["throng_id"].data.foreach_get("value", ids)
                co = np.zeros(len(ids) * 3, dtype=np.float32)
                ob.data.vertices.foreach_get("co", co)
                co = co.reshape(-1, 3)
                check(np.array_equal(co[:, 0], f1["x"][ids]) and np.array_equal(co[:, 1], f1["y"][ids]),
                      f"{c.name} {ob.name}: positions differ from the stream's at frame {last}")
    churn_render(scene, out_dir)
    armies_colours(scene, out_dir)
    for kind in crowd.CAMERAS:
        for res in ("1280x720", "720x1280"):
            no_crop(scene, out_dir, os.path.join(out_dir, "armies.thr"), None, kind, res)
    for res in ("1280x720", "720x1280"):  # a scene with a wall
        no_crop(scene, out_dir, good, scene_file, "perspective", res)
    check_help()
    check_palette()
    if failures:
        raise RuntimeError(f"test_render.py: {len(failures)} check(s) failed")
    print(f"test_render.py: all checks passed ({run.agents} agents, {run.frames} frames)")


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1])
