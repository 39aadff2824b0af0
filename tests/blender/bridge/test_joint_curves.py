"""A joint's F-curves follow its edits (remove, rename, invert, split, merge, re-type), and a
bake owns the range it baked (bridge.joint_curves, animation.bake_record)."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

import blender_scenes as BS
from vart_addon.animation import bake as BK
from vart_addon.animation import bake_record as BR
from vart_addon.bridge import SceneBridge, fcurves_of, q_data_path
from vart_addon.bridge import animation as A
from vart_addon.bridge import edits as E
from vart_addon.bridge import joint_curves as JC
from vart_addon.bridge.errors import BridgeError
from vart_addon.solver import Linkage, se3

TIGHT = BS.TIGHT


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def vart_paths(ob) -> set:
    return {(fc.data_path, fc.array_index) for fc in fcurves_of(ob)
            if fc.data_path.startswith('["vart"]')}


def key_values(fc) -> list:
    return [tuple(round(x, 5) for x in k.co) for k in fc.keyframe_points]


def chain(jtype: str = "revolute", q=(0.3,)) -> dict:
    """Links a (on the ground, fixed) and b, joined by ``j`` of ``jtype`` (a tree joint)."""
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b", pose=se3.make_pose(np.eye(3), [1.0, 0, 0]))
    lk.add_joint("fix", "fixed", None, "a", world_frame=np.eye(4))
    lk.add_joint("j", jtype, "a", "b", world_frame=se3.make_pose(np.eye(3), [0.5, 0, 0]),
                 q=np.array(q, float))
    return BS.scene_from_linkage(lk)


def key_joint(ob, joint, frames_values) -> None:
    for f, v in frames_values:
        ob["vart"]["joints"][joint]["q"] = list(v)
        A.key_channels(ob, q_data_path(joint), f)


def test_removing_a_joint_deletes_its_curves_and_a_rebake_leaves_none_behind():
    obs = BS.keyed_fourbar(10, 30)
    BK.bake(bpy.context.scene, 1, 10, settings=TIGHT)
    assert ('["vart"]["joints"]["B"]["q"]', 0) in vart_paths(obs["coupler"])
    E.edit(lambda lk: lk.remove_joint("C"), settings=TIGHT)
    E.edit(lambda lk: lk.remove_joint("B"), settings=TIGHT)
    for ob in obs.values():
        assert not any('"B"' in p or '"C"' in p for p, _ in vart_paths(ob)), ob.name
        for fc in fcurves_of(ob):
            assert fc.is_valid, (ob.name, fc.data_path)


def test_renaming_a_joint_renames_its_curves_its_mimics_and_keeps_its_keys():
    obs = BS.keyed_fourbar(10, 30)
    crank = obs["crank"]
    before = key_values(A.find_fcurve(crank, q_data_path("A")))
    E.rename_joint(bpy.context.scene, "A", "crank joint", settings=TIGHT)
    assert "A" not in crank["vart"]["joints"] and "crank joint" in crank["vart"]["joints"]
    fc = A.find_fcurve(crank, q_data_path("crank joint"))
    assert fc is not None and fc.is_valid and key_values(fc) == before
    assert A.find_fcurve(crank, q_data_path("A")) is None
    res = BK.bake(bpy.context.scene, 1, 10, settings=TIGHT)  # still an input of the bake
    assert res.unmet == {} and any("crank joint" in i for i in res.inputs)


def test_renaming_refuses_a_taken_or_bad_name_and_changes_nothing():
    obs = BS.keyed_fourbar(10, 30)
    snap = BS.scene_snapshot()
    for bad in ("B", "", "x" * 64, 3):
        with pytest.raises(BridgeError):
            E.rename_joint(bpy.context.scene, "A", bad, settings=TIGHT)
    assert BS.scene_snapshot() == snap
    assert A.find_fcurve(obs["crank"], q_data_path("A")) is not None


def test_a_renamed_leader_keeps_its_mimic_follower():
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b")
    lk.add_link("c")
    lk.add_joint("j1", "revolute", None, "a", world_frame=np.eye(4))
    lk.add_joint("j2", "revolute", None, "b", world_frame=np.eye(4))
    lk.add_joint("j3", "revolute", None, "c", world_frame=np.eye(4))
    lk.set_mimic("j2", "j1", 2.0, 0.0)
    BS.scene_from_linkage(lk)
    bpy.data.objects["b"]["vart"]["joints"]["j2"]["mimic"] = {
        "leader": "j1", "multiplier": 2.0, "offset": 0.0}
    E.rename_joint(bpy.context.scene, "j1", "hip")
    assert bpy.data.objects["b"]["vart"]["joints"]["j2"]["mimic"]["leader"] == "hip"
    bridge = SceneBridge(bpy.context.scene)
    bridge.sync()
    assert bridge.linkage.joints["j2"].mimic[0] == "hip"


def test_inverting_a_revolute_joint_moves_its_keys_to_the_new_child_negated():
    obs = chain("revolute", (0.3,))
    key_joint(obs["b"], "j", [(1, [0.3]), (10, [0.9])])
    fc = A.find_fcurve(obs["b"], q_data_path("j"))
    fc.keyframe_points[0].interpolation = "CONSTANT"
    E.edit(lambda lk: lk.invert_joint("j"))
    assert not vart_paths(obs["b"]) - {(q_data_path("fix"), 0)}
    new = A.find_fcurve(obs["a"], q_data_path("j"))
    assert [k.co[0] for k in new.keyframe_points] == [1, 10]
    np.testing.assert_allclose([k.co[1] for k in new.keyframe_points], [-0.3, -0.9], atol=1e-6)
    assert new.keyframe_points[0].interpolation == "CONSTANT"
    bpy.context.scene.frame_set(10)
    assert obs["a"]["vart"]["joints"]["j"]["q"][0] == pytest.approx(-0.9, abs=1e-6)


def test_inverting_a_planar_joint_rekeys_the_inverse_motion_at_every_keyed_frame():
    """A planar joint's inverse is not minus its value: each keyed configuration becomes the
    inverse motion's, so the relative pose of the two links is the same at every key."""
    from vart_addon.solver.joint_types import CATALOG
    jt = CATALOG["planar"]
    obs = chain("planar", (0.1, 0.2, 0.3))
    qs = {1: [0.1, 0.2, 0.3], 5: [0.4, -0.2, 1.1], 10: [-0.3, 0.5, -0.7]}
    key_joint(obs["b"], "j", qs.items())
    E.edit(lambda lk: lk.invert_joint("j"))
    curves = JC.joint_curves(obs["a"], "j")["q"]
    for f, q in qs.items():
        q_inv = [curves[i].evaluate(f) for i in range(3)]
        M = (jt.motion(np.array(q), 0.0) @ jt.motion(np.array(q_inv), 0.0)).reshape(4, 4)
        np.testing.assert_allclose(M, np.eye(4), atol=1e-5)


