"""Operators on joints: Add, Remove, Set Frame from Cursor, Change Type, Invert, Make Tree,
Make Closure, Rename, Merge.

A joint connects a parent link (or the world) to a child link; its mobility frame is posed in
the parent's frame, its child-side frame in the child's (metres). Joint operators act on the
*active joint* (``scene.vart.active_joint``, or the single joint of the active link).
"""
import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty

from ..bridge import edits
from ..bridge import schema as S
from ..shared import bridge_cache, selection
from ..solver import se3
from . import support


class VART_OT_add_joint(bpy.types.Operator):
    bl_idname = "vart.add_joint"
    vart_menu = (support.MenuItem("create", submenu="VART_MT_add_joint"),
            support.MenuItem("create", submenu="VART_MT_add_virtual_joint"))
    bl_label = "Add Joint"
    bl_description = ("Add a joint with its frame at the 3D cursor (location and rotation; z "
                      "is the main axis). The ACTIVE link is the child; the other selected "
                      "link is the parent, or the world when only one link is selected")
    bl_options = {'REGISTER', 'UNDO'}

    joint_type: EnumProperty(name="Type", items=support.JOINT_TYPE_ITEMS, default="revolute",
                             description="Joint type (z is the main axis of its frame)")
    virtual: BoolProperty(name="Virtual", default=False,
                          description="A virtual joint expresses intent only; exports leave "
                          "it out")
    name: StringProperty(name="Name", description="Joint name, unique in the scene, at most "
                         f"{S.MAX_NAME} characters (empty: parent-child)")
    pitch: FloatProperty(name="Pitch", description="Helical joints: translation per turn",
                         default=0.0, subtype='DISTANCE', unit='LENGTH')
    parent: StringProperty(name="Parent", description="Name of the parent link object "
                           "(empty: the other selected link, or the world)",
                           options={'SKIP_SAVE'})

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        child = selection.active_link(context)
        if child is None:
            cls.poll_message_set("Make the child link active (and select the parent link, "
                                 "or nothing else for a joint to the world)")
            return False
        others = [ob for ob in context.selected_objects if ob != child]
        if len(others) > 1:
            cls.poll_message_set("Select at most two links: the active one becomes the child, "
                                 "the other the parent")
            return False
        if others and not S.is_link(others[0]):
            cls.poll_message_set(f"{others[0].name!r} is not a link (Vart > Make Links)")
            return False
        return True

    def draw(self, context):
        col = self.layout.column()
        for prop in ("joint_type", "name", "virtual"):
            col.prop(self, prop)
        if self.joint_type == "helical":
            col.prop(self, "pitch")

    def execute(self, context):
        scene = context.scene
        child = context.active_object
        if self.parent:
            parent = scene.objects.get(self.parent)
            if parent is None:
                self.report({'ERROR'}, f"no object named {self.parent!r} in this scene")
                return {'CANCELLED'}
        else:
            others = [ob for ob in context.selected_objects if ob != child]
            parent = others[0] if others else None
        W = selection.cursor_pose(scene)
        jtype, virtual, pitch = self.joint_type, self.virtual, self.pitch
        pname = None if parent is None else parent.name
        if parent is not None and not S.is_link(parent):
            self.report({'ERROR'}, f"{parent.name!r} is not a link (Vart > Make Links)")
            return {'CANCELLED'}

        def mutate(lk):
            name = self.name or edits.unique_joint_name(f"{pname or 'world'}-{child.name}",
                                                        lk.joints)
            lk.add_joint(name, jtype, pname, child.name, world_frame=W, virtual=virtual,
                         pitch=pitch)
            return name

        done, res = support.apply(self, context, mutate)
        if res is not None:
            scene.vart.active_joint = res.value
            self.report({'INFO'}, f"Added {jtype} joint {res.value!r}: "
                        f"{pname or 'world'} -> {child.name}")
        return done


class _JointOp:
    """Base of operators on the active joint: ``poll`` and the joint's name."""

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    @staticmethod
    def joint(context) -> str:
        return selection.active_joint(context)[1]


class VART_OT_remove_joint(_JointOp, bpy.types.Operator):
    bl_idname = "vart.remove_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Remove Joint"
    bl_description = ("Remove the active joint; if it carried its child in the tree, the child "
                      "hangs from the world again where it is")
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        name = self.joint(context)
        done, _ = support.apply(self, context, lambda lk: lk.remove_joint(name))
        if done == {'FINISHED'} and context.scene.vart.active_joint == name:
            context.scene.vart.active_joint = ""
        return done


class VART_OT_set_joint_frame_from_cursor(_JointOp, bpy.types.Operator):
    bl_idname = "vart.set_joint_frame_from_cursor"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Set Joint Frame from Cursor"
    bl_description = ("Move the active joint's frame to the 3D cursor (location and rotation). "
                      "The joint keeps its value and nothing moves: the child-side frame "
                      "follows")
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        name, W = self.joint(context), selection.cursor_pose(context.scene)

        def mutate(lk):
            j = lk.joint(name)
            poses = lk.poses()
            Tp = np.eye(4) if j.parent is None else poses[j.parent]
            q = lk.joint_q(j, poses)
            motion = j.jtype.motion(q, j.pitch)[0]
            lk.set_frames(name, se3.inverse(Tp) @ W, se3.inverse(poses[j.child]) @ W @ motion)

        return support.apply(self, context, mutate)[0]


