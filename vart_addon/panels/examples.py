"""The Examples panel of the sidebar (robots and the four ATHLETE stories, added at the 3D
cursor by ``vart.add_example``), Key Joint, and the same examples in the 3D viewport's Add
menu (Shift+A > Vart Example)."""

import bpy

from . import common as C


class VART_MT_add_example(bpy.types.Menu):
    bl_idname = "VART_MT_add_example"
    bl_label = "Vart Example"
    bl_description = "Add a robot or an ATHLETE story of vart at the 3D cursor"

    def draw(self, context):
        draw_examples(self.layout, stories=None)


def draw_examples(layout, stories):
    """One button per example (``stories``: True only stories, False only robots, None all)."""
    from ..examples import EXAMPLES
    for e in EXAMPLES.values():
        if stories is None or e.story == stories:
            C.op(layout, "vart.add_example", text=e.label,
                 icon='PLAY' if e.story else 'OUTLINER_OB_ARMATURE', example=e.key)


class VART_PT_examples(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_examples"
    bl_label = "Examples"
    bl_order = 6

    def draw(self, context):
        layout = self.layout
        if C.has_operator("vart.add_example"):
            layout.operator_menu_enum("vart.add_example", "example", text="Add Example",
                                      icon='ADD')
        layout.label(text="A story comes keyed: press Bake", icon='INFO')


def draw_add_menu(self, context):
    """Appended to VIEW3D_MT_add."""
    self.layout.menu(VART_MT_add_example.bl_idname, icon='OUTLINER_OB_ARMATURE')


classes = (VART_MT_add_example, VART_PT_examples)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_add.append(draw_add_menu)


def unregister() -> None:
    bpy.types.VIEW3D_MT_add.remove(draw_add_menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