def test_splitting_a_link_moves_the_keys_of_the_joints_it_takes_over():
    obs = chain("revolute", (0.3,))
    key_joint(obs["b"], "j", [(1, [0.3]), (10, [0.9])])
    before = key_values(A.find_fcurve(obs["b"], q_data_path("j")))
    T = se3.make_pose(np.eye(3), [1.2, 0, 0])
    E.split_link(bpy.context.scene, "b", T, joints=["j"], new_name="b2")
    b2 = bpy.data.objects["b2"]
    assert "j" in b2["vart"]["joints"] and "j" not in obs["b"]["vart"]["joints"]
    assert A.find_fcurve(obs["b"], q_data_path("j")) is None
    assert key_values(A.find_fcurve(b2, q_data_path("j"))) == before
    bpy.context.scene.frame_set(10)
    assert b2["vart"]["joints"]["j"]["q"][0] == pytest.approx(0.9, abs=1e-6)


def test_merging_a_joint_deletes_its_curves_and_the_welded_links_bake_keys():
    obs = chain("revolute", (0.3,))
    key_joint(obs["b"], "j", [(1, [0.3]), (10, [0.9])])
    BK.bake(bpy.context.scene, 1, 10, settings=TIGHT)
    assert any(A.group_of(fc) == A.BAKE_GROUP for fc in fcurves_of(obs["b"]))
    E.merge_joint(bpy.context.scene, "j")
    assert not any(fc.data_path.startswith('["vart"]') or A.group_of(fc) == A.BAKE_GROUP
                   for fc in fcurves_of(obs["b"]))


def test_a_type_change_to_other_dof_deletes_its_per_dof_curves():
    obs = chain("revolute", (0.3,))
    key_joint(obs["b"], "j", [(1, [0.3]), (10, [0.9])])
    E.edit(lambda lk: lk.set_joint_type("j", "spherical"))
    assert JC.joint_curves(obs["b"], "j") == {}


def test_a_scene_baked_before_ranges_were_recorded_owns_the_span_of_its_bake_keys():
    obs = BS.keyed_fourbar(10, 30)
    scene = bpy.context.scene
    assert BR.baked_ranges(scene) == []
    BK.bake(scene, 2, 9, settings=TIGHT)
    del scene[BR.KEY]  # as a file from before
    assert BR.baked_ranges(scene) == [(2, 9)]
    assert BR.uncovered(scene, 1, 10) == [(1, 1), (10, 10)]
    scene[BR.KEY] = "garbage"  # a corrupt record: the keys tell
    assert BR.baked_ranges(scene) == [(2, 9)]
    res = BK.bake(scene, 1, 4, settings=TIGHT)
    assert res.others == [] and BR.baked_ranges(scene) == [(1, 4)]
    assert math.isclose(len(A.find_fcurve(obs["coupler"], "location", 0).keyframe_points), 4)
