"""File > Export > Vart Model (.json): the scene as a model file for studies."""
import bpy


def draw_export(self, context):
    self.layout.operator("vart.export_model", text="Vart Model (.json)")


def register() -> None:
    bpy.types.TOPBAR_MT_file_export.append(draw_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(draw_export)
