"""File > Import and File > Export entries for joint trajectories, and
:func:`draw_trajectory_sidebar` for panels.

Trajectory files get no FileHandler: .csv and .json are generic formats, and dropping any of
them into the viewport should not offer a joint-trajectory import."""
import bpy

from ..formats.trajectory.files import FORMATS

#: The File menus' label: every extension of the format table.
MENU_LABEL = f"Vart Joint Trajectory ({', '.join(FORMATS)})"


def draw_import(self, context):
    self.layout.operator("vart.import_trajectory", text=MENU_LABEL)


def draw_export(self, context):
    self.layout.operator("vart.export_trajectory", text=MENU_LABEL)
    self.layout.operator("vart.export_gltf", text="Vart Animation, one clip (.glb/.gltf)")


def draw_trajectory_sidebar(layout) -> None:
    """Export and Import Trajectory buttons, for a sidebar panel."""
    row = layout.row(align=True)
    row.operator("vart.export_trajectory", text="Export Trajectory", icon='EXPORT')
    row.operator("vart.import_trajectory", text="Import Trajectory", icon='IMPORT')


#: The trajectory entries of the File menus (and :func:`draw_trajectory_sidebar`).
TRAJECTORY_OPERATORS = ("import_trajectory", "export_trajectory")


def register() -> None:
    bpy.types.TOPBAR_MT_file_import.append(draw_import)
    bpy.types.TOPBAR_MT_file_export.append(draw_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(draw_export)
    bpy.types.TOPBAR_MT_file_import.remove(draw_import)
