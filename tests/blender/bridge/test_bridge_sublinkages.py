"""Sublinkages as Blender collections (real bpy, issue 22 item 2): the four-bar whose crank is a
driving sublinkage collection solves as the solver's test does (the crank meets its target
exactly, the rocker takes the closed-form angle, the elbow's target is reported unreached by
the top); editing membership and disposition in Blender changes the solve; what nested and
several collections mean; bad collection data refused naming it; save and reload."""
from __future__ import annotations

import bpy
import pytest

from vart_addon.bridge import BridgeError, SchemaError
from vart_addon.bridge import schema as S
from vart_addon.bridge import sublinkages as SL
from vart_addon.shared.bridge_cache import bridge_for
from vart_addon.solver.sublinkages import solve_order


def q(opkit, joint):
    return opkit.joint(joint)["q"][0]


def collection(name, parent=None, disposition=None, objects=()):
    """A new collection under ``parent`` (default: the scene's), marked with
    ``disposition`` if given, holding ``objects`` (moved out of the scene's collection)."""
    coll = bpy.data.collections.new(name)
    (parent or bpy.context.scene.collection).children.link(coll)
    if disposition is not None:
        SL.write_disposition(coll, disposition)
    for ob in objects:
        move(ob, coll)
    return coll


def move(ob, into):
    for c in list(ob.users_collection):
        c.objects.unlink(ob)
    into.objects.link(ob)


def conflicting_targets(fb, opkit, crank):
    """Targets on the crank joint A (absolute crank angle ``crank``) and the elbow C: the
    four-bar has one DoF, so they conflict."""
    S.update_joint(fb.obs["crank"], "A", target_q=(crank - fb.theta2_0,), target_mask=(True,))
    S.update_joint(fb.obs["rocker"], "C", target_q=(0.4,), target_mask=(True,))


def solve():
    assert bpy.ops.vart.solve() == {'FINISHED'}
    return bpy.context.scene.vart


def test_a_four_bar_whose_crank_is_a_driving_collection_solves_as_the_solver_does(
        op_fourbar, opkit):
    fb = op_fourbar
    collection("Crank", disposition="driving", objects=[fb.obs["crank"]])
    lk = bridge_for(bpy.context.scene)
    for th in (fb.theta2_0 + 0.3, fb.theta2_0 + 0.8, fb.theta2_0 - 0.4):
        conflicting_targets(fb, opkit, th)
        sv = solve()
        assert solve_order(lk.linkage) == [("Crank",), (None,)]
        assert q(opkit, "A") == pytest.approx(th - fb.theta2_0, abs=1e-9)
        _t3, t4 = fb.analytic(th)
        assert q(opkit, "D") == pytest.approx(t4 - fb.theta4_0, abs=1e-9)
        assert sv.status_unreached == "top: target of joint 'C'"
        assert sv.status_summary.startswith("Unmet: target of joint 'C'")


def test_editing_membership_and_disposition_in_blender_changes_the_solve(op_fourbar, opkit):
    """Flat, the two targets compromise; the crank moved into a driving collection meets its
    target; simultaneous is the flat answer again; the crank moved back out of the collection
    is flat; driven, the top decides the crank's angle."""
    fb = op_fourbar
    th = fb.theta2_0 + 0.8
    conflicting_targets(fb, opkit, th)
    bridge = bridge_for(bpy.context.scene)
    rebuilds = bridge.rebuilds
    solve()
    flat = q(opkit, "A"), q(opkit, "D")
    assert abs(flat[0] - (th - fb.theta2_0)) > 1e-3
    assert bpy.context.scene.vart.status_unreached == ""
    crank = collection("Crank", disposition="driving", objects=[fb.obs["crank"]])
    solve()
    assert q(opkit, "A") == pytest.approx(th - fb.theta2_0, abs=1e-9)
    SL.write_disposition(crank, "simultaneous")
    solve()
    assert (q(opkit, "A"), q(opkit, "D")) == pytest.approx(flat, abs=1e-9)
    SL.write_disposition(crank, "driving")
    solve()
    assert q(opkit, "A") == pytest.approx(th - fb.theta2_0, abs=1e-9)
    move(fb.obs["crank"], bpy.context.scene.collection)  # out of the sublinkage: flat again
    solve()
    assert (q(opkit, "A"), q(opkit, "D")) == pytest.approx(flat, abs=1e-9)
    assert bridge.linkage.link_home.get("crank") is None
    move(fb.obs["crank"], crank)
    SL.write_disposition(crank, "driven")
    solve()
    assert solve_order(bridge.linkage) == [(None,), ("Crank",)]
    assert bpy.context.scene.vart.status_unreached.startswith("top: target of joint 'C'")
    assert bridge.rebuilds == rebuilds  # patched, not rebuilt: only the stages changed


