"""An arm's configurations: Find Solutions, Preview and Apply, on the active link (a tool) and
its arm (the 1-DoF joints from the robot's root to it: :mod:`vart_addon.solver.arm_solutions`).

- ``vart.find_solutions``: the configurations of the arm that hold the active link where it is
  (multi-start solves: a lower bound), kept on the scene (``scene.vart_arm``: the link, one
  row per solution with its branch in words, its joint values, its distance from the arm's
  configuration then and its manipulability) for the sidebar's list;
- ``vart.preview_solution``: poses the arm with a row's solution and waits: left click or
  Enter applies it (as Apply), Esc or right click puts everything back as it was; the view can
  be navigated meanwhile. From Python (no window to wait in) it applies the solution;
- ``vart.apply_solution``: writes a row's joint values through the bridge (one undo step; a
  Keep Configuration goal on the link then holds the new branch), and solves as any edit that
  moves links does.
"""

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    FloatProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from ..drag import session as D
from ..shared import bridge_cache, selection
from ..solver.arm_solutions import find_solutions, pose_arm
from . import support


class VART_PG_joint_value(bpy.types.PropertyGroup):
    """A joint's value in a solution (``name``: the joint; rad or m)."""

    value: FloatProperty(name="Value")


class VART_PG_arm_solution(bpy.types.PropertyGroup):
    """One configuration of the arm (``name``: its branch in words, e.g. "shoulder L, elbow
    up, wrist +")."""

    branch: StringProperty(name="Branch", description="The signs of the arm's shoulder, elbow "
                           "and wrist quantities (0: at a singularity)")
    distance: FloatProperty(name="Distance", description="How far the joints are from the "
                            "configuration the arm had (rad and m, Euclidean)")
    manipulability: FloatProperty(name="Manipulability", description="Yoshikawa's "
                                  "sqrt(det(J J^T)): how freely the tool moves (0: singular)")
    current: BoolProperty(name="Current Branch",
                          description="On the branch the arm had when it was found")
    joints: CollectionProperty(type=VART_PG_joint_value)


class VART_PG_arm_solutions(bpy.types.PropertyGroup):
    """The last *Find Solutions* (``scene.vart_arm``): the link, its solutions, the row."""

    link: StringProperty(name="Link", description="The link whose arm was solved")
    solutions: CollectionProperty(type=VART_PG_arm_solution)
    index: IntProperty(name="Solution", default=0, min=0)


def store(arm, link: str, solutions) -> None:
    """Keep ``solutions`` (:class:`~vart_addon.solver.arm_solutions.Solution` s) of ``link``
    in ``arm`` (``scene.vart_arm``), replacing what it held."""
    arm.solutions.clear()
    arm.link, arm.index = link, 0
    here = solutions[0].branch if solutions else None
    for s in solutions:
        row = arm.solutions.add()
        row.name = s.label or "no singular joints"
        row.branch = " ".join(f"{b:+d}" if b else "0" for b in s.branch)
        row.distance, row.manipulability = s.distance, s.manipulability
        row.current = s.branch == here
        for name, v in s.values().items():
            jv = row.joints.add()
            jv.name, jv.value = name, v


def chosen(context, index: int):
    """``(link, {joint: value})`` of row ``index`` of the stored solutions (-1: the active
    row), or a sentence saying why there is none."""
    arm = getattr(context.scene, "vart_arm", None)
    if arm is None or not len(arm.solutions):
        return "No solutions: Find Solutions first"
    i = arm.index if index < 0 else index
    if not 0 <= i < len(arm.solutions):
        return f"No solution {i}: there are {len(arm.solutions)}"
    return arm.link, {jv.name: jv.value for jv in arm.solutions[i].joints}


def _apply(op, context, index: int):
    """Write row ``index``'s solution (see :func:`chosen`) through the bridge."""
    got = chosen(context, index)
    if isinstance(got, str):
        op.report({'ERROR'}, got)
        return {'CANCELLED'}
    link, values = got
    return support.apply(op, context, lambda lk: pose_arm(lk, link, values))[0]


