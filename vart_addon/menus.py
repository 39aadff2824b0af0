"""The Vart menu in the 3D viewport's Object menu, drawn from the operators' own declarations
(their ``vart_menu``: :class:`vart_addon.operators.support.MenuItem`), section by section
(:data:`SECTIONS`), a separator between sections.

No default keymap: Drag (``vart.drag``) is reached from this menu and the sidebar, and G / R
stay Blender's own; a user can bind it (right-click the menu entry, Assign Shortcut)."""
import bpy

from .operators import operator_classes
from .solver.joint_types import CATALOG

#: The sections of Object > Vart, in order; ``sublinkage`` is drawn in its submenu.
SECTIONS = ("create", "joints", "links", "goals", "solve", "animate")


def items(section: str) -> list:
    """``(bl_idname, MenuItem)`` of a section, by the items' order then registration order."""
    found = [(item.order, i, cls.bl_idname, item)
             for i, cls in enumerate(operator_classes())
             for item in getattr(cls, "vart_menu", ()) if item.section == section]
    return [(idname, item) for _, _, idname, item in sorted(found, key=lambda t: t[:2])]


def draw_section(layout, section: str) -> None:
    """Draw a section's operators (buttons with their text and properties) and submenus."""
    for idname, item in items(section):
        if item.submenu:
            layout.menu(item.submenu)
            continue
        button = layout.operator(idname) if item.text is None else \
            layout.operator(idname, text=item.text)
        for name, value in item.props:
            setattr(button, name, value)


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
        draw_section(self.layout, "sublinkage")


class VART_MT_object(bpy.types.Menu):
    bl_idname = "VART_MT_object"
    bl_label = "Vart"

    def draw(self, context):
        for k, section in enumerate(SECTIONS):
            if k:
                self.layout.separator()
            draw_section(self.layout, section)


def menu_operators() -> set:
    """The names (``vart.<name>`` without ``vart.``) of every operator the menus reach."""
    return {cls.bl_idname[5:] for cls in operator_classes() if getattr(cls, "vart_menu", ())}


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
