# SPDX-License-Identifier: MIT
"""The add-on's Blender side: the import operator, its menu entry and the handlers."""
import bpy
from bpy.app.handlers import persistent
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from . import crowd, reader, scenefile


class IMPORT_OT_throng(bpy.types.Operator, ImportHelper):
    """Import a throng run (binary stream or CSV) as an animated crowd"""

    bl_idname = "import_scene.throng"
    bl_label = "Import throng crowd"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default="*.thr;*.csv;*.bin", options={"HIDDEN"})
    scene_file: StringProperty(name="Scene file", subtype="FILE_PATH",
                               description="The scenario file (YAML or JSON): radii, groups, walls and obstacles")
    frame_start: IntProperty(name="First frame", default=1, description="The Blender frame that shows stream frame 0")
    ground: BoolProperty(name="Ground", default=True, description="A plane over the world's bounds")
    camera: EnumProperty(name="Camera", default="perspective",
                         description="A camera that frames the whole scene for the render's aspect at import",
                         items=(("perspective", "From the south", "Perspective, looking down at "
                                 f"{crowd.CAMERA_PITCH:g} degrees from the south"),
                                ("top", "Top", "Orthographic, straight down: throng-view's view"),
                                ("none", "None", "No camera")))
    army_groups: IntProperty(name="Groups per army", default=0, min=0,
                             description="Group labels N*a .. N*a+N-1 are army a's (army 0 in blues, army 1 in "
                                         "vermillion and orange); 1: every group its own colour; 0: the scene's "
                                         "own (3 for charge, else 1)")

    def execute(self, context):
        try:
            crowd.import_crowd(self.filepath, self.scene_file or None, self.frame_start, self.ground,
                               None if self.camera == "none" else self.camera, context, self.army_groups)
        except (reader.ThrongReadError, scenefile.SceneFileError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}


def _menu(self, context):
    self.layout.operator(IMPORT_OT_throng.bl_idname, text="throng crowd (.thr, .csv)")


@persistent
def _on_load(_dummy):
    """Reconnects the crowds of a .blend file just opened to their streams."""
    crowd.forget_all()
    for coll in bpy.data.collections:
        if "throng_path" in coll.keys():
            try:
                crowd.reconnect(coll)
            except (reader.ThrongReadError, scenefile.SceneFileError) as e:
                print(f"throng: {coll.name} stays still: {e}")


@persistent
def _on_frame(scene, depsgraph=None):
    crowd.on_frame_change(scene, depsgraph)


def register():
    bpy.utils.register_class(IMPORT_OT_throng)
    bpy.types.TOPBAR_MT_file_import.append(_menu)
    if _on_frame not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame)
    if _on_load not in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.append(_on_load)


def unregister():
    for handlers, fn in ((bpy.app.handlers.frame_change_pre, _on_frame), (bpy.app.handlers.load_post, _on_load)):
        if fn in handlers:
            handlers.remove(fn)
    bpy.types.TOPBAR_MT_file_import.remove(_menu)
    bpy.utils.unregister_class(IMPORT_OT_throng)
    crowd.forget_all()
