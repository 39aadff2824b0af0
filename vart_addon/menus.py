"""The Vart menu in the 3D viewport's Object menu: every vart operator, by family.

No default keymap: Drag (``vart.drag``) is reached from this menu and the sidebar, and G / R
stay Blender's own; a user can bind it (right-click the menu entry, Assign Shortcut)."""
import bpy

from .solver.joint_types import CATALOG
from .solver.sublinkages import DISPOSITIONS


class VART_MT_add_joint(bpy.types.Menu):
    bl_idname = "VART_MT_add_joint"
    bl_label = "Add Joint"
    bl_description = "Add a real joint at the 3D cursor (active link = child)"
    virtual = False

    def draw(self, context):
        for name in CATALOG:
            label = "-".join(w.title() for w in name.split("-"))
            op = self.layout.operator("vart.add_joint", text=label)
            op.joint_type = name
            op.virtual = self.virtual


class VART_MT_add_virtual_joint(VART_MT_add_joint):
    bl_idname = "VART_MT_add_virtual_joint"
    bl_label = "Add Virtual Joint"
    bl_description = "Add a virtual joint at the 3D cursor (active link = child)"
    virtual = True


class VART_MT_change_joint_type(bpy.types.Menu):
    bl_idname = "VART_MT_change_joint_type"
    bl_label = "Change Joint Type"

    def draw(self, context):
        self.layout.operator_enum("vart.change_joint_type", "joint_type")


class VART_MT_sublinkage(bpy.types.Menu):
    bl_idname = "VART_MT_sublinkage"
    bl_label = "Sublinkage"
    bl_description = "Sublinkages: collections of links solved before, after or with the rest"

    def draw(self, context):
        lay = self.layout
        lay.operator("vart.make_sublinkage")
        for d in DISPOSITIONS:
            lay.operator("vart.set_disposition", text=f"Set {d.title()}").disposition = d
        lay.operator("vart.dissolve_sublinkage")


class VART_MT_object(bpy.types.Menu):
    bl_idname = "VART_MT_object"
    bl_label = "Vart"

    def draw(self, context):
        lay = self.layout
        lay.operator("vart.make_links")
        lay.operator("vart.add_virtual_link")
        lay.menu(VART_MT_add_joint.bl_idname)
        lay.menu(VART_MT_add_virtual_joint.bl_idname)
        lay.separator()
        lay.operator("vart.remove_joint")
        lay.operator("vart.set_joint_frame_from_cursor")
        lay.menu(VART_MT_change_joint_type.bl_idname)
        lay.operator("vart.invert_joint")
        lay.operator("vart.make_tree_joint")
        lay.operator("vart.make_closure_joint")
        lay.operator("vart.rename_joint")
        lay.operator("vart.merge_joint")
        lay.separator()
        lay.operator("vart.make_ground_link")
        lay.operator("vart.split_link")
        lay.operator("vart.set_mass")
        lay.menu(VART_MT_sublinkage.bl_idname)
        lay.separator()
        lay.operator("vart.lock", text="Lock Joint").target = 'JOINT'
        lay.operator("vart.unlock", text="Unlock Joint").target = 'JOINT'
        lay.operator("vart.lock", text="Lock Link").target = 'LINK'
        lay.operator("vart.unlock", text="Unlock Link").target = 'LINK'
        lay.operator("vart.set_target")
        lay.operator("vart.clear_target")
        lay.operator("vart.set_posture")
        lay.operator("vart.clear_posture")
        lay.operator("vart.set_limits")
        lay.operator("vart.set_stiffness")
        lay.separator()
        lay.operator("vart.operate_joint")
        lay.operator("vart.solve")
        lay.separator()
        lay.operator("vart.drag")
        lay.operator("vart.operate_joint_modal")
        lay.operator("vart.key_joint")
        lay.operator("vart.key_pose")
        lay.operator("vart.bake")


#: Every operator the menus reach (tests check each exists).
OPERATORS = ("make_links", "add_virtual_link", "add_joint", "remove_joint",
             "set_joint_frame_from_cursor", "change_joint_type", "invert_joint",
             "make_tree_joint", "make_closure_joint", "rename_joint", "merge_joint",
             "make_ground_link",
             "split_link", "set_mass", "lock", "unlock", "set_target", "clear_target",
             "set_posture", "clear_posture", "set_limits", "set_stiffness", "operate_joint",
             "solve", "drag", "operate_joint_modal", "key_joint", "key_pose", "bake",
             "make_sublinkage", "set_disposition", "dissolve_sublinkage")


def draw_object_menu(self, context):
    """Appended to VIEW3D_MT_object: the Vart submenu."""
    self.layout.separator()
    self.layout.menu(VART_MT_object.bl_idname)


classes = (VART_MT_add_joint, VART_MT_add_virtual_joint, VART_MT_change_joint_type,
           VART_MT_sublinkage, VART_MT_object)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_object.append(draw_object_menu)


def unregister() -> None:
    bpy.types.VIEW3D_MT_object.remove(draw_object_menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
