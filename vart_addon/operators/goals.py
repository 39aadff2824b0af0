"""Operators on goals: Lock / Unlock (a joint, or a link = its root joint), Set Limits, Torque
Limits from the URDF (every joint's) and Clear Torque Limits, and a
Set and a Clear of every other goal kind a user sets, generated from its declaration
(:mod:`vart_addon.bridge.goal_fields`): Set / Clear Target and Posture (from the current
value), Set Stiffness / Clear Spring, and any later kind (``vart.set_<kind>``).

Goals are stored on the joint (see :mod:`vart_addon.bridge.schema`) and solved in priority
order: limit, lock, potential (springs, gravity), target, posture. None of these operators
moves anything: the next solve (``vart.solve``, ``vart.operate_joint``, a drag) applies them,
except Set Limits, which clamps a tree joint's value into its new limits and solves.
"""
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty

from ..bridge import goal_fields as GF
from ..bridge import schema as S
from ..shared import selection, units
from . import support

_TARGETS = [('JOINT', "Joint", "The active joint"),
            ('LINK', "Link", "The active link: its root joint (the link is frozen in the world)")]


def _poll_joint_or_link(cls, context) -> bool:
    if not support.object_mode(cls, context):
        return False
    if selection.active_joint(context) is None and selection.active_link(context) is None:
        cls.poll_message_set("Needs an active joint (Vart joint list) or an active link")
        return False
    return True

# The mixins below are only ever combined with bpy.types.Operator: type them as such (their
# bl_options, self.report), while at run time they stay plain classes.
if TYPE_CHECKING:
    _Operator = bpy.types.Operator
else:
    _Operator = object


class _LockBase(_Operator):
    bl_options = {'REGISTER', 'UNDO'}

    target: EnumProperty(name="Target", items=_TARGETS, default='JOINT',
                         description="Lock the active joint, or the active link in the world")

    @classmethod
    def poll(cls, context):
        return _poll_joint_or_link(cls, context)

    def run(self, context, lock: bool):
        if self.target == 'LINK':
            link = selection.active_link(context)
            if link is None:
                self.report({'ERROR'}, "the active object is not a link")
                return {'CANCELLED'}
            name = link.name
            fn = (lambda lk: lk.lock_link(name)) if lock else (lambda lk: lk.unlock_link(name))
        else:
            aj = selection.active_joint(context)
            if aj is None:
                self.report({'ERROR'}, "no active joint")
                return {'CANCELLED'}
            name = aj[1]
            fn = (lambda lk: lk.lock_joint(name)) if lock else (lambda lk: lk.unlock_joint(name))
        return support.apply(self, context, fn)[0]


class VART_OT_lock(_LockBase, bpy.types.Operator):
    bl_idname = "vart.lock"
    vart_menu = (support.MenuItem("goals", "Lock Joint", (("target", 'JOINT'),)),
            support.MenuItem("goals", "Lock Link", (("target", 'LINK'),)))
    bl_label = "Lock"
    bl_description = ("Lock the active joint at its current value, or the active link at its "
                      "current pose in the world (target Link)")

    def execute(self, context):
        return self.run(context, True)


class VART_OT_unlock(_LockBase, bpy.types.Operator):
    bl_idname = "vart.unlock"
    vart_menu = (support.MenuItem("goals", "Unlock Joint", (("target", 'JOINT'),)),
            support.MenuItem("goals", "Unlock Link", (("target", 'LINK'),)))
    bl_label = "Unlock"
    bl_description = "Unlock the active joint, or the active link (target Link)"

    def execute(self, context):
        return self.run(context, False)


class _JointGoal(_Operator):
    """Base: poll for an active joint; ``apply(context, mutate(lk, name))``."""

    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    def apply(self, context, mutate):
        name = selection.active_joint(context)[1]
        return support.apply(self, context, lambda lk: mutate(lk, name))[0]


