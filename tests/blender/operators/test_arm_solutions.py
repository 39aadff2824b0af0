"""An arm's configurations in Blender (real bpy; issue 33.3): UR5 (example-robot-data, imported
with vart_addon.io_urdf.import_urdf) at a generic pose, Find Solutions on its tool (the eight
branches, kept on the scene), Apply of another branch (the joint values written, the tool
where it was, a Keep Configuration goal moved onto the new branch), Preview put back with Esc
and kept with Enter, and a link without an arm refused with nothing changed."""
import math
import types

import bpy
import numpy as np
import pytest

from pinocchio_check import ROBOTS
from vart_addon.bridge import edits
from vart_addon.bridge import schema as S
from vart_addon.solver.arm_solutions import pose_arm

UR5 = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
pytestmark = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data")
POSE = {"shoulder_pan_joint": 0.3, "shoulder_lift_joint": -1.2, "elbow_joint": 1.5,
        "wrist_1_joint": -0.8, "wrist_2_joint": 1.1, "wrist_3_joint": 0.4}


def ur5():
    """UR5 at POSE, its tool the active object; its link objects by name."""
    from vart_addon.io_urdf import import_urdf
    robot = import_urdf(UR5, context=bpy.context, fixed_base=True)
    edits.edit(lambda lk: pose_arm(lk, "tool0", POSE), bpy.context.scene)
    bpy.context.view_layer.objects.active = robot["tool0"]
    return robot


def stored_q() -> dict:
    """Every stored joint value of the scene (name -> first entry)."""
    return {jn: float(d["q"][0]) for ob in bpy.context.scene.objects if S.is_link(ob)
            for jn, d in ob[S.KEY].get("joints", {}).items() if len(d.get("q", ()))}


def state() -> tuple:
    """What a cancelled preview must put back: every link's matrix and ["vart"] group."""
    return tuple((ob.name, tuple(map(tuple, ob.matrix_world)), repr(ob[S.KEY].to_dict()))
                 for ob in bpy.context.scene.objects if S.is_link(ob))


def tool_pose(robot) -> np.ndarray:
    bpy.context.view_layer.update()
    return np.array(robot["tool0"].matrix_world, float)


def test_find_solutions_and_apply_another_branch(vart_registered, capsys):
    robot = ur5()
    scene = bpy.context.scene
    T0 = tool_pose(robot)
    assert bpy.ops.vart.find_solutions() == {'FINISHED'}
    assert "Found 8 solutions of link 'tool0''s arm on 8 branches (a lower bound)" in \
        capsys.readouterr().out
    arm = scene.vart_arm
    assert arm.link == "tool0" and len(arm.solutions) == 8
    first = arm.solutions[0]
    assert first.name == "shoulder L, elbow up, wrist +" and first.current
    assert first.distance == pytest.approx(0.0, abs=1e-6)
    assert {jv.name: jv.value for jv in first.joints} == pytest.approx(POSE)
    assert len({row.branch for row in arm.solutions}) == 8
    assert [row.current for row in arm.solutions].count(True) == 1
    # Keep Configuration on the tool holds the branch it has now ...
    assert bpy.ops.vart.set_keep_configuration() == {'FINISHED'}
    held = list(robot["tool0"][S.KEY]["link"]["keep_configuration_branch"])
    assert held[:3] == [-1.0, 1.0, 1.0]
    # ... until a solution of another branch is applied: the elbow down one
    i = next(k for k, row in enumerate(arm.solutions) if row.name ==
             "shoulder L, elbow down, wrist +")
    values = {jv.name: jv.value for jv in arm.solutions[i].joints}
    assert bpy.ops.vart.apply_solution(index=i) == {'FINISHED'}
    q = stored_q()
    assert {n: q[n] for n in values} == pytest.approx(values, abs=1e-9)
    np.testing.assert_allclose(tool_pose(robot), T0, atol=1e-5)  # float32 matrices
    held = list(robot["tool0"][S.KEY]["link"]["keep_configuration_branch"])
    assert held[:3] == [-1.0, -1.0, 1.0]
    assert scene.vart.status_summary.startswith("Converged"), scene.vart.status_summary


class FakeOp:
    """The preview operator's methods on a plain object (a modal run needs a window, which
    headless Blender has not: the test calls invoke and modal itself)."""

    def __init__(self, index):
        from vart_addon.operators import arms
        cls = arms.VART_OT_preview_solution
        self.index, self.reports = index, []
        for name in ("invoke", "modal", "execute"):
            setattr(self, name, types.MethodType(getattr(cls, name), self))

    def report(self, kind, text):
        self.reports.append((set(kind), text))


