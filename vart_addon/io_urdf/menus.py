"""File > Import and File > Export entries for URDF (and xacro) and MJCF robots and articulation
presets, drag and drop of .urdf files into the 3D viewport (a FileHandler, Blender 4.1+), and
:func:`draw_sidebar` for panels. The trajectory entries are :mod:`vart_addon.io_trajectory.menus`.
"""
import bpy


def draw_import(self, context):
    self.layout.operator("vart.import_urdf", text="URDF Robot (.urdf, .xacro) [vart]")
    self.layout.operator("vart.import_mjcf", text="MuJoCo MJCF Robot (.xml) [vart]")
    self.layout.operator("vart.load_preset", text="Vart Articulation Preset (.json)")


def draw_export(self, context):
    self.layout.operator("vart.export_urdf", text="URDF Robot (.urdf) [vart]")
    self.layout.operator("vart.export_mjcf", text="MuJoCo MJCF (.xml) [vart]")
    self.layout.operator("vart.save_preset", text="Vart Articulation Preset (.json)")


def draw_sidebar(layout) -> None:
    """The same six actions as buttons, and Place on Ground, for a sidebar panel
    (``draw_sidebar(self.layout)``)."""
    col = layout.column(align=True)
    row = col.row(align=True)
    row.operator("vart.import_urdf", text="Import URDF", icon='IMPORT')
    row.operator("vart.export_urdf", text="Export URDF", icon='EXPORT')
    row = col.row(align=True)
    row.operator("vart.import_mjcf", text="Import MJCF", icon='IMPORT')
    row.operator("vart.export_mjcf", text="Export MJCF", icon='EXPORT')
    row = col.row(align=True)
    row.operator("vart.load_preset", text="Load Preset", icon='FILE_FOLDER')
    row.operator("vart.save_preset", text="Save Preset", icon='FILE_TICK')
    col.operator("vart.place_on_ground", text="Place on Ground", icon='TRIA_DOWN_BAR')


class VART_FH_urdf(bpy.types.FileHandler):
    bl_idname = "VART_FH_urdf"
    bl_label = "URDF robot (vart)"
    bl_import_operator = "vart.import_urdf"
    bl_file_extensions = ".urdf"

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == 'VIEW_3D'


#: Every operator these menus reach (tests check each exists).
OPERATORS = ("import_urdf", "import_mjcf", "load_preset", "export_urdf", "export_mjcf",
             "save_preset", "place_on_ground")


def register() -> None:
    bpy.utils.register_class(VART_FH_urdf)
    bpy.types.TOPBAR_MT_file_import.append(draw_import)
    bpy.types.TOPBAR_MT_file_export.append(draw_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(draw_export)
    bpy.types.TOPBAR_MT_file_import.remove(draw_import)
    bpy.utils.unregister_class(VART_FH_urdf)
