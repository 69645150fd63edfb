# SPDX-License-Identifier: MIT
"""Imports a throng run into Blender from the command line (the add-on as a plain script).

    blender -b --python-exit-code 1 --python examples/blender/throng_import.py -- RUN [options]

Blender hands the script the arguments after `--`; `-- --help` lists the
options. A malformed RUN or scene file prints the reader's error and
exits 1 before anything is built.
"""
import argparse
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import io_import_throng  # noqa: E402
from io_import_throng import crowd, reader, scenefile  # noqa: E402

ENGINES = {"workbench": "BLENDER_WORKBENCH", "eevee": "BLENDER_EEVEE", "cycles": "CYCLES"}


def set_render(scene, engine, resolution, shading="studio"):
    """Render settings: the engine, the size, the Standard view transform (material colours as given)
    and the background; Workbench's shading "studio" (lit bodies, shadows, cavity) or "flat" (exact colours)."""
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
    scene.world.color = crowd.srgb_to_linear(crowd.BACKGROUND_SRGB)[:3]
    sh = scene.display.shading
    sh.color_type = "MATERIAL"
    sh.show_object_outline = sh.show_specular_highlight = False
    if shading == "flat":
        sh.light = "FLAT"
        sh.show_shadows = sh.show_cavity = False
    else:
        sh.light, sh.studio_light = "STUDIO", "paint.sl"  # Blender's bright studio light: a light ground
        sh.show_shadows = sh.show_cavity = True
        sh.cavity_type, sh.curvature_ridge_factor, sh.curvature_valley_factor = "WORLD", 0.5, 1.0
        sh.shadow_intensity = 0.35
        scene.display.light_direction = (0.3, -0.4, 0.87)  # the sun over the south-east: shadows fall north-west
    scene.display.render_aa = "8"
    if engine == "cycles":
        scene.cycles.device, scene.cycles.samples, scene.cycles.use_denoising = "CPU", 16, False


def add_sun(scene):
    """A sun over the south-east for EEVEE and Cycles (Workbench lights the scene itself), unless a light is there."""
    if not any(ob.type == "LIGHT" for ob in scene.objects):
        sun = bpy.data.objects.new("throng sun", bpy.data.lights.new("throng sun", "SUN"))
        sun.data.energy = 3.0
        sun.rotation_euler = (0.6, 0.3, 0.6)
        scene.collection.objects.link(sun)


def parser():
    """The command line's options, each with its meaning and default (`-- --help` prints them)."""
    ap = argparse.ArgumentParser(prog="throng_import.py", description=__doc__.splitlines()[0],
                                 usage="blender -b --python-exit-code 1 --python throng_import.py -- RUN [options]")
    ap.add_argument("run", metavar="RUN", help="the run: a binary stream (throng run ... --out run.thr) or a CSV")
    ap.add_argument("--scene", metavar="FILE",
                    help="the scenario file (YAML or JSON): radii, group labels, walls and obstacles "
                         "(default: none; every agent 0.3 m, no walls)")
    ap.add_argument("--frame-start", metavar="F", type=int, default=1,
                    help="the Blender frame that shows stream frame 0 (default: %(default)s)")
    ap.add_argument("--camera", choices=("perspective", "top", "none"), default="perspective",
                    help=f"perspective: from the south, looking down at {crowd.CAMERA_PITCH:g} degrees; top: "
                         "orthographic, straight down; either frames the whole scene for the resolution's aspect "
                         "(default: %(default)s)")
    ap.add_argument("--army-groups", metavar="N", type=int, default=0,
                    help="groups per army: group labels N*a .. N*a+N-1 are army a's, army 0 in blues, army 1 in "
                         "vermillion and orange; 1: every group its own colour (default: %(default)s, the "
                         "scene's own: 3 for charge, else 1)")
    ap.add_argument("--no-ground", action="store_true", help="no ground plane under the world's bounds")
    ap.add_argument("--save", metavar="FILE.blend",
                    help="save the scene (reopened with the add-on enabled, it plays again)")
    ap.add_argument("--render", metavar="FILE.png", help="render one frame, --frame, to FILE.png")
    ap.add_argument("--frame", metavar="K", type=int,
                    help="the stream frame --render renders (default: the last)")
    ap.add_argument("--animation", metavar="PREFIX", help="render every frame to PREFIX0001.png, ...")
    ap.add_argument("--resolution", metavar="WxH", default="1280x720",
                    help="the render's size in pixels; the camera frames the scene for its aspect "
                         "(default: %(default)s)")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="workbench",
                    help="the render engine (default: %(default)s)")
    ap.add_argument("--shading", choices=("studio", "flat"), default="studio",
                    help="Workbench's lighting: studio lights the bodies, with shadows and cavity; flat gives "
                         "every surface its exact material colour (default: %(default)s)")
    return ap


def main(argv):
    args = parser().parse_args(argv)
    io_import_throng.register()
    scene = bpy.context.scene
    for ob in list(scene.objects):  # the factory scene's cube, light and camera
        if ob.name in ("Cube", "Light", "Camera"):
            bpy.data.objects.remove(ob)
    set_render(scene, args.engine, args.resolution, args.shading)  # first: the camera frames its aspect
    try:
        coll = crowd.import_crowd(args.run, args.scene, args.frame_start, not args.no_ground,
                                  None if args.camera == "none" else args.camera, army_groups=args.army_groups)
    except (reader.ThrongReadError, scenefile.SceneFileError) as e:
        print(f"throng_import.py: {e}", file=sys.stderr)
        return 1
    if args.engine != "workbench":
        add_sun(scene)
    frames = scene.frame_end - scene.frame_start + 1
    print(f"throng_import.py: {args.run}: {len(coll.objects)} objects, {frames} frames at "
          f"{scene.render.fps / scene.render.fps_base:.6g} fps")
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
