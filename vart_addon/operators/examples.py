"""Add Example (the robots and stories that ship, :mod:`vart_addon.examples`) and Key Joint.

- ``vart.add_example``: build an example into the current scene at the 3D cursor (one undo
  step; a failure removes what it added and reports why).
- ``vart.key_joint``: insert a keyframe on the active joint's value at the current frame (a
  closure joint, whose value is output only, gets its target keyed instead, set first to its
  current value if it has none): the one value a story animates before Bake. Key Pose keys
  every joint, which then all become bake inputs.
"""
import bpy
from bpy.props import EnumProperty

from ..examples import EXAMPLES
from ..shared import bridge_cache, selection
from . import support

#: Enum items of the examples, in catalogue order (robots, then the four stories).
EXAMPLE_ITEMS = [(e.key, e.label, e.description, i) for i, e in enumerate(EXAMPLES.values())]


class VART_OT_add_example(bpy.types.Operator):
    bl_idname = "vart.add_example"
    bl_label = "Add Example"
    bl_description = ("Add a robot or one of the four ATHLETE stories at the 3D cursor; a "
                      "story comes with its virtual joints and links and a keyed joint: "
                      "press Bake")
    bl_options = {'REGISTER', 'UNDO'}

    example: EnumProperty(name="Example", items=EXAMPLE_ITEMS,
                          description="The robot or story to add")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from .. import examples as X
        ex = X.EXAMPLES.get(self.example)
        if ex is None:
            self.report({'ERROR'}, f"no example {self.example!r}")
            return {'CANCELLED'}
        try:
            built = X.add_example(ex.key, context)
        except (X.ExampleError, OSError, *support.ERRORS) as e:
            self.report({'ERROR'}, f"{ex.label}: {e}")
            return {'CANCELLED'}
        bridge_cache.clear_bridge_cache()  # the scene changed wholesale: the next edit reads it afresh
        if built.driven:
            what = (f"{built.driven!r} keyed over frames {built.frames[0]}-{built.frames[1]}:"
                    " press Bake")
        elif ex.study:
            what = "its study is set up in Vart > Study: press Run Study"
        else:
            what = "drag a link, or operate a joint"
        self.report({'INFO'}, f"Added {ex.label}: {len(built.links)} links"
                    + (f", {len(built.joints)} joints added" if built.joints else "")
                    + f"; {what}")
        return {'FINISHED'}


class VART_OT_key_joint(bpy.types.Operator):
    bl_idname = "vart.key_joint"
    vart_menu = (support.MenuItem("animate"),)
    bl_label = "Key Joint"
    bl_description = ("Insert a keyframe on the active joint's value at the current frame (a "
                      "closure joint: on its target). Bake then makes every other joint "
                      "follow")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    def execute(self, context):
        from ..animation.keying import key_pose
        scene = context.scene
        ob, name = selection.active_joint(context)
        try:
            bridge = bridge_cache.bridge_for(scene)
            bridge.sync()  # refuses what every edit refuses (zero scale, limits, mimic cycles)
            j = bridge.data.joints[name]
            if not j.dof:
                self.report({'ERROR'}, f"joint {name!r} is fixed: it has no value to key")
                return {'CANCELLED'}
            if j.tree:
                res = key_pose(scene, links=[], joints=[name])
                what = "value"
            else:
                if not any(j.target_mask):
                    # a closure's q is output only: key its target, set to where it is now
                    done, _ = support.apply(self, context, lambda lk: lk.set_target(
                        name, lk.joint_q(lk.joint(name))))
                    if done != {'FINISHED'}:
                        return done
                res = key_pose(scene, links=[], joints=[], targets=[name])
                what = "target"
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if not res.channels:
            self.report({'WARNING'}, f"Blender inserted no keyframe on joint {name!r}")
            return {'CANCELLED'}
        short = _short_of_target(j) if what == "value" else None
        if short:
            self.report({'WARNING'}, f"Keyed the value of joint {name!r} at frame "
                        f"{res.frame:g}: {short}")
            return {'FINISHED'}
        self.report({'INFO'}, f"Keyed the {what} of joint {name!r} at frame {res.frame:g}")
        return {'FINISHED'}


def _short_of_target(j) -> str:
    """"" if joint ``j`` (JointData) is at its target (the value Operate Joint asked for) or
    has none; else what was keyed against what was asked (m, rad)."""
    if not any(j.target_mask):
        return ""
    off = [(i, q, t) for i, (q, t, on) in enumerate(zip(j.q, j.target_q, j.target_mask))
           if on and abs(q - t) > 1e-6 * max(1.0, abs(t))]
    if not off:
        return ""
    i, q, t = off[0]
    return (f"DoF {i} is {q:.6g}, not the {t:.6g} asked for: the last solve stopped short "
            "(see the Solver panel's status)")


classes = (VART_OT_add_example, VART_OT_key_joint)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
