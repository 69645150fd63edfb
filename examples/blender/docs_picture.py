# SPDX-License-Identifier: MIT
"""Renders docs/armies_blender.png: armies at 15 s, seen from the south.

The red army's groups (ids 0-2: infantry, cavalry, archers) in reds, the
blue army's (3-5) in blues, instead of the importer's palette.

    throng run examples/armies.yaml --fields all --every 2 --out armies.thr
    blender -b --factory-startup --python-exit-code 1 --python examples/blender/docs_picture.py -- \\
        armies.thr examples/armies.yaml docs/armies_blender.png
"""
import os
import sys

import bpy
from mathutils import Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import io_import_throng  # noqa: E402
from io_import_throng import crowd  # noqa: E402
import throng_import  # noqa: E402

run, scene_file, out = sys.argv[sys.argv.index("--") + 1:][:3]
io_import_throng.register()
for ob in list(bpy.data.objects):
    bpy.data.objects.remove(ob)
crowd.import_crowd(run, scene_file, camera=False)
sc = bpy.context.scene
throng_import.set_render(sc, "workbench", "900x500")
sh = sc.display.shading
sh.light, sh.studio_light = "STUDIO", "Default"
sh.show_shadows, sh.show_cavity = True, False
sh.shadow_intensity, sc.display.light_direction = 0.35, (0.3, -0.4, 0.87)
sc.world.color = (0.55, 0.62, 0.7)
for label, hex6 in enumerate(("b2182b", "d6604d", "f4a582", "2166ac", "4393c3", "92c5de")):
    mat = bpy.data.materials.get(f"throng group {label}")
    if mat is not None:
        mat.diffuse_color = crowd.srgb_to_linear(hex6)
sc.render.image_settings.compression = 100
cam = bpy.data.cameras.new("docs camera")
cam.lens, cam.clip_end = 35, 1000
cob = bpy.data.objects.new("docs camera", cam)
cob.location = (0.0, -105.0, 62.0)
direction = Vector((0.0, -6.0, 0.0)) - cob.location
cob.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
sc.collection.objects.link(cob)
sc.camera = cob
sc.frame_set(1 + 450)  # stream frame 450: step 900, 15 s
sc.render.filepath = os.path.abspath(out)
bpy.ops.render.render(write_still=True)
print(f"docs_picture.py: wrote {out} ({os.path.getsize(out)} bytes)")
