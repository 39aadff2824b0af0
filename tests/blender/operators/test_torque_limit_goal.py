"""Static torque limits in Blender (real bpy): Torque Limits from the URDF on a real arm (UR5
from example-robot-data, its maker's efforts), an Operate Joint that raises the arm and stops
where the shoulder would stall, Set / Clear Torque Limit on one joint, and a robot without a
URDF refused with a clear report."""
from __future__ import annotations

import math

import bpy
import pytest

from pinocchio_check import ROBOTS
from vart_addon.bridge import schema as S

UR5 = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
pytestmark = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data")


def ur5():
    from vart_addon.io_urdf import import_urdf
    import_urdf(UR5, context=bpy.context, fixed_base=True)
    return {j.name: j for ob in bpy.context.scene.objects if S.is_link(ob)
            for j in S.read_object(ob)[1]}


def stored(name):
    return {j.name: j for ob in bpy.context.scene.objects if S.is_link(ob)
            for j in S.read_object(ob)[1]}[name]


def test_torque_limits_from_the_urdf_stop_a_raise_where_the_shoulder_would_stall(
        vart_registered, capsys):
    ur5()
    scene = bpy.context.scene
    for held in ("elbow_joint", "wrist_1_joint", "wrist_2_joint"):  # the arm kept straight
        scene.vart.active_joint = held
        assert bpy.ops.vart.lock(target='JOINT') == {'FINISHED'}
    scene.vart.active_joint = "shoulder_lift_joint"
    # the arm stretched out level takes about 40 N m at the shoulder; keep 80 % of its 150 in
    # reserve (30 N m left) and raise it from straight up (-90 degrees) to level (0)
    assert bpy.ops.vart.operate_joint(value=(-90.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    assert bpy.ops.vart.set_torque_limits(reserve=0.8) == {'FINISHED'}
    assert "Torque limits on 6 joints (80% of each effort limit in reserve)" in \
        capsys.readouterr().out
    assert stored("shoulder_lift_joint").torque_limit_effort == pytest.approx(30.0)
    assert stored("wrist_1_joint").torque_limit_effort == pytest.approx(5.6)
    assert bpy.ops.vart.operate_joint(value=(0.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    summary = scene.vart.status_summary
    assert summary.startswith("Unmet: target of joint 'shoulder_lift_joint'"), summary
    q = stored("shoulder_lift_joint").q[0]
    assert -math.pi / 2 < q < 0.0  # it stopped on the way
    # ... without the limits it goes all the way
    assert bpy.ops.vart.clear_torque_limits() == {'FINISHED'}
    assert not stored("shoulder_lift_joint").torque_limit
    assert bpy.ops.vart.operate_joint(value=(0.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    assert stored("shoulder_lift_joint").q[0] == pytest.approx(0.0, abs=1e-6)


def test_set_and_clear_torque_limit_on_the_active_joint(vart_registered):
    ur5()
    bpy.context.scene.vart.active_joint = "elbow_joint"
    assert bpy.ops.vart.set_torque_limit(effort=12.5) == {'FINISHED'}
    j = stored("elbow_joint")
    assert j.torque_limit and j.torque_limit_effort == 12.5
    assert bpy.ops.vart.clear_torque_limit() == {'FINISHED'}
    assert not stored("elbow_joint").torque_limit


def test_without_a_urdf_it_says_why_and_changes_nothing(vart_registered, opkit):
    a = opkit.cube("A")
    S.write_link(a, mass=1.0)
    S.write_joint(a, "hinge", "revolute", None)
    snap = opkit.snapshot()
    with pytest.raises(RuntimeError, match="no effort limits"):
        bpy.ops.vart.set_torque_limits()
    assert opkit.snapshot() == snap