def _poll_solutions(cls, context) -> bool:
    if not support.object_mode(cls, context):
        return False
    arm = getattr(context.scene, "vart_arm", None)
    if arm is None or not len(arm.solutions):
        cls.poll_message_set("No solutions: make the tool active and Find Solutions")
        return False
    return True


class VART_OT_find_solutions(bpy.types.Operator):
    bl_idname = "vart.find_solutions"
    vart_menu = (support.MenuItem("solve"),)
    bl_label = "Find Solutions"
    bl_description = ("The configurations of the active link's arm (its 1-DoF joints from the "
                      "robot's root) that hold the link where it is: shoulder, elbow and wrist "
                      "branches and more, from many starts (a lower bound), listed in the "
                      "sidebar with their distance and manipulability")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        scene, link = context.scene, selection.active_link(context).name
        try:
            bridge = bridge_cache.bridge_for(scene)
            bridge.sync()
            lk = bridge.linkage
            solutions = find_solutions(lk, link, lk.pose(link))
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        store(scene.vart_arm, link, solutions)
        branches = len({s.branch for s in solutions})
        self.report({'INFO'}, f"Found {len(solutions)} solutions of link {link!r}'s arm on "
                    f"{branches} branches (a lower bound)")
        return {'FINISHED'}


class _SolutionRow:
    """What Apply and Preview share: the row they take (``index``) and their poll."""

    index: IntProperty(name="Solution", default=-1, min=-1,
                       description="The row of the list (-1: the active row)")

    @classmethod
    def poll(cls, context):
        return _poll_solutions(cls, context)

    def execute(self, context):  # Preview without a window to wait in applies, as confirming
        return _apply(self, context, self.index)


class VART_OT_apply_solution(_SolutionRow, bpy.types.Operator):
    bl_idname = "vart.apply_solution"
    bl_label = "Apply Solution"
    bl_description = ("Put the arm in the chosen solution: its joint values written (a Keep "
                      "Configuration goal on the tool then holds its branch)")
    bl_options = {'REGISTER', 'UNDO'}


class VART_OT_preview_solution(_SolutionRow, bpy.types.Operator):
    bl_idname = "vart.preview_solution"
    bl_label = "Preview Solution"
    bl_description = ("Pose the arm in the chosen solution and wait: left click or Enter "
                      "applies it, Esc or right click puts everything back")
    bl_options = {'REGISTER', 'UNDO'}
    def invoke(self, context, event):
        if getattr(context, "area", None) is None:
            return self.execute(context)
        got = chosen(context, self.index)
        if isinstance(got, str):
            self.report({'ERROR'}, got)
            return {'CANCELLED'}
        link, values = got
        from ..properties import gravity_of, solver_settings
        scene = context.scene
        self._session = D.DragSession(bridge_cache.bridge_for(scene), solver_settings(scene),
                                      gravity=gravity_of(scene))
        try:
            self._session.begin_link(link)  # the tool held where it is; undone by cancel
            lk = self._session.bridge.linkage
            for name, v in values.items():
                lk.set_q(name, [v])
            self._session.bridge.write_back()
        except support.ERRORS as e:
            self._session.cancel()
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        context.area.header_text_set("Vart preview: click or Enter applies, Esc or right "
                                     "click puts the arm back")
        context.window_manager.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        confirm = event.type in {'LEFTMOUSE', 'RET', 'NUMPAD_ENTER'}
        if event.value != 'PRESS' or not (confirm or event.type in {'ESC', 'RIGHTMOUSE'}):
            return {'PASS_THROUGH'}
        self._session.cancel()
        context.area.header_text_set(None)
        return self.execute(context) if confirm else {'CANCELLED'}


classes = (VART_PG_joint_value, VART_PG_arm_solution, VART_PG_arm_solutions,
           VART_OT_find_solutions, VART_OT_apply_solution, VART_OT_preview_solution)

def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    # A property added at run time: the stubs' Scene has no `vart_arm`.
    bpy.types.Scene.vart_arm = PointerProperty(type=VART_PG_arm_solutions)  # type: ignore[attr-defined]


def unregister() -> None:
    del bpy.types.Scene.vart_arm  # type: ignore[attr-defined]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
