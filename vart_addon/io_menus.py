"""File > Import and File > Export entries of vart (URDF robots, articulation presets,
joint trajectories), drag and drop of .urdf files into the 3D viewport (a FileHandler, Blender
4.1+), and :func:`draw_sidebar` / :func:`draw_trajectory_sidebar` for panels.

Trajectory files get no FileHandler: .csv and .json are generic formats, and dropping any of
them into the viewport should not offer a joint-trajectory import."""
import bpy


def draw_import(self, context):
    self.layout.operator("vart.import_urdf", text="URDF Robot (.urdf) [vart]")
    self.layout.operator("vart.load_preset", text="Vart Articulation Preset (.json)")
    self.layout.operator("vart.import_trajectory",
                         text="Vart Joint Trajectory (.csv, .json, .path)")


def draw_export(self, context):
    self.layout.operator("vart.export_urdf", text="URDF Robot (.urdf) [vart]")
    self.layout.operator("vart.save_preset", text="Vart Articulation Preset (.json)")
    self.layout.operator("vart.export_trajectory",
                         text="Vart Joint Trajectory (.csv, .json, .path)")


def draw_sidebar(layout) -> None:
    """The same four actions as buttons, for a sidebar panel (``draw_sidebar(self.layout)``)."""
    col = layout.column(align=True)
    row = col.row(align=True)
    row.operator("vart.import_urdf", text="Import URDF", icon='IMPORT')
    row.operator("vart.export_urdf", text="Export URDF", icon='EXPORT')
    row = col.row(align=True)
    row.operator("vart.load_preset", text="Load Preset", icon='FILE_FOLDER')
    row.operator("vart.save_preset", text="Save Preset", icon='FILE_TICK')


def draw_trajectory_sidebar(layout) -> None:
    """Export and Import Trajectory buttons, for a sidebar panel."""
    row = layout.row(align=True)
    row.operator("vart.export_trajectory", text="Export Trajectory", icon='EXPORT')
    row.operator("vart.import_trajectory", text="Import Trajectory", icon='IMPORT')


class VART_FH_urdf(bpy.types.FileHandler):
    bl_idname = "VART_FH_urdf"
    bl_label = "URDF robot (vart)"
    bl_import_operator = "vart.import_urdf"
    bl_file_extensions = ".urdf"

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == 'VIEW_3D'


#: Every operator these menus reach (tests check each exists).
OPERATORS = ("import_urdf", "load_preset", "export_urdf", "save_preset")
#: The trajectory entries of the File menus (and :func:`draw_trajectory_sidebar`).
TRAJECTORY_OPERATORS = ("import_trajectory", "export_trajectory")


def register() -> None:
    bpy.utils.register_class(VART_FH_urdf)
    bpy.types.TOPBAR_MT_file_import.append(draw_import)
    bpy.types.TOPBAR_MT_file_export.append(draw_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(draw_export)
    bpy.types.TOPBAR_MT_file_import.remove(draw_import)
    bpy.utils.unregister_class(VART_FH_urdf)