def fake_context():
    headers, handlers = [], []
    ctx = types.SimpleNamespace(
        scene=bpy.context.scene, area=types.SimpleNamespace(header_text_set=headers.append),
        window_manager=types.SimpleNamespace(modal_handler_add=handlers.append),
        active_object=bpy.context.active_object)
    return ctx, headers, handlers


def key(kind):
    return types.SimpleNamespace(type=kind, value='PRESS')


def test_preview_is_put_back_with_esc_and_kept_with_enter(vart_registered):
    robot = ur5()
    assert bpy.ops.vart.find_solutions() == {'FINISHED'}
    arm = bpy.context.scene.vart_arm
    i = len(arm.solutions) - 1
    values = {jv.name: jv.value for jv in arm.solutions[i].joints}
    before = state()
    op = FakeOp(i)
    ctx, headers, handlers = fake_context()
    assert op.invoke(ctx, key('LEFTMOUSE')) == {'RUNNING_MODAL'}
    assert handlers == [op] and headers[-1].startswith("Vart preview")
    q = stored_q()
    assert {n: q[n] for n in values} == pytest.approx(values, abs=1e-9)  # posed
    assert op.modal(ctx, types.SimpleNamespace(type='MIDDLEMOUSE', value='PRESS')) == \
        {'PASS_THROUGH'}  # the view may be navigated
    assert op.modal(ctx, key('ESC')) == {'CANCELLED'}
    assert headers[-1] is None and state() == before
    op = FakeOp(i)
    ctx, headers, handlers = fake_context()
    op.invoke(ctx, key('LEFTMOUSE'))
    assert op.modal(ctx, key('RET')) == {'FINISHED'}
    q = stored_q()
    assert {n: q[n] for n in values} == pytest.approx(values, abs=1e-9)
    assert robot["tool0"].name == "tool0"


def test_a_link_without_an_arm_is_refused_and_nothing_changes(vart_registered):
    robot = ur5()
    assert bpy.ops.vart.find_solutions() == {'FINISHED'}
    bpy.context.view_layer.objects.active = robot["base_link"]
    before = state(), len(bpy.context.scene.vart_arm.solutions)
    with pytest.raises(RuntimeError, match="link 'base_link' has no arm"):
        bpy.ops.vart.find_solutions()
    assert (state(), len(bpy.context.scene.vart_arm.solutions)) == before
    with pytest.raises(RuntimeError, match="No solution 9: there are 8"):
        bpy.ops.vart.apply_solution(index=9)
    assert state() == before[0]


def test_apply_and_preview_wait_for_a_list(vart_registered):
    ur5()
    assert not bpy.ops.vart.apply_solution.poll()
    assert not bpy.ops.vart.preview_solution.poll()
    assert bpy.ops.vart.find_solutions.poll()


def test_keep_configuration_stops_operate_joint_at_the_elbows_margin(vart_registered):
    """Set from the sidebar's row (its operator, generated from the goal kind), stored on
    the tool's object, it holds the elbow on its side: Operate Joint toward -0.5 rad from
    1.5 stops where sin q is the margin, its target reported unmet."""
    robot = ur5()
    scene = bpy.context.scene
    assert bpy.ops.vart.set_keep_configuration(margin=0.05) == {'FINISHED'}
    stored = robot["tool0"][S.KEY]["link"]
    assert stored["keep_configuration"] and stored["keep_configuration_level"] == "limit"
    scene.vart.active_joint = "elbow_joint"
    assert bpy.ops.vart.operate_joint(value=(math.degrees(-0.5), 0, 0, 0, 0, 0)) == \
        {'FINISHED'}
    assert scene.vart.status_summary.startswith("Unmet: target of joint 'elbow_joint'")
    assert stored_q()["elbow_joint"] == pytest.approx(math.asin(0.05), abs=1e-6)
    assert bpy.ops.vart.clear_keep_configuration() == {'FINISHED'}
    assert bpy.ops.vart.operate_joint(value=(math.degrees(-0.5), 0, 0, 0, 0, 0)) == \
        {'FINISHED'}
    assert stored_q()["elbow_joint"] == pytest.approx(-0.5, abs=1e-6)
