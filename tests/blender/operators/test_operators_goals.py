"""Goal operators (real bpy): locks (joint and link) hold under operate; set / clear target,
posture, limits, mass, stiffness store the right properties."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from vart_addon.solver import se3


def run(op: str, joint: str | None = None, **kw):
    if joint is not None:
        bpy.context.scene.vart.active_joint = joint
    return getattr(bpy.ops.vart, op)(**kw)


def operate(joint, degrees):
    return run("operate_joint", joint, value=(degrees, 0, 0, 0, 0, 0))


def test_a_locked_joint_holds_under_operate_and_unlocking_frees_it(op_fourbar, opkit):
    fb = op_fourbar
    operate("A", -10.0)
    qD = opkit.joint("D")["q"][0]
    rocker = opkit.world(fb.obs["rocker"])
    assert run("lock", "D", target='JOINT') == {'FINISHED'}
    D = opkit.joint("D")
    assert D["locked"] is True and D["lock_q"][0] == qD
    assert operate("A", -40.0) == {'FINISHED'}  # a warning, not an error: the best pose
    s = bpy.context.scene.vart
    assert s.status_summary.startswith("Unmet: target of joint 'A'"), s.status_summary
    levels = {lv.name: lv for lv in s.status_levels}
    assert levels["lock"].satisfied and not levels["target"].satisfied
    assert levels["target"].unmet == "target of joint 'A'"
    assert opkit.joint("D")["q"][0] == pytest.approx(qD, abs=1e-9)
    np.testing.assert_allclose(opkit.world(fb.obs["rocker"]), rocker, atol=1e-6)
    assert run("unlock", "D", target='JOINT') == {'FINISHED'}
    assert opkit.joint("D")["locked"] is False
    assert operate("A", -40.0) == {'FINISHED'}
    _, t4 = fb.analytic(fb.theta2_0 + math.radians(-40.0))
    assert opkit.joint("D")["q"][0] == pytest.approx(t4 - fb.theta4_0, abs=1e-9)


def test_a_locked_link_is_frozen_in_the_world(op_fourbar, opkit):
    fb = op_fourbar
    opkit.select(fb.obs["rocker"])
    rocker = opkit.world(fb.obs["rocker"])
    assert bpy.ops.vart.lock(target='LINK') == {'FINISHED'}
    link = opkit.link("rocker")
    assert link["locked"] is True
    np.testing.assert_allclose(np.array(link["lock_pose"]).reshape(4, 4),
                               opkit.rigid(fb.obs["rocker"]), atol=1e-6)
    assert operate("A", 30.0) == {'FINISHED'}
    np.testing.assert_allclose(opkit.world(fb.obs["rocker"]), rocker, atol=1e-6)
    assert opkit.joint("A")["q"][0] == pytest.approx(0.0, abs=1e-6)  # the loop cannot move
    opkit.select(fb.obs["rocker"])
    assert bpy.ops.vart.unlock(target='LINK') == {'FINISHED'}
    assert opkit.link("rocker")["locked"] is False
    assert operate("A", 30.0) == {'FINISHED'}
    assert opkit.joint("A")["q"][0] == pytest.approx(math.radians(30.0), abs=1e-9)


def test_lock_link_needs_an_active_link(op_fourbar, opkit):
    opkit.select()
    bpy.context.scene.vart.active_joint = "A"
    with pytest.raises(RuntimeError, match="the active object is not a link"):
        bpy.ops.vart.lock(target='LINK')


def test_set_and_clear_target_from_the_current_value(op_fourbar, opkit):
    operate("A", -20.0)
    qB = opkit.joint("B")["q"][0]
    assert run("set_target", "B") == {'FINISHED'}
    B = opkit.joint("B")
    assert list(B["target_mask"]) == [True] and B["target_q"][0] == qB
    assert run("clear_target", "B") == {'FINISHED'}
    assert list(opkit.joint("B")["target_mask"]) == [False]
    # a closure joint's current value is its fit
    assert run("set_target", "C") == {'FINISHED'}
    C = opkit.joint("C")
    assert C["target_q"][0] == pytest.approx(C["q"][0], abs=1e-12)


def test_set_and_clear_posture(op_fourbar, opkit):
    operate("A", 10.0)
    qD = opkit.joint("D")["q"][0]
    assert run("set_posture", "D") == {'FINISHED'}
    D = opkit.joint("D")
    assert D["has_posture"] is True and D["posture_q"][0] == qD
    assert run("clear_posture", "D") == {'FINISHED'}
    assert opkit.joint("D")["has_posture"] is False


def test_set_limits_in_display_units_and_they_hold(op_fourbar, opkit):
    assert run("set_limits", "A", lower=(-10.0, 0, 0, 0, 0, 0),
               upper=(20.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    A = opkit.joint("A")
    assert A["lower"][0] == pytest.approx(math.radians(-10.0), abs=1e-12)
    assert A["upper"][0] == pytest.approx(math.radians(20.0), abs=1e-12)
    assert operate("A", 45.0) == {'FINISHED'}
    assert opkit.joint("A")["q"][0] == pytest.approx(math.radians(20.0), abs=1e-9)
    assert "target of joint 'A'" in bpy.context.scene.vart.status_summary
    # beyond 1e30 means no limit
    assert run("set_limits", "A", lower=(-1e31, 0, 0, 0, 0, 0),
               upper=(1e31, 0, 0, 0, 0, 0)) == {'FINISHED'}
    A = opkit.joint("A")
    assert (A["lower"][0], A["upper"][0]) == (-math.inf, math.inf)
    # the operator's defaults are no limits
    assert run("set_limits", "B") == {'FINISHED'}
    assert list(opkit.joint("B")["upper"]) == [math.inf]


def test_set_limits_clamps_a_tree_joint_and_solves(op_fourbar, opkit):
    fb = op_fourbar
    operate("A", -30.0)
    run("clear_target", "A")
    bpy.context.scene.vart.status_summary = ""
    assert run("set_limits", "A", lower=(-10.0, 0, 0, 0, 0, 0),
               upper=(10.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    # clamped into the limits, then the loop closed again (the crank may give a little)
    qA = opkit.joint("A")["q"][0]
    assert math.radians(-10.0) - 1e-12 <= qA <= math.radians(-9.0)
    _, t4 = fb.analytic(fb.theta2_0 + qA)
    assert opkit.joint("D")["q"][0] == pytest.approx(t4 - fb.theta4_0, abs=1e-9)
    assert bpy.context.scene.vart.status_summary.startswith("Converged")


def test_set_limits_on_a_cylindrical_joint_mixes_degrees_and_metres(opkit):
    a = opkit.cube("Shaft")
    opkit.select(a)
    bpy.ops.vart.make_links()
    assert bpy.ops.vart.add_joint(joint_type="cylindrical", name="cyl") == {'FINISHED'}
    assert run("set_limits", "cyl", lower=(-90.0, -0.5, 0, 0, 0, 0),
               upper=(90.0, 0.25, 0, 0, 0, 0)) == {'FINISHED'}
    j = opkit.joint("cyl")
    np.testing.assert_allclose(j["lower"], [-math.pi / 2, -0.5], atol=1e-7)
    np.testing.assert_allclose(j["upper"], [math.pi / 2, 0.25], atol=1e-7)
    assert run("operate_joint", "cyl", value=(30.0, 0.1, 0, 0, 0, 0)) == {'FINISHED'}
    np.testing.assert_allclose(opkit.joint("cyl")["q"], [math.radians(30), 0.1], atol=1e-7)
    np.testing.assert_allclose(np.array(a.location), [0, 0, 0.1], atol=1e-6)


def test_set_mass_and_centre_of_mass(op_fourbar, opkit):
    opkit.select(op_fourbar.obs["coupler"])
    assert bpy.ops.vart.set_mass(mass=2.5, com=(0.25, 0.0, -0.125)) == {'FINISHED'}
    link = opkit.link("coupler")
    assert link["mass"] == 2.5 and list(link["com"]) == [0.25, 0.0, -0.125]
    assert isinstance(link["mass"], float)


def test_set_stiffness_rests_at_the_current_value(op_fourbar, opkit):
    operate("A", -20.0)
    qD = opkit.joint("D")["q"][0]
    assert run("set_stiffness", "D", stiffness=3.0) == {'FINISHED'}
    D = opkit.joint("D")
    assert D["stiffness"] == 3.0 and D["rest_q"][0] == qD
    assert run("set_stiffness", "D", stiffness=0.0) == {'FINISHED'}
    assert opkit.joint("D")["stiffness"] == 0.0


def test_a_spring_on_a_3dof_joint_is_refused(opkit):
    a = opkit.cube("Ball")
    opkit.select(a)
    bpy.ops.vart.make_links()
    bpy.ops.vart.add_joint(joint_type="spherical", name="ball")
    snap = opkit.snapshot()
    with pytest.raises(RuntimeError, match="springs are for 1-DoF joints"):
        run("set_stiffness", "ball", stiffness=1.0)
    assert opkit.snapshot() == snap


def test_the_single_joint_of_the_active_link_is_the_fallback(opkit):
    a = opkit.cube("Solo")
    opkit.select(a)
    bpy.ops.vart.make_links()
    bpy.ops.vart.add_joint(joint_type="prismatic", name="slide")
    bpy.context.scene.vart.active_joint = ""
    assert bpy.ops.vart.set_target() == {'FINISHED'}
    assert list(opkit.joint("slide")["target_mask"]) == [True]
    assert bpy.ops.vart.operate_joint(value=(0.5, 0, 0, 0, 0, 0)) == {'FINISHED'}
    np.testing.assert_allclose(np.array(a.location), [0, 0, 0.5], atol=1e-6)
    T = se3.make_pose(se3.rot_z(0.4), [1, 2, 3])
    opkit.place(a, T)  # moved by hand: the prismatic joint's q is the truth
    assert bpy.ops.vart.solve() == {'FINISHED'}
    np.testing.assert_allclose(np.array(a.location), [0, 0, 0.5], atol=1e-6)


def test_confirming_a_dialog_unchanged_keeps_the_exact_stored_values(op_fourbar, opkit):
    """Operator fields are float32: the set_limits / set_mass dialogs (prefilled by invoke,
    which background mode never calls) give back the stored values rounded. Confirming them
    unchanged must keep the exact stored values; a real change is taken."""
    fb = op_fourbar
    B = fb.obs["coupler"]["vart"]["joints"]["B"]
    B["lower"], B["upper"] = [-0.123456789012345], [0.987654321098765]
    fb.obs["coupler"]["vart"]["link"]["mass"] = 2.0 / 3.0
    fb.obs["coupler"]["vart"]["link"]["com"] = [0.1, 0.2, 1.0 / 3.0]
    snap = opkit.snapshot()
    shown = (math.degrees(-0.123456789012345), math.degrees(0.987654321098765))
    assert run("set_limits", "B", lower=(shown[0], 0, 0, 0, 0, 0),
               upper=(shown[1], 0, 0, 0, 0, 0)) == {'FINISHED'}
    opkit.select(fb.obs["coupler"])
    assert bpy.ops.vart.set_mass(mass=2.0 / 3.0, com=(0.1, 0.2, 1.0 / 3.0)) == {'FINISHED'}
    assert opkit.snapshot() == snap
    assert bpy.ops.vart.set_mass(mass=0.75, com=(0.1, 0.2, 1.0 / 3.0)) == {'FINISHED'}
    link = opkit.link("coupler")
    assert link["mass"] == 0.75 and link["com"][2] == 1.0 / 3.0
