"""Operators on links: Make Links, Add Virtual Link, Make Ground Link, Split Link, Set Mass.

A link is an object with ``ob["vart"]`` (see :mod:`vart_addon.bridge.schema`); its frame is
the object's origin and rotation (scale divided out). Poses in metres, masses in kg.
"""
import bpy
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    StringProperty,
)

from ..bridge import edits
from ..bridge import schema as S
from ..shared import bridge_cache, selection, units
from . import support


class VART_OT_make_links(bpy.types.Operator):
    bl_idname = "vart.make_links"
    vart_menu = (support.MenuItem("create"),)
    bl_label = "Make Links"
    bl_description = ("Make the selected objects links (rigid bodies of the mechanism). "
                      "Meshes keep their geometry; objects that already are links are kept "
                      "as they are")
    bl_options = {'REGISTER', 'UNDO'}

    virtual: BoolProperty(name="Virtual", description="Virtual links express intent only "
                          "and are left out of exports", default=False)

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        if not context.selected_objects:
            cls.poll_message_set("Select the objects to make links")
            return False
        return True

    def execute(self, context):
        obs = list(context.selected_objects)

        def go():
            for ob in obs:  # check all first: all become links or none
                edits.check_linkable(ob)
            made = [ob.name for ob in obs if edits.make_link(ob, virtual=self.virtual)]
            self.report({'INFO'}, f"{len(made)} new link{'s' if len(made) != 1 else ''}"
                        + (f": {', '.join(made)}" if made else ""))
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_add_virtual_link(bpy.types.Operator):
    bl_idname = "vart.add_virtual_link"
    vart_menu = (support.MenuItem("create"),)
    bl_label = "Add Virtual Link"
    bl_description = ("Add a virtual link: an empty at the 3D cursor (location and rotation) "
                      "that virtual joints can connect to")
    bl_options = {'REGISTER', 'UNDO'}

    name: StringProperty(name="Name", description="Name of the new link object",
                         default="Virtual")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        def go():
            ob = edits.add_virtual_link(self.name, selection.cursor_pose(context.scene),
                                        context.collection or context.scene.collection)
            for other in context.selected_objects:
                other.select_set(False)
            ob.select_set(True)
            context.view_layer.objects.active = ob
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_make_ground_link(bpy.types.Operator):
    bl_idname = "vart.make_ground_link"
    vart_menu = (support.MenuItem("links"),)
    bl_label = "Make Ground Link"
    bl_description = ("Hang the active link from the world by its root joint; the tree path "
                      "back to the link that was grounded before is inverted. Nothing moves")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        name = context.active_object.name
        return support.apply(self, context, lambda lk: lk.make_ground_link(name))[0]


class VART_OT_split_link(bpy.types.Operator):
    bl_idname = "vart.split_link"
    vart_menu = (support.MenuItem("links"),)
    bl_label = "Split Link"
    bl_description = ("Split the active link at the 3D cursor: a new link (an empty at the "
                      "cursor) is joined to it by a new joint, and can take over the active "
                      "joint. Nothing moves")
    bl_options = {'REGISTER', 'UNDO'}

    new_name: StringProperty(name="New Link", description="Name of the new link object "
                             "(empty: the link's name with .part)")
    joint_name: StringProperty(name="Joint", description="Name of the new joint (empty: "
                               "link-new link)")
    joint_type: EnumProperty(name="Type", items=support.JOINT_TYPE_ITEMS, default="fixed",
                             description="Type of the joint between the two parts")
    take_active_joint: BoolProperty(
        name="Take Active Joint", default=False,
        description="Move the active joint (if it is attached to this link) to the new link")

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        ob = context.active_object
        moving = []
        if self.take_active_joint:
            aj = selection.active_joint(context)
            if aj is None or aj[1] not in selection.joints_of_link(context.scene, ob):
                self.report({'ERROR'}, f"the active joint is not attached to link {ob.name!r}")
                return {'CANCELLED'}
            moving.append(aj[1])

        def go():
            res = edits.split_link(context.scene, ob.name, selection.cursor_pose(context.scene),
                                   joints=moving, new_name=self.new_name,
                                   joint_name=self.joint_name, jtype=self.joint_type,
                                   collection=context.collection,
                                   bridge=bridge_cache.bridge_for(context.scene),
                                   **bridge_cache.solve_kw(context.scene))
            context.scene.vart.active_joint = res.value[1]
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_set_mass(bpy.types.Operator):
    bl_idname = "vart.set_mass"
    vart_menu = (support.MenuItem("links"),)
    bl_label = "Set Mass"
    bl_description = ("Set the active link's mass and centre of mass (in the link's frame), "
                      "used when gravity is on")
    bl_options = {'REGISTER', 'UNDO'}

    mass: FloatProperty(name="Mass", description="Mass of the link", min=0.0, default=1.0,
                        unit='MASS')
    com: FloatVectorProperty(name="Centre of Mass", description="Centre of mass in the "
                             "link's frame", size=3, subtype='TRANSLATION', unit='LENGTH')

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def invoke(self, context, event):
        try:
            link, _ = S.read_object(context.active_object)
            self.mass, self.com = link.mass, link.com
        except S.SchemaError:
            pass
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        ob = context.active_object
        name = ob.name
        try:
            link = ob["vart"]["link"]
            cur_mass, cur_com = [link.get("mass")], list(link.get("com", ()))
        except (KeyError, TypeError, AttributeError):
            cur_mass, cur_com = [], []
        mass = units.keep_stored([float(self.mass)], [self.mass], cur_mass)[0]
        com = tuple(units.keep_stored(list(self.com), list(self.com), cur_com))
        return support.apply(self, context, lambda lk: lk.set_mass(name, mass, com))[0]


classes = (VART_OT_make_links, VART_OT_add_virtual_link, VART_OT_make_ground_link,
           VART_OT_split_link, VART_OT_set_mass)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
