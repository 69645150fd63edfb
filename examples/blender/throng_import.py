# SPDX-License-Identifier: MIT
"""Imports a throng run into Blender from the command line (the add-on as a plain script).

    blender -b --python-exit-code 1 --python examples/blender/throng_import.py -- RUN [options]

RUN is a binary stream (`throng run ... --out run.thr`) or a CSV. Options:
  --scene FILE         the scenario file: radii, group labels, walls, obstacles
  --frame-start F      the Blender frame that shows stream frame 0 (default 1)
  --no-ground, --no-camera
  --save FILE.blend    save the scene (reopened with the add-on enabled, it plays again)
  --render FILE.png    render one frame (--frame K: stream frame K, default the last)
  --animation PREFIX   render every frame to PREFIX#### .png
  --resolution WxH     default 960x960
  --engine NAME        workbench (default), eevee or cycles

A malformed RUN or scene file prints the reader's error and exits 1
before anything is built.
"""
import argparse
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import io_import_throng  # noqa: E402
from io_import_throng import crowd, reader, scenefile  # noqa: E402

ENGINES = {"workbench": "BLENDER_WORKBENCH", "eevee": "BLENDER_EEVEE", "cycles": "CYCLES"}


def set_render(scene, engine, resolution):
    """Flat, exact colours in Workbench; the Standard view transform keeps material colours as given."""
    w, h = (int(v) for v in resolution.lower().split("x"))
    r = scene.render
    r.engine = ENGINES[engine]
    r.resolution_x, r.resolution_y, r.resolution_percentage = w, h, 100
    r.image_settings.file_format = "PNG"
    r.image_settings.color_mode = "RGB"
    r.dither_intensity = 0.0
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    if scene.world is None:
        scene.world = bpy.data.worlds.new("throng world")
    scene.world.color = (1.0, 1.0, 1.0)
    sh = scene.display.shading
    sh.light, sh.color_type = "FLAT", "MATERIAL"
    sh.show_shadows = sh.show_cavity = sh.show_object_outline = sh.show_specular_highlight = False
    scene.display.render_aa = "8"
    if engine == "cycles":
        scene.cycles.device, scene.cycles.samples, scene.cycles.use_denoising = "CPU", 16, False


def main(argv):
    ap = argparse.ArgumentParser(prog="throng_import.py", description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--scene")
    ap.add_argument("--frame-start", type=int, default=1)
    ap.add_argument("--no-ground", action="store_true")
    ap.add_argument("--no-camera", action="store_true")
    ap.add_argument("--save")
    ap.add_argument("--render")
    ap.add_argument("--frame", type=int)
    ap.add_argument("--animation")
    ap.add_argument("--resolution", default="960x960")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="workbench")
    args = ap.parse_args(argv)

    io_import_throng.register()
    scene = bpy.context.scene
    for ob in list(scene.objects):  # the factory scene's cube, light and camera
        if ob.name in ("Cube", "Light", "Camera"):
            bpy.data.objects.remove(ob)
    try:
        coll = crowd.import_crowd(args.run, args.scene, args.frame_start, not args.no_ground, not args.no_camera)
    except (reader.ThrongReadError, scenefile.SceneFileError) as e:
        print(f"throng_import.py: {e}", file=sys.stderr)
        return 1
    frames = scene.frame_end - scene.frame_start + 1
    print(f"throng_import.py: {args.run}: {len(coll.objects)} objects, {frames} frames at "
          f"{scene.render.fps / scene.render.fps_base:.6g} fps")
    set_render(scene, args.engine, args.resolution)
    if args.save:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.save))
    if args.render:
        k = frames - 1 if args.frame is None else args.frame
        scene.frame_set(args.frame_start + k)
        scene.render.filepath = os.path.abspath(args.render)
        bpy.ops.render.render(write_still=True)
    if args.animation:
        scene.render.filepath = os.path.abspath(args.animation)
        bpy.ops.render.render(animation=True)
    return 0


if __name__ == "__main__":
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    rc = main(argv)
    if rc:
        sys.exit(rc)
