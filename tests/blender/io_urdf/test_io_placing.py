"""Issue 32.3-4 in Blender, on example-robot-data's robots: *Place on Ground* (an import option,
on by default for a free root; an operator), the whole robot following its root link moved by
hand, and the SRDF: its group state as the start, its disable_collisions pairs as the
clearance check's ignored pairs, the Will It Run? list to add and remove pairs."""
from __future__ import annotations

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from pinocchio_check import ROBOTS
from vart_addon.checks import clearance as CL
from vart_addon.drag import root_follow
from vart_addon.io_urdf import robot_objects as RO
from vart_addon.io_urdf.exporter import depsgraph_of
from vart_addon.io_urdf.importer import import_urdf

TALOS = ROBOTS / "talos_data" / "robots" / "talos_reduced.urdf"
SOLO = ROBOTS / "solo_description" / "robots" / "solo12.urdf"
pytestmark = pytest.mark.skipif(not TALOS.is_file(), reason="example-robot-data is a dev "
                                "dependency")


def lowest(obs) -> float:
    return RO.lowest_point(list(obs.values()), depsgraph_of(bpy.context, bpy.context.scene))


def test_the_import_operator_places_a_free_robot_on_the_ground(vart_registered, capsys):
    assert bpy.ops.vart.import_urdf(filepath=str(SOLO)) == {'FINISHED'}
    out = capsys.readouterr()
    assert "placed on the ground (+" in out.out + out.err
    obs = {ob.name: ob for ob in bpy.context.scene.objects if "vart" in ob.keys()}
    assert abs(RO.lowest_point(list(obs.values()), depsgraph_of(bpy.context, bpy.context.scene))) \
        < 1e-6
    # off, or with a fixed base: where the URDF puts it (solo's feet 0.336 m below its root)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obs = import_urdf(SOLO, place_on_ground=False)
    assert lowest(obs) == pytest.approx(-0.336, abs=1e-3)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obs = import_urdf(SOLO, place_on_ground=True, fixed_base=True)
    assert obs.placed == 0.0 and lowest(obs) == pytest.approx(-0.336, abs=1e-3)


def test_place_on_ground_moves_the_active_links_robot(vart_registered):
    obs = import_urdf(SOLO)
    before = {n: np.array(ob.matrix_world) for n, ob in obs.items()}
    vl = bpy.context.view_layer
    vl.objects.active = obs["FL_FOOT"]
    assert bpy.ops.vart.place_on_ground() == {'FINISHED'}
    vl.update()
    assert abs(lowest(obs)) < 1e-6
    for n, ob in obs.items():  # every link moved up by the same height, nothing else
        d = np.array(ob.matrix_world) - before[n]
        assert d[2, 3] == pytest.approx(0.336, abs=1e-3) and np.abs(d[:2]).max() < 1e-6
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    obs = import_urdf(SOLO, fixed_base=True)
    vl = bpy.context.view_layer
    vl.objects.active = obs["base_link"]
    with pytest.raises(RuntimeError, match="held to the world by joint"):
        bpy.ops.vart.place_on_ground()


def test_moving_the_root_link_by_hand_moves_the_robot(vart_registered):
    obs = import_urdf(TALOS, place_on_ground=True)
    vl = bpy.context.view_layer
    vl.update()
    base = obs["base_link"]
    before = {n: np.array(ob.matrix_world) for n, ob in obs.items()}
    base.matrix_world = Matrix.Rotation(0.7, 4, 'Z') @ Matrix.Translation((1.0, -2.0, 0.5)) \
        @ base.matrix_world
    vl.update()  # the depsgraph update that the viewport's transform makes
    D = np.array(base.matrix_world) @ np.linalg.inv(before["base_link"])
    for n, ob in obs.items():
        np.testing.assert_allclose(np.array(ob.matrix_world), D @ before[n], atol=2e-6,
                                   err_msg=n)
    # a solve afterwards finds every joint as it was: nothing to do, nothing torn
    assert bpy.ops.vart.solve() == {'FINISHED'}
    for n, ob in obs.items():
        np.testing.assert_allclose(np.array(ob.matrix_world), D @ before[n], atol=1e-5)


def test_a_keyed_root_carries_the_robot_and_baked_links_keep_their_keys(vart_registered):
    obs = import_urdf(SOLO, place_on_ground=True)
    scene, base = bpy.context.scene, obs["base_link"]
    foot = np.array(obs["FL_FOOT"].matrix_world)
    base.keyframe_insert("location", frame=1)
    base.location.x += 0.5
    base.keyframe_insert("location", frame=10)
    scene.frame_set(1)
    np.testing.assert_allclose(np.array(obs["FL_FOOT"].matrix_world), foot, atol=1e-6)
    scene.frame_set(10)
    np.testing.assert_allclose(np.array(obs["FL_FOOT"].matrix_world)[:3, 3],
                               foot[:3, 3] + (0.5, 0, 0), atol=1e-6)
    assert root_follow.follow(scene) == 0  # nothing left to follow


def test_srdf_start_and_its_pairs_ignored_by_the_clearance_check(vart_registered, capsys):
    assert bpy.ops.vart.import_urdf(filepath=str(TALOS), start='SRDF') == {'FINISHED'}
    out = capsys.readouterr()
    assert "459 pairs ignored by the clearance check (SRDF)" in out.out + out.err
    scene = bpy.context.scene
    rows = scene.vart.clearance_ignored
    assert len(rows) == 459 and rows[0].reason.startswith("SRDF")
    arm = scene.objects["arm_left_1_link"]
    # half_sitting: the left arm's first joint at 0.25847 rad
    assert arm["vart"]["joints"]["arm_left_1_joint"]["q"][0] == pytest.approx(0.25847)
    scene.frame_start = scene.frame_end = 1
    res = CL.check_clearance(scene)
    assert len(res.excluded) == 388  # the others are jointed, or of links without geometry
    every = CL.check_clearance(scene, ignore=[])
    listed = {frozenset((r.a.name, r.b.name)) for r in rows}
    assert not any(frozenset(p) in listed for p in res.depth)
    assert {p for p in every.depth if frozenset(p) not in listed} == set(res.depth)
    # by hand: the two selected links; then back, and every pair again
    vl = bpy.context.view_layer
    for ob in vl.objects:
        ob.select_set(ob.name in ("leg_left_1_link", "arm_right_7_link"))
    n = len(rows)
    assert bpy.ops.vart.add_ignored_pair() == {'FINISHED'} and len(rows) == n + 1
    assert {rows[-1].a.name, rows[-1].b.name} == {"leg_left_1_link", "arm_right_7_link"}
    assert rows[-1].reason == "by hand"
    assert bpy.ops.vart.add_ignored_pair() == {'CANCELLED'}  # ignored already
    assert bpy.ops.vart.remove_ignored_pair() == {'FINISHED'} and len(rows) == n
    assert bpy.ops.vart.clear_ignored_pairs() == {'FINISHED'} and len(rows) == 0


def test_a_start_that_needs_an_srdf_without_one_adds_nothing(vart_registered, tmp_path):
    urdf = tmp_path / "lone.urdf"
    urdf.write_text('<robot name="lone"><link name="a"/></robot>')
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="no SRDF was found"):
        bpy.ops.vart.import_urdf(filepath=str(urdf), start='SRDF')
    assert len(bpy.data.objects) == before
