"""Export Vart Model: the scene's linkage, goals, gravity and solver settings as a model file
(:mod:`vart_addon.studies.model_export`), which ``python -m vart_addon.analysis`` reads
without Blender."""
from collections.abc import Callable

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper

from ..bridge import schema
from ..studies.model_export import export_model
from . import support


class VART_OT_export_model(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.export_model"
    bl_label = "Export Vart Model"
    bl_description = ("Write the scene's links, joints, goals, gravity and solver settings as "
                      "a model file (JSON) for studies run without Blender")
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        if not any(schema.is_link(ob) for ob in context.scene.objects):
            cls.poll_message_set("The scene has no links (Vart > Make Links, or Add Example)")
            return False
        return True

    def execute(self, context):
        try:
            path = export_model(context.scene, self.filepath)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        except OSError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Wrote the model file {path!r}")
        return {'FINISHED'}


classes = (VART_OT_export_model,)

_unregister: Callable[[], None]
register, _unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]


def unregister() -> None:
    _unregister()