def test_plain_collections_are_grouping_and_the_innermost_sublinkage_wins(op_fourbar):
    """Robot (plain) > Drive (driving) > Parts (plain) > Tip (driven) > Inner (plain): Drive
    is at the top, Tip inside Drive; the crank in Parts is Drive's; the coupler in Drive and in
    Inner belongs to Tip (one chain: the inner wins); the rocker, in Robot only, is the top's.
    A joint follows its child link."""
    fb = op_fourbar
    robot = collection("Robot", objects=[fb.obs["rocker"]])
    drive = collection("Drive", robot, "driving")
    parts = collection("Parts", drive, objects=[fb.obs["crank"]])
    tip = collection("Tip", parts, "driven")
    inner = collection("Inner", tip, objects=[fb.obs["coupler"]])
    drive.objects.link(fb.obs["coupler"])
    h = SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects)
    assert h.sublinkages == (SL.SublinkageData("Drive", None, "driving", drive.color_tag),
                             SL.SublinkageData("Tip", "Drive", "driven", tip.color_tag))
    assert h.homes == (("coupler", "Tip"), ("crank", "Drive"))
    lk = bridge_for(bpy.context.scene)
    lk.sync()
    from vart_addon.solver.sublinkages import home_of_joint
    homes = {n: home_of_joint(lk.linkage, j) for n, j in lk.linkage.joints.items()}
    assert homes == {"A": "Drive", "B": "Tip", "C": None, "D": None}
    assert inner.name == "Inner" and SL.disposition_of(inner) is None


def test_a_link_in_two_sublinkages_neither_inside_the_other_is_refused(op_fourbar, opkit):
    fb = op_fourbar
    collection("Left", disposition="driving", objects=[fb.obs["crank"]])
    right = collection("Right", disposition="driven")
    right.objects.link(fb.obs["crank"])
    with pytest.raises(SchemaError) as e:
        bridge_for(bpy.context.scene).sync()
    assert str(e.value).startswith("object 'crank': in two sublinkages, collections ")
    assert "'Left'" in str(e.value) and "'Right'" in str(e.value)
    before = opkit.snapshot()
    with pytest.raises(RuntimeError, match="in two sublinkages"):
        bpy.ops.vart.solve()
    assert opkit.snapshot() == before


@pytest.mark.parametrize("stored,message", [
    ({"sublinkage": {"disposition": "sideways"}},
     """collection 'Crank': ["vart"]["sublinkage"]["disposition"]: must be one of"""),
    ({"sublinkage": {"disposition": "driving", "speed": 2.0}},
     """collection 'Crank': ["vart"]["sublinkage"]["speed"]: unknown key"""),
    ({"version": 2, "sublinkage": {"disposition": "driving"}},
     """collection 'Crank': ["vart"]["version"]: written by a newer vart"""),
    ({"sublinkage": "driving"},
     """collection 'Crank': ["vart"]["sublinkage"]: expected a group"""),
])
def test_bad_collection_data_is_refused_naming_the_collection_and_key(op_fourbar, stored,
                                                                       message):
    crank = collection("Crank", objects=[op_fourbar.obs["crank"]])
    crank["vart"] = stored
    with pytest.raises(SchemaError) as e:
        bridge_for(bpy.context.scene).sync()
    assert str(e.value).startswith(message), str(e.value)
    with pytest.raises(BridgeError, match="must be one of"):
        SL.write_disposition(crank, "upwards")


def test_save_and_reload_keeps_the_sublinkages_and_their_solve(op_fourbar, opkit, tmp_path):
    fb = op_fourbar
    th = fb.theta2_0 + 0.5
    conflicting_targets(fb, opkit, th)
    collection("Crank", disposition="driving", objects=[fb.obs["crank"]])
    before = SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects)
    path = str(tmp_path / "sublinkages.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    assert SL.read_hierarchy(bpy.context.scene, bpy.context.scene.objects) == before
    solve()
    assert q(opkit, "A") == pytest.approx(th - fb.theta2_0, abs=1e-9)
