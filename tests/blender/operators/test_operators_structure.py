"""Structural operators (real bpy) on the four-bar built by operators: invert, re-ground,
split, merge, change type, tree/closure, remove, frame from cursor, virtual links, solve.
Each keeps every object's world pose unless it says otherwise."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from vart_addon.bridge import SceneBridge, read_scene
from vart_addon.solver import se3


def poses(fb, opkit) -> dict:
    return {n: opkit.world(ob) for n, ob in fb.obs.items()}


def assert_same_poses(a: dict, b: dict, atol=1e-6):
    assert a.keys() == b.keys()
    for n in a:
        np.testing.assert_allclose(a[n], b[n], atol=atol, err_msg=n)


def run(op: str, joint: str | None = None, **kw):
    if joint is not None:
        bpy.context.scene.vart.active_joint = joint
    return getattr(bpy.ops.vart, op)(**kw)


def operate_and_check(fb, opkit, degrees=-30.0):
    """Operate the crank and compare the rocker with the analytic answer (the mechanism's
    structure may have changed, its motion must not)."""
    theta2 = fb.theta2_0 + math.radians(degrees)
    assert run("operate_joint", "A", value=(degrees, 0, 0, 0, 0, 0)) == {'FINISHED'}
    _, t4 = fb.analytic(theta2)
    R = opkit.rigid(fb.obs["rocker"])
    built = fb.built["rocker"]
    rel = se3.inverse(fb.G) @ R @ se3.inverse(built) @ fb.G  # rotation about the D axis
    assert math.atan2(rel[1, 0], rel[0, 0]) == pytest.approx(t4 - fb.theta4_0, abs=1e-6)


def fresh_poses() -> dict:
    """World poses of a bridge built from scratch from the stored properties."""
    b = SceneBridge()
    b.sync()
    return b.linkage.poses()


def test_invert_a_tree_joint_keeps_every_pose(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    assert run("invert_joint", "B") == {'FINISHED'}
    assert_same_poses(poses(fb, opkit), before)
    B = opkit.joint("B")
    assert B["child"] == "crank" and B["parent"] == fb.obs["coupler"]
    assert "B" not in fb.obs["coupler"]["vart"]["joints"]
    assert abs(B["q"][0]) < 1e-9
    for n, T in fresh_poses().items():
        np.testing.assert_allclose(T, opkit.rigid(fb.obs[n]), atol=1e-6)
    operate_and_check(fb, opkit)


def test_invert_a_closure_joint_and_a_ground_joint(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    assert run("invert_joint", "C") == {'FINISHED'}
    C = opkit.joint("C")
    assert C["child"] == "coupler" and C["parent"] == fb.obs["rocker"] and C["tree"] is False
    assert_same_poses(poses(fb, opkit), before)
    snap = opkit.snapshot()
    with pytest.raises(RuntimeError, match="joint to the ground cannot be inverted"):
        run("invert_joint", "A")
    assert opkit.snapshot() == snap
    operate_and_check(fb, opkit)


def test_make_ground_link_keeps_every_pose_and_re_roots_the_tree(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    opkit.select(fb.obs["coupler"])
    assert bpy.ops.vart.make_ground_link() == {'FINISHED'}
    assert_same_poses(poses(fb, opkit), before)
    data = read_scene(bpy.context.scene.objects)
    assert data.links["coupler"].root_tree is True
    assert data.links["crank"].root_tree is False and data.links["rocker"].root_tree is False
    # the old ground joint of the path (A) is a closure now, C still is: the coupler's root
    # joint is a tree edge, which adds a (free) path to the world
    assert sorted(n for n, j in data.joints.items() if not j.tree) == ["A", "C"]
    for n, T in fresh_poses().items():
        np.testing.assert_allclose(T, opkit.rigid(fb.obs[n]), atol=1e-6)
    operate_and_check(fb, opkit)


def test_split_link_then_merge_joint_keep_poses(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    opkit.cursor(fb.planar(*fb.p["C"]))
    opkit.select(fb.obs["coupler"])
    bpy.context.scene.vart.active_joint = "C"
    assert bpy.ops.vart.split_link(take_active_joint=True, joint_type="fixed") == {'FINISHED'}
    part = bpy.data.objects["coupler.part"]
    assert part.type == 'EMPTY' and opkit.link("coupler.part")["virtual"] is False
    np.testing.assert_allclose(opkit.rigid(part), fb.planar(*fb.p["C"]), atol=1e-6)
    new = bpy.context.scene.vart.active_joint
    assert new == "coupler-coupler.part"
    j = opkit.joint(new)
    assert (j["type"], j["parent"], j["child"]) == ("fixed", fb.obs["coupler"], "coupler.part")
    assert opkit.joint("C")["parent"] == part
    assert_same_poses(poses(fb, opkit), before)
    operate_and_check(fb, opkit, -20.0)
    moved = opkit.world(part)
    # merge the part back into the coupler: the empty stops being a link and follows it
    assert run("merge_joint", new) == {'FINISHED'}
    assert "vart" not in part.keys() and part.parent == fb.obs["coupler"]
    np.testing.assert_allclose(opkit.world(part), moved, atol=1e-6)
    assert opkit.joint("C")["parent"] == fb.obs["coupler"]
    assert bpy.context.scene.vart.active_joint == ""
    operate_and_check(fb, opkit, 25.0)
    coupler = opkit.rigid(fb.obs["coupler"])
    np.testing.assert_allclose(opkit.rigid(part), coupler @ se3.inverse(
        fb.built["coupler"]) @ fb.planar(*fb.p["C"]), atol=1e-6)


def test_merge_into_the_ground_and_a_refused_merge(op_fourbar, opkit):
    fb = op_fourbar
    snap = opkit.snapshot()
    # the crank has B as a parent: welding it into the world would ground the coupler...
    # allowed; but welding the rocker (child of closure C) into the world is refused
    with pytest.raises(RuntimeError, match="cannot be merged into the ground"):
        run("merge_joint", "D")
    assert opkit.snapshot() == snap
    assert run("merge_joint", "A") == {'FINISHED'}  # the crank becomes part of the world
    assert "vart" not in fb.obs["crank"].keys()
    B = opkit.joint("B")
    assert B["parent"] is None and B["parent_name"] == ""
    assert_same_poses({n: opkit.world(ob) for n, ob in fb.obs.items() if n != "crank"},
                      {n: np.array(snap[n][0]).reshape(4, 4) for n in fb.obs if n != "crank"})


def test_change_joint_type_refits_and_keeps_the_loop(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    assert run("change_joint_type", "C", joint_type="spherical") == {'FINISHED'}
    C = opkit.joint("C")
    assert C["type"] == "spherical" and len(C["q"]) == 3 and np.abs(C["q"]).max() < 1e-9
    assert list(C["lower"]) == [-math.inf] * 3
    assert_same_poses(poses(fb, opkit), before)
    assert run("change_joint_type", "C", joint_type="revolute") == {'FINISHED'}
    operate_and_check(fb, opkit)


def test_change_to_a_stricter_type_solves_the_invariant(opkit):
    """A general closure joint holds whatever the links do; made revolute, the solve snaps the
    free child link onto its axis."""
    base, box = opkit.cube("Base"), opkit.cube("Box")
    opkit.place(box, se3.make_pose(se3.rot_z(0.3), [2, 0, 0]))
    opkit.select(base, box)
    assert bpy.ops.vart.make_links() == {'FINISHED'}
    opkit.select(base)
    assert bpy.ops.vart.add_joint(joint_type="fixed", name="F") == {'FINISHED'}
    opkit.cursor(se3.make_pose(None, [2, 0, 0]))
    opkit.select(base, box, active=box)
    assert bpy.ops.vart.add_joint(joint_type="general", name="G6") == {'FINISHED'}
    assert run("make_closure_joint", "G6") == {'FINISHED'}
    box.location = (2.5, 0.2, 0.1)  # a free link moved by hand: the general joint allows it
    assert bpy.ops.vart.solve() == {'FINISHED'}
    np.testing.assert_allclose(np.array(box.location), [2.5, 0.2, 0.1], atol=1e-6)
    assert run("change_joint_type", "G6", joint_type="revolute") == {'FINISHED'}
    np.testing.assert_allclose(np.array(box.location)[:2], [2, 0], atol=1e-6)  # on the axis
    G6 = opkit.joint("G6")
    assert G6["type"] == "revolute" and G6["tree"] is False
    assert "invariant" not in bpy.context.scene.vart.status_summary


def test_change_the_closure_to_fixed_locks_the_mechanism(op_fourbar, opkit):
    fb = op_fourbar
    assert run("change_joint_type", "C", joint_type="fixed") == {'FINISHED'}
    before = poses(fb, opkit)
    assert run("operate_joint", "A", value=(-30.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    assert "target of joint 'A'" in bpy.context.scene.vart.status_summary
    assert_same_poses(poses(fb, opkit), before, atol=1e-5)


def test_make_closure_then_tree_keeps_poses(op_fourbar, opkit):
    fb = op_fourbar
    before = poses(fb, opkit)
    assert run("make_closure_joint", "B") == {'FINISHED'}
    data = read_scene(bpy.context.scene.objects)
    # the coupler it carried hangs from the world by its root joint
    assert data.joints["B"].tree is False and data.links["coupler"].root_tree is True
    assert data.joints["C"].tree is False
    assert_same_poses(poses(fb, opkit), before)
    with pytest.raises(RuntimeError, match="already a closure"):
        run("make_closure_joint", "B")
    assert run("make_tree_joint", "B") == {'FINISHED'}
    assert_same_poses(poses(fb, opkit), before)
    data = read_scene(bpy.context.scene.objects)
    assert data.joints["B"].tree is True and data.links["coupler"].root_tree is False
    operate_and_check(fb, opkit)


def test_remove_joint_opens_the_loop(op_fourbar, opkit):
    fb = op_fourbar
    assert run("remove_joint", "C") == {'FINISHED'}
    assert "C" not in fb.obs["rocker"]["vart"]["joints"]
    assert bpy.context.scene.vart.active_joint == ""
    rocker = opkit.world(fb.obs["rocker"])
    assert run("operate_joint", "A", value=(-30.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    np.testing.assert_allclose(opkit.world(fb.obs["rocker"]), rocker, atol=1e-7)
    # removing the tree joint of the crank: the crank stays where it is, free
    crank = opkit.world(fb.obs["crank"])
    assert run("remove_joint", "A") == {'FINISHED'}
    np.testing.assert_allclose(opkit.world(fb.obs["crank"]), crank, atol=1e-6)
    data = read_scene(bpy.context.scene.objects)  # one of the two hangs from the world
    assert data.links["crank"].root_tree != data.links["coupler"].root_tree


def test_set_joint_frame_from_cursor_moves_the_frame_not_the_links(op_fourbar, opkit):
    fb = op_fourbar
    run("operate_joint", "A", value=(-30.0, 0, 0, 0, 0, 0))
    before = poses(fb, opkit)
    qD = opkit.joint("D")["q"][0]
    W = fb.planar(4.0, 0.0) @ se3.make_pose(None, [0, 0, 0.5])  # along the axis: same motion
    opkit.cursor(W)
    assert run("set_joint_frame_from_cursor", "D") == {'FINISHED'}
    D = opkit.joint("D")
    np.testing.assert_allclose(np.array(D["T_parent_mob"]).reshape(4, 4), W, atol=1e-6)
    assert D["q"][0] == qD
    assert_same_poses(poses(fb, opkit), before)
    operate_and_check(fb, opkit, 10.0)


def test_add_virtual_link_and_a_virtual_joint(op_fourbar, opkit):
    fb = op_fourbar
    T = fb.planar(2.0, 3.0, 0.5)
    opkit.cursor(T)
    assert bpy.ops.vart.add_virtual_link(name="Target") == {'FINISHED'}
    ob = bpy.context.active_object
    assert ob.name == "Target" and ob.type == 'EMPTY' and opkit.link("Target")["virtual"]
    np.testing.assert_allclose(opkit.rigid(ob), T, atol=1e-6)
    opkit.select(fb.obs["rocker"], ob, active=ob)
    assert bpy.ops.vart.add_joint(joint_type="spherical", virtual=True) == {'FINISHED'}
    name = bpy.context.scene.vart.active_joint
    assert name == "rocker-Target"
    j = opkit.joint(name)
    assert j["virtual"] is True and j["parent"] == fb.obs["rocker"] and j["tree"] is True
    operate_and_check(fb, opkit)  # the virtual link rides on the rocker
    assert opkit.rigid(ob)[:3, 3] != pytest.approx(T[:3, 3], abs=1e-3)


def test_add_joint_names_are_unique_and_helical_keeps_its_pitch(opkit):
    a, b = opkit.cube("A"), opkit.cube("B")
    opkit.select(a, b)
    bpy.ops.vart.make_links()
    opkit.select(a, b, active=b)
    assert bpy.ops.vart.add_joint(joint_type="helical", pitch=0.01) == {'FINISHED'}
    assert opkit.joint("A-B")["pitch"] == pytest.approx(0.01)
    assert bpy.ops.vart.add_joint(joint_type="fixed") == {'FINISHED'}
    assert bpy.context.scene.vart.active_joint == "A-B.001"
    assert opkit.joint("A-B.001")["tree"] is False  # B already hangs from A-B
    assert bpy.ops.vart.solve() == {'FINISHED'}


def test_solve_applies_goals_set_by_hand(op_fourbar, opkit):
    fb = op_fourbar
    fb.obs["rocker"]["vart"]["joints"]["D"]["target_q"] = [0.2]
    fb.obs["rocker"]["vart"]["joints"]["D"]["target_mask"] = [True]
    assert bpy.ops.vart.solve() == {'FINISHED'}
    assert opkit.joint("D")["q"][0] == pytest.approx(0.2, abs=1e-9)
    assert bpy.context.scene.vart.status_summary.startswith("Converged")


def test_gravity_from_the_scene_settings(opkit):
    """A pendulum with mass swings down under the scene's gravity (off by default)."""
    bar = opkit.cube("Bar", (1.0, .1, .1))
    opkit.place(bar, se3.make_pose(None, [0.5, 0, 0]))
    opkit.select(bar)
    bpy.ops.vart.make_links()
    opkit.cursor(se3.make_pose(se3.so3_exp([math.pi / 2, 0, 0]), [0, 0, 0]))  # axis -y
    assert bpy.ops.vart.add_joint(joint_type="revolute", name="hinge") == {'FINISHED'}
    assert bpy.ops.vart.set_mass(mass=2.0, com=(0.0, 0.0, 0.0)) == {'FINISHED'}
    assert bpy.ops.vart.solve() == {'FINISHED'}
    assert opkit.joint("hinge")["q"][0] == pytest.approx(0.0, abs=1e-12)
    s = bpy.context.scene.vart
    s.gravity_enabled, s.max_iterations, s.time_budget_ms = True, 1000, 0.0
    assert bpy.ops.vart.solve() == {'FINISHED'}
    np.testing.assert_allclose(np.array(bar.matrix_world.translation), [0, 0, -0.5],
                               atol=1e-4)


def test_rename_joint_follows_with_keys_and_active_joint_and_refuses_a_taken_name(op_fourbar,
                                                                                  opkit):
    fb = op_fourbar
    from vart_addon.bridge import animation as A
    from vart_addon.bridge import q_data_path
    crank = fb.obs["crank"]
    A.key_channels(crank, q_data_path("A"), 1)
    assert run("rename_joint", "A", new_name="crank pivot") == {'FINISHED'}
    assert bpy.context.scene.vart.active_joint == "crank pivot"
    assert "crank pivot" in crank["vart"]["joints"] and "A" not in crank["vart"]["joints"]
    assert A.find_fcurve(crank, q_data_path("crank pivot")) is not None
    assert A.find_fcurve(crank, q_data_path("A")) is None
    before = read_scene(fb.obs.values())
    with pytest.raises(RuntimeError, match="already exists"):
        run("rename_joint", "crank pivot", new_name="B")
    assert read_scene(fb.obs.values()) == before
    assert bpy.context.scene.vart.active_joint == "crank pivot"
