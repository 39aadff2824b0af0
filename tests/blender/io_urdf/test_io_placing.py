"""Issue 32.3-4 in Blender, on example-robot-data's robots: *Place on Ground* (an import option,
on by default for a free root, in the operator and in import_urdf alike; asked for, a fixed
base too; an operator), the whole robot following its root link moved by
hand, and the SRDF: its group state as the start, its disable_collisions pairs as the
clearance check's ignored pairs, the Will It Run? list to add and remove pairs."""
from __future__ import annotations

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from pinocchio_check import ROBOTS
from repo_paths import DATA
from vart_addon.checks import clearance as CL
from vart_addon.drag import root_follow
from vart_addon.formats.urdf import files as urdf
from vart_addon.io_urdf import robot_objects as RO
from vart_addon.io_urdf.exporter import depsgraph_of
from vart_addon.io_urdf.importer import import_urdf, places_on_ground
from vart_addon.solver import se3

TALOS = ROBOTS / "talos_data" / "robots" / "talos_reduced.urdf"
SOLO = ROBOTS / "solo_description" / "robots" / "solo12.urdf"
GANTRY = DATA / "gantry.urdf"  # its root link: 'world'
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
    # with Fixed Base, by default where the URDF puts it; On places it too; Off never
    for fixed, option, placed in ((True, 'FREE', False), (True, 'ON', True),
                                  (False, 'OFF', False)):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        vart_registered.register()
        assert bpy.ops.vart.import_urdf(filepath=str(SOLO), fixed_base=fixed,
                                        place_on_ground=option) == {'FINISHED'}
        out = capsys.readouterr()
        assert ("placed on the ground (+336" in out.out + out.err) is placed, option
        scene = bpy.context.scene
        assert RO.lowest_point([ob for ob in scene.objects if "vart" in ob.keys()],
                               depsgraph_of(bpy.context, scene)) == \
            pytest.approx(0.0 if placed else -0.336, abs=1e-3)


def test_import_urdf_places_a_floating_base_by_default_and_as_told(vart_registered):
    """The Python API and the operator share one rule (importer.places_on_ground): None (the
    default) places a free root, not a fixed one; True and False are followed."""
    cases = [({}, 0.336), ({"place_on_ground": False}, 0.0), ({"place_on_ground": True}, 0.336),
             ({"fixed_base": True}, 0.0), ({"fixed_base": True, "place_on_ground": False}, 0.0)]
    for kw, up in cases:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        vart_registered.register()
        obs = import_urdf(SOLO, **kw)
        assert obs.placed == pytest.approx(up, abs=1e-3), kw
        assert lowest(obs) == pytest.approx(up - 0.336, abs=1e-3), kw
    # a fixed base told to: its base pose moves, the joint holding it to the world with it
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    base = se3.make_pose(se3.so3_exp(np.array([0.0, 0.0, 0.4])), [1.0, 2.0, 3.0])
    obs = import_urdf(SOLO, fixed_base=True, place_on_ground=True, base_pose=base)
    assert obs.placed == pytest.approx(0.336 - 3.0, abs=1e-3) and abs(lowest(obs)) < 1e-6
    T = np.array(obs["base_link"].matrix_world)
    np.testing.assert_allclose(T[:3, :3], base[:3, :3], atol=1e-6)
    np.testing.assert_allclose(T[:3, 3], [1.0, 2.0, 0.336], atol=1e-3)
    before = {n: np.array(ob.matrix_world) for n, ob in obs.items()}
    assert bpy.ops.vart.solve() == {'FINISHED'}  # nothing torn: a solve leaves it there
    for n, ob in obs.items():
        np.testing.assert_allclose(np.array(ob.matrix_world), before[n], atol=1e-5, err_msg=n)
    # a root the URDF fixes to its 'world' link cannot move: left, with a warning when asked
    for kw, warned in (({}, False), ({"place_on_ground": True}, True)):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        obs = import_urdf(GANTRY, **kw)
        assert obs.placed == 0.0
        assert any("Place on Ground passed over" in w for w in obs.warnings) is warned
    # the rule, for (free, fixed base) x (None, True, False)
    for robot, want in ((urdf.read_urdf(SOLO), [True, True, False, False, True, False]),
                        (urdf.read_urdf(GANTRY), [False] * 6)):
        assert [places_on_ground(robot, fixed, p) for fixed in (False, True)
                for p in (None, True, False)] == want


def test_place_on_ground_moves_the_active_links_robot(vart_registered):
    obs = import_urdf(SOLO, place_on_ground=False)
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