class VART_OT_set_limits(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.set_limits"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Set Limits"
    bl_description = ("Set the active joint's lower and upper limit per degree of freedom, in "
                      "display units (degrees, scene lengths); beyond +-1e30 means no limit. "
                      "A tree joint's value is clamped into them and the mechanism solved")

    lower: FloatVectorProperty(name="Lower", size=6, default=(-np.inf,) * 6,
                               description="Lower limit per DoF (first DoF first; extra "
                               "entries are ignored)")
    upper: FloatVectorProperty(name="Upper", size=6, default=(np.inf,) * 6,
                               description="Upper limit per DoF")

    def invoke(self, context, event):
        ob, name = selection.active_joint(context)
        jtype = selection.joint_type_of(context, name)
        if jtype is not None:
            try:
                j = next(j for j in S.read_object(ob)[1] if j.name == name)
                self.lower = units.pad6(units.to_display(j.lower, jtype, context.scene), -np.inf)
                self.upper = units.pad6(units.to_display(j.upper, jtype, context.scene), np.inf)
            except (S.SchemaError, StopIteration):
                pass
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        name = selection.active_joint(context)[1]
        jtype = selection.joint_type_of(context, name)
        if jtype is None:
            self.report({'ERROR'}, f"joint {name!r} has no valid type")
            return {'CANCELLED'}

        ob = selection.active_joint(context)[0]

        def internal(values, sign, key):
            v = np.asarray(units.to_internal(values, jtype, context.scene))
            raw = np.asarray(list(values)[:len(v)], float)
            v[np.abs(raw) >= support.NO_LIMIT] = sign * np.inf
            stored = selection.stored_values(ob, name, key) or ()
            return np.asarray(units.keep_stored(v, raw, stored,
                                            lambda x: units.to_display(x, jtype, context.scene)))

        lo, hi = internal(self.lower, -1, "lower"), internal(self.upper, 1, "upper")
        if np.isnan(lo).any() or np.isnan(hi).any():
            self.report({'ERROR'}, f"joint {name!r}: limits must be numbers, got NaN")
            return {'CANCELLED'}
        return support.apply(self, context, lambda lk: lk.set_limits(name, lo, hi))[0]


# ---- Set / Clear of every stored goal kind but the toggles, generated from its declaration ----
#: Operators that kept the name they had before they were generated.
_SET_NAMES = {"spring": ("set_stiffness", "Set Stiffness")}


def idnames(g) -> tuple[str, str]:
    """The idnames of stored goal ``g``'s *Set* and *Clear* operators: ``vart.set_<kind>`` and
    ``vart.clear_<kind>`` (a spring's *Set* keeps its first name, ``vart.set_stiffness``)."""
    return ("vart." + _SET_NAMES.get(g.name, (f"set_{g.name}",))[0], f"vart.clear_{g.name}")


class _GoalOp(_Operator):
    """Base of the generated goal operators: ``goal`` (a :class:`~vart_addon.bridge.
    goal_fields.StoredGoal`) on the active joint or the active link."""

    bl_options = {'REGISTER', 'UNDO'}
    goal = cast(Any, None)  # set on each generated class (not an annotation: bpy would read it)

    @classmethod
    def poll(cls, context):
        if cls.goal.owner == "joint":
            return support.poll_joint(cls, context)
        if not support.object_mode(cls, context):
            return False
        if selection.active_link(context) is None:
            cls.poll_message_set("Needs an active link")
            return False
        return True

    def owner_name(self, context) -> str:
        if self.goal.owner == "joint":
            return selection.active_joint(context)[1]
        return selection.active_link(context).name

    def goal_values(self, context, lk, obj) -> dict:
        """The goal's values: the owner's current ones, the operator's fields, the cursor."""
        now = self.goal.kind.current(lk, obj)
        out = {}
        for v in self.goal.values:
            if v.source == "ask":  # typed in a float32 field: its 7 digits, as typed
                x = getattr(self, v.name)
                out[v.name] = x.lower() if v.kind == "choice" else support.typed(x) \
                    if v.kind == "scalar" else tuple(map(support.typed, x))
            elif v.source == "cursor":
                out[v.name] = tuple(context.scene.cursor.location)
            elif v.name in now:
                out[v.name] = now[v.name]
        return out


class _SetGoal(_GoalOp):
    def execute(self, context):
        g, name = self.goal, self.owner_name(context)

        def mutate(lk):
            obj = g._obj(lk, name)
            lk.set_goal(g.name, name, self.goal_values(context, lk, obj))
        return support.apply(self, context, mutate)[0]


class _ClearGoal(_GoalOp):
    def execute(self, context):
        name = self.owner_name(context)
        return support.apply(self, context, lambda lk: lk.clear_goal(self.goal.name, name))[0]


def _ask(v):
    """The operator field of a value the operator asks for."""
    desc = f"{v.label or v.name}" + (f" ({v.unit})" if v.unit else "")
    if v.kind == "choice":
        return EnumProperty(name=v.label or v.name, description=desc,
                            items=[(c.upper(), c.replace("_", " ").title(), "")
                                   for c in v.choices], default=v.zero(0)[0].upper())
    if v.kind == "scalar":
        return FloatProperty(name=v.label or v.name, description=desc,
                             default=(v.default or (0.0,))[0], min=0.0 if v.nonneg else -1e30)
    return FloatVectorProperty(name=v.label or v.name, description=desc, size=v.size,
                               default=v.zero(0))


def _goal_operators(g) -> tuple:
    """The *Set* and *Clear* operator classes of stored goal ``g``."""
    (set_id, clear_id), label = idnames(g), g.kind.label or g.name.replace("_", " ").title()
    whose = "active joint" if g.owner == "joint" else "active link"
    set_label = _SET_NAMES.get(g.name, ("", f"Set {label}"))[1]
    ask = {v.name: _ask(v) for v in g.values if v.source == "ask"}
    made = []
    for idname, base, text, desc in (
            (set_id, _SetGoal, set_label, f"On the {whose}: {g.kind.help}"),
            (clear_id, _ClearGoal, f"Clear {label}", f"Remove the {whose}'s "
             f"{label.lower()}")):
        attrs = {"bl_idname": idname, "bl_label": text, "bl_description": desc, "goal": g,
                 "vart_menu": (support.MenuItem("goals"),), "__module__": __name__,
                 "__annotations__": dict(ask) if base is _SetGoal else {}}
        made.append(type("VART_OT_" + idname.split(".")[1], (base, bpy.types.Operator),
                         attrs))
    return tuple(made)


GOAL_OPERATORS = tuple(c for g in GF.joint_goals() + GF.link_goals() if not g.kind.toggle
                       for c in _goal_operators(g))


# ---- torque limits of the whole robot, from its URDF ------------------------------------------
class VART_OT_set_torque_limits(bpy.types.Operator):
    bl_idname = "vart.set_torque_limits"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Torque Limits from the URDF"
    bl_description = ("Keep every real 1-DoF joint's static torque (holding what is beyond it "
                      "against gravity) within the effort limit of the URDF the robot came "
                      "from, less a reserve: a Torque Limit goal on each (the limit level), so "
                      "drags and solves stop where a motor would stall. For a robot fixed to "
                      "the world")
    bl_options = {'REGISTER', 'UNDO'}

    reserve: FloatProperty(name="Reserve", subtype='FACTOR', min=0.0, max=0.95, default=0.1,
                           description="The share of each effort limit kept in reserve")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..checks.plots import urdf_limits  # (reads the robot's URDF: only when asked)
        efforts = {j: e for j, (_, e) in urdf_limits(context.scene).items() if e > 0}
        if not efforts:
            self.report({'ERROR'}, "no effort limits: the scene's robot was not imported from "
                        "a URDF whose joints have <limit effort=...>")
            return {'CANCELLED'}
        scale = 1.0 - support.typed(self.reserve)
        done: list = []

        def mutate(lk):
            for name, effort in sorted(efforts.items()):
                j = lk.joints.get(name)
                if j is not None and j.is_tree and j.dof == 1 and not j.virtual:
                    lk.set_goal("torque_limit", name, {"effort": effort * scale})
                    done.append(name)
        result = support.apply(self, context, mutate)[0]
        if 'FINISHED' in result:
            self.report({'INFO'}, f"Torque limits on {len(done)} joints "
                        f"({support.typed(self.reserve):.0%} of each effort limit in reserve)")
        return result


class VART_OT_clear_torque_limits(bpy.types.Operator):
    bl_idname = "vart.clear_torque_limits"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Clear Torque Limits"
    bl_description = "Remove the Torque Limit goal of every joint"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        def mutate(lk):
            for name, j in lk.joints.items():
                if "torque_limit" in j.goals:
                    lk.clear_goal("torque_limit", name)
        return support.apply(self, context, mutate)[0]


classes = (VART_OT_lock, VART_OT_unlock, VART_OT_set_limits) + GOAL_OPERATORS + (
    VART_OT_set_torque_limits, VART_OT_clear_torque_limits)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