class VART_OT_change_joint_type(_JointOp, bpy.types.Operator):
    bl_idname = "vart.change_joint_type"
    vart_menu = (support.MenuItem("joints", submenu="VART_MT_change_joint_type"),)
    bl_label = "Change Joint Type"
    bl_description = ("Change the active joint's type. Its value is refitted from the current "
                      "pose; limits are reset and goals that no longer fit are cleared; then "
                      "the mechanism is solved")
    bl_options = {'REGISTER', 'UNDO'}

    joint_type: EnumProperty(name="Type", items=support.JOINT_TYPE_ITEMS, default="revolute",
                             description="New joint type")

    def execute(self, context):
        name, jtype = self.joint(context), self.joint_type
        return support.apply(self, context, lambda lk: lk.set_joint_type(name, jtype), solve=True)[0]


class VART_OT_invert_joint(_JointOp, bpy.types.Operator):
    bl_idname = "vart.invert_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Invert Joint"
    bl_description = ("Swap the active joint's parent and child (its value becomes that of "
                      "the inverse motion). A tree joint re-grounds the tree. Nothing moves")
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        name = self.joint(context)
        return support.apply(self, context, lambda lk: lk.invert_joint(name))[0]


class _TreeFlagOp(_JointOp):
    """Make the active joint a tree joint (``want_tree``) or a closure, unless it already is."""

    want_tree = True

    @classmethod
    def poll(cls, context):
        if not support.poll_joint(cls, context):
            return False
        ob, name = selection.active_joint(context)
        if selection.stored(ob, name, "tree", True) is cls.want_tree:
            kind = "tree" if cls.want_tree else "closure"
            cls.poll_message_set(f"Joint {name!r} is already a {kind} joint")
            return False
        return True

    def execute(self, context):
        name = self.joint(context)
        mutate = (lambda lk: lk.make_tree(name)) if self.want_tree else \
            (lambda lk: lk.make_closure(name))
        return support.apply(self, context, mutate)[0]


class VART_OT_make_tree_joint(_TreeFlagOp, bpy.types.Operator):
    bl_idname = "vart.make_tree_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Make Tree Joint"
    bl_description = ("Put the active joint in the spanning tree: it carries its link, which "
                      "gives up its previous tree joint (that one becomes a closure)")
    bl_options = {'REGISTER', 'UNDO'}
    want_tree = True


class VART_OT_make_closure_joint(_TreeFlagOp, bpy.types.Operator):
    bl_idname = "vart.make_closure_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Make Closure Joint"
    bl_description = ("Take the active joint out of the spanning tree: it closes a loop, and "
                      "the link it carried hangs from the world by its root joint")
    bl_options = {'REGISTER', 'UNDO'}
    want_tree = False


class VART_OT_rename_joint(_JointOp, bpy.types.Operator):
    bl_idname = "vart.rename_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Rename Joint"
    bl_description = ("Rename the active joint: its keys, the joints that mimic it and the "
                      "active joint follow the new name")
    bl_options = {'REGISTER', 'UNDO'}

    new_name: StringProperty(name="New Name", description="Unique in the scene, at most "
                             f"{S.MAX_NAME} characters", options={'SKIP_SAVE'})

    def invoke(self, context, event):
        self.new_name = self.joint(context)
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        name = self.joint(context)

        def go():
            edits.rename_joint(context.scene, name, self.new_name,
                               bridge=bridge_cache.bridge_for(context.scene),
                               **bridge_cache.solve_kw(context.scene))
            if context.scene.vart.active_joint == name:
                context.scene.vart.active_joint = self.new_name
            self.report({'INFO'}, f"Joint {name!r} renamed {self.new_name!r}")
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_merge_joint(_JointOp, bpy.types.Operator):
    bl_idname = "vart.merge_joint"
    vart_menu = (support.MenuItem("joints"),)
    bl_label = "Merge Joint"
    bl_description = ("Remove the active joint and weld its child link into its parent (or the "
                      "world): the child object stops being a link and is parented to the "
                      "parent link; its other joints move to the parent. Nothing moves")
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        name = self.joint(context)

        def go():
            res = edits.merge_joint(context.scene, name, bridge=bridge_cache.bridge_for(context.scene),
                                    **bridge_cache.solve_kw(context.scene))
            if context.scene.vart.active_joint == name:
                context.scene.vart.active_joint = ""
            self.report({'INFO'}, f"Link {res.value!r} welded (joint {name!r} merged)")
            return {'FINISHED'}
        return support.run(self, go)


classes = (VART_OT_add_joint, VART_OT_remove_joint, VART_OT_set_joint_frame_from_cursor,
           VART_OT_change_joint_type, VART_OT_invert_joint, VART_OT_make_tree_joint,
           VART_OT_make_closure_joint, VART_OT_rename_joint, VART_OT_merge_joint)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