def test_a_bake_is_the_same_with_the_root_following_and_without(vart_registered):
    """Story 2 (the hexapod's root is free: the handlers watch it) baked with the root-follow
    handlers and without them keys the same poses, to the bit: a bake writes every link,
    so the handlers leave it alone."""
    def baked() -> dict:
        scene = bpy.context.scene
        assert bpy.ops.vart.add_example(example="trenching") == {'FINISHED'}
        scene.vart.check_after_bake = False
        assert bpy.ops.vart.bake() == {'FINISHED'}
        out = {}
        for f in range(scene.frame_start, scene.frame_end + 1, 7):
            scene.frame_set(f)
            out[f] = {ob.name: np.array(ob.matrix_world) for ob in scene.objects
                      if "vart" in ob.keys()}
        return out

    following = baked()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    root_follow.unregister()
    try:
        alone = baked()
    finally:
        root_follow.register()
    assert following.keys() == alone.keys()
    for f, poses in following.items():
        assert poses.keys() == alone[f].keys()
        for n, M in poses.items():
            assert np.array_equal(M, alone[f][n]), (f, n)


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


class Rec:
    """A layout that records every call (name, args, keywords) and returns another."""

    def __init__(self, log: list):
        self.log = log

    def __getattr__(self, name):
        def call(*args, **kw):
            self.log.append((name, args, kw))
            return Rec(self.log)
        return call


def test_the_will_it_run_panel_lists_the_ignored_pairs(vart_registered):
    """The list of item 4 in the Will It Run? panel: the SRDF's pairs (solo12: 12) with Ignore
    Pair, Check Pair Again and Check Every Pair beside it; a row names the two links and
    why, and a link deleted since as deleted."""
    from types import SimpleNamespace

    from vart_addon.panels import checks as PC
    import_urdf(SOLO)
    sv = bpy.context.scene.vart
    log: list = []
    PC.VART_PT_checks.draw(SimpleNamespace(layout=Rec(log)), bpy.context)
    assert ("label", (), {"text": "Ignored pairs (12):"}) in log
    (args,) = [a for n, a, _ in log if n == "template_list"]
    assert args[:5] == ("VART_UL_ignored_pairs", "", sv, "clearance_ignored", sv)
    assert hasattr(bpy.types, "VART_UL_ignored_pairs")  # registered
    ops = [a[0] for n, a, _ in log if n == "operator" and a]
    assert {"vart.add_ignored_pair", "vart.remove_ignored_pair",
            "vart.clear_ignored_pairs"} <= set(ops)
    row = sv.clearance_ignored[0]
    a, b, reason = row.a.name, row.b.name, row.reason

    def texts():
        log.clear()
        PC.VART_UL_ignored_pairs.draw_item(None, bpy.context, Rec(log), sv, row, 0, sv,
                                           "clearance_ignored_index")
        return [k["text"] for n, _, k in log if n == "label"]
    assert texts() == [f"{a} / {b}", reason] and reason.startswith("SRDF")
    bpy.data.objects.remove(bpy.data.objects[b])
    assert texts() == [f"{a} / (deleted)", reason]


def test_a_chosen_srdf_replaces_the_one_found_and_none_reads_none(vart_registered, tmp_path,
                                                                   capsys):
    """solo12 ships solo.srdf (12 disable_collisions pairs, state 'standing'); an SRDF chosen
    in the dialog (a small file written here) is read instead: its group state named in
    the dialog, its one pair. ``srdf=False`` reads none."""
    chosen = tmp_path / "mine.srdf"
    chosen.write_text('<?xml version="1.0"?>\n<robot name="solo">\n'
                      '  <group name="all"><joint name="FL_KFE"/></group>\n'
                      '  <group_state name="first" group="all"><joint name="FL_KFE" '
                      'value="0.5"/></group_state>\n'
                      '  <group_state name="bent" group="all"><joint name="FL_KFE" '
                      'value="-1.0"/></group_state>\n'
                      '  <disable_collisions link1="FL_UPPER_LEG" link2="FR_UPPER_LEG" '
                      'reason="Never"/>\n</robot>\n')
    assert bpy.ops.vart.import_urdf(filepath=str(SOLO), start='SRDF', srdf_file=str(chosen),
                                    srdf_state="bent") == {'FINISHED'}
    out = capsys.readouterr()
    assert "1 pairs ignored by the clearance check (SRDF)" in out.out + out.err
    scene = bpy.context.scene
    rows = scene.vart.clearance_ignored
    assert [{r.a.name, r.b.name} for r in rows] == [{"FL_UPPER_LEG", "FR_UPPER_LEG"}]
    knee = scene.objects["FL_LOWER_LEG"]["vart"]["joints"]["FL_KFE"]["q"][0]
    assert knee == pytest.approx(-1.0)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    obs = import_urdf(SOLO, srdf=False)
    assert obs.ignored == 0 and len(bpy.context.scene.vart.clearance_ignored) == 0
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_registered.register()
    assert import_urdf(SOLO).ignored == 12  # found beside it by default


def test_a_start_that_needs_an_srdf_without_one_adds_nothing(vart_registered, tmp_path):
    urdf = tmp_path / "lone.urdf"
    urdf.write_text('<robot name="lone"><link name="a"/></robot>')
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="no SRDF was found"):
        bpy.ops.vart.import_urdf(filepath=str(urdf), start='SRDF')
    assert len(bpy.data.objects) == before
