"""URDF import into real Blender: objects, visuals, meshes through Blender's importers, colours,
joints, and the imported robot's link poses for random configurations against the URDF's own
forward kinematics (``urdf.link_poses``): float64 poses rebuilt from the stored properties to
1e-9, the objects' float32 world matrices to 1e-5. Fixtures: ``data/`` (see make_fixtures.py).
"""
from __future__ import annotations

import math
import shutil

import bpy
import numpy as np
import pytest

from repo_paths import DATA, SHARED_BENCH
from urdf_random import random_q  # tests/helpers
from urdf_scene import rigid, set_configuration  # tests/helpers
from vart_addon.bridge import MimicData, SceneBridge, read_scene
from vart_addon.formats import stl
from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.io_urdf import IoError
from vart_addon.io_urdf.importer import MISSING_KEY, SOURCE_KEY, import_urdf
from vart_addon.solver import se3

ARM6 = DATA / "arm6" / "arm6.urdf"
ROVER = DATA / "rover" / "rover_description" / "urdf" / "rover.urdf"
GANTRY = DATA / "gantry.urdf"
BENCH = SHARED_BENCH / "problems"


def check_poses(scene, imported, q, base=None):
    """Object poses (1e-5) and poses rebuilt from the stored properties (1e-9) equal the
    URDF's forward kinematics; stored q are exactly the URDF values. The root link is free:
    its pose is the object's float32 matrix, so the 1e-9 check is relative to it."""
    robot = imported.robot
    want = urdf.link_poses(robot, q, base=base)
    rebuilt = SceneBridge(scene)
    rebuilt.sync()
    got = rebuilt.linkage.poses()
    _, umap = linkage_from_urdf(robot)
    root = robot.root_link
    G = got[imported[root].name] @ se3.inverse(want[root]) if root in imported else np.eye(4)
    for link, ob in imported.items():
        np.testing.assert_allclose(rigid(ob), want[link], atol=1e-5, err_msg=link)
        np.testing.assert_allclose(got[ob.name], G @ want[link], atol=1e-9, err_msg=link)
    data = read_scene(imported.values())
    for name, v in urdf.joint_values(robot, q).items():
        j = data.joints[imported.joints[name]]
        if robot.joint_by_name(name).type in ("revolute", "continuous", "prismatic"):
            assert j.q == (v,), name
        elif v is not None:
            np.testing.assert_allclose(j.q, umap.vart_q(name, v), atol=1e-12, err_msg=name)


# ---- structure --------------------------------------------------------------------------------
def test_arm6_objects_visuals_and_colours(scene):
    obs = import_urdf(ARM6)
    robot = obs.robot
    assert obs.warnings == [] and obs.missing == []
    assert list(obs) == [link.name for link in robot.links]
    for link in robot.links:
        ob = obs[link.name]
        assert ob.type == 'EMPTY' and ob.name == link.name and ob.parent is None
        kids = obs.visuals[link.name]
        assert [k.parent for k in kids] == [ob] * len(link.visuals)
        assert {k.name for k in kids} == {k.name for k in ob.children}
        for vis, k in zip(link.visuals, kids):  # link frame and visual origin kept apart
            T = vis.origin.matrix()
            if isinstance(vis.geometry, urdf.Mesh):
                T = T @ np.diag(list(vis.geometry.scale) + [1.0])
            np.testing.assert_allclose(np.array(k.matrix_basis), T, atol=1e-6)
            assert np.array_equal(np.array(k.matrix_parent_inverse), np.eye(4))
            assert k.type == 'MESH' and "vart" not in k.keys()
            if vis.rgba is not None:
                assert tuple(k.color) == pytest.approx(vis.rgba, abs=1e-6)
                mat = k.material_slots[0].material
                assert tuple(mat.diffuse_color) == pytest.approx(vis.rgba, abs=1e-6)
                bsdf = next(n for n in mat.node_tree.nodes if n.type == 'BSDF_PRINCIPLED')
                assert tuple(bsdf.inputs["Base Color"].default_value) == pytest.approx(vis.rgba, abs=1e-6)
                assert bsdf.inputs["Alpha"].default_value == pytest.approx(vis.rgba[3])
    assert [k.name for k in obs.visuals["upper_arm"]] == ["upper_arm_body", "elbow_cap", "shoulder_cap"]
    # one mesh per file, shared; each visual keeps its own colour and scale
    lf, rf = obs.visuals["left_finger"][0], obs.visuals["right_finger"][0]
    assert lf.data == rf.data and np.linalg.det(np.array(rf.matrix_basis)) == pytest.approx(-1)
    # the OBJ's own material is kept when the URDF gives no colour
    body = obs.visuals["upper_arm"][0]
    assert body.material_slots[0].material.name.startswith("arm_paint")
    assert obs.collection.name == "arm6" and set(obs.collection.objects) >= set(obs.values())
    assert obs.collection[SOURCE_KEY]["file"] == str(ARM6)
    assert urdf.read_urdf(obs.collection[SOURCE_KEY]["text"]) == robot


def test_arm6_joints_limits_and_mimic(scene):
    obs = import_urdf(ARM6)
    data = read_scene(scene.objects)
    assert set(data.joints) == {j.name for j in obs.robot.joints}
    assert obs.joints == {j.name: j.name for j in obs.robot.joints} and obs.base_joint is None
    lk, umap = linkage_from_urdf(obs.robot)
    for j in obs.robot.joints:
        d = data.joints[j.name]
        v = lk.joint(j.name)
        assert not d.virtual and d.tree and d.child == j.child and d.parent == j.parent
        # frames and q exactly as the linkage of the URDF has them
        assert d.T_parent_mob == tuple(v.T_parent_mob.reshape(16))
        assert d.T_child_frame == tuple(v.T_child_frame.reshape(16))
        assert d.q == tuple(v.q) and d.lower == tuple(v.lower) and d.upper == tuple(v.upper)
    t = data.joints
    assert t["wrist_3"].type == "revolute" and t["wrist_3"].lower == (-math.inf,)
    assert t["wrist_1"].upper == (math.inf,)  # a revolute without <limit>
    assert t["shoulder_lift"].lower == (-2.0,) and t["shoulder_lift"].upper == (2.0,)
    assert t["left_finger_joint"].type == "prismatic" and t["left_finger_joint"].upper == (0.04,)
    assert t["gripper_mount"].type == "fixed" and t["gripper_mount"].q == ()
    assert t["right_finger_joint"].mimic == MimicData("left_finger_joint", 1.0, 0.0)
    assert t["left_tip_joint"].mimic == MimicData("left_finger_joint", 5.0, 0.05)
    assert t["shoulder_pan"].parent is None or t["shoulder_pan"].parent == "base_link"
    links = data.links
    assert links["base_link"].mass == 3.0 and links["base_link"].com == (0, 0, 0.05)
    assert links["base_link"].root_tree and not links["forearm"].root_tree
    assert not any(link.virtual for link in links.values())


def test_meshes_keep_the_file_coordinates(scene):
    """STL, OBJ (forward Y, up Z passed: its defaults would rotate the mesh) and PLY vertices
    arrive in the visual object's frame exactly as written in the file."""
    obs = import_urdf(ARM6)

    def verts(ob):
        return np.array([v.co for v in ob.data.vertices], dtype=float)

    def same_set(a, b):
        a = np.unique(np.round(a, 5), axis=0)
        b = np.unique(np.round(b, 5), axis=0)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-5)

    meshes = DATA / "arm6" / "meshes"
    same_set(verts(obs.visuals["base_link"][0]), stl.read_stl(meshes / "base.stl").reshape(-1, 3))
    same_set(verts(obs.visuals["shoulder_link"][0]),
             stl.read_stl(meshes / "shoulder.stl").reshape(-1, 3))
    obj = [[float(x) for x in line.split()[1:]] for line in
           (meshes / "upper_arm.obj").read_text().splitlines() if line.startswith("v ")]
    same_set(verts(obs.visuals["upper_arm"][0]), np.array(obj))
    lines = (meshes / "forearm.ply").read_text().splitlines()
    n = int(next(l for l in lines if l.startswith("element vertex")).split()[-1])
    start = lines.index("end_header") + 1
    ply = [[float(x) for x in l.split()] for l in lines[start:start + n]]
    same_set(verts(obs.visuals["forearm"][0]), np.array(ply))
    # in the world: link pose @ visual origin @ scale @ file vertex
    rf = obs.visuals["right_finger"][0]
    bpy.context.view_layer.update()
    W = np.array(rf.matrix_world, dtype=float)
    fv = stl.read_stl(meshes / "finger.stl").reshape(-1, 3)
    link = urdf.link_poses(obs.robot)["right_finger"]
    expect = (link @ np.diag([1, -1, 1, 1]) @ np.c_[fv, np.ones(len(fv))].T).T[:, :3]
    same_set((W @ np.c_[verts(rf), np.ones(len(rf.data.vertices))].T).T[:, :3], expect)


def test_primitives_are_generated_meshes(scene):
    obs = import_urdf(GANTRY)
    assert "world" not in obs  # the ground
    rail = obs.visuals["rail"][0]
    bb = np.array([v.co for v in rail.data.vertices])
    np.testing.assert_allclose(bb.min(axis=0), [-1, -0.05, -0.05], atol=1e-6)
    np.testing.assert_allclose(bb.max(axis=0), [1, 0.05, 0.05], atol=1e-6)
    puck = np.array([v.co for v in obs.visuals["puck"][0].data.vertices])
    assert np.hypot(puck[:, 0], puck[:, 1]).max() == pytest.approx(0.05, abs=1e-6)
    assert np.ptp(puck[:, 2]) == pytest.approx(0.02, abs=1e-6) and abs(puck[:, 2].mean()) < 1e-6
    drone = np.array([v.co for v in obs.visuals["drone"][0].data.vertices])
    np.testing.assert_allclose(np.linalg.norm(drone, axis=1), 0.08, atol=1e-6)


# ---- kinematics -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [ARM6, ROVER, GANTRY], ids=lambda p: p.stem)
def test_link_poses_for_random_configurations(scene, path):
    obs = import_urdf(path, place_on_ground=False)  # the root where the URDF puts it
    check_poses(scene, obs, {})
    rng = np.random.default_rng(11)
    for _ in range(4):
        q = random_q(obs.robot, rng)
        set_configuration(scene, obs, q)
        check_poses(scene, obs, q)


def test_import_at_a_configuration_and_base_pose(scene):
    robot = urdf.read_urdf(ARM6)
    q = random_q(robot, np.random.default_rng(3))
    base = se3.make_pose(se3.so3_exp(np.array([0.2, -0.4, 1.0])), [1.0, -2.0, 0.5])
    obs = import_urdf(ARM6, q=q, base_pose=base, place_on_ground=False)  # the pose as given
    check_poses(scene, obs, q, base=base)


BENCH_FILES = sorted(BENCH.glob("*.urdf")) if BENCH.is_dir() else []


@pytest.mark.skipif(not BENCH_FILES, reason=f"no benchmark URDFs in {BENCH}")
@pytest.mark.parametrize("path", BENCH_FILES, ids=lambda p: p.stem)
def test_benchmark_urdfs(scene, path):
    obs = import_urdf(path)
    assert len(obs) == len([l for l in obs.robot.links if l.name != "world"])
    rng = np.random.default_rng(5)
    for _ in range(2):
        q = random_q(obs.robot, rng)
        set_configuration(scene, obs, q)
        check_poses(scene, obs, q)


# ---- meshes that are not there ----------------------------------------------------------------
def test_missing_and_unreadable_meshes_become_empties(scene):
    obs = import_urdf(ROVER)
    assert sorted(obs.missing) == sorted(["package://rover_description/meshes/sonar.3ds",
                                          "package://rover_description/meshes/antenna.stl",
                                          "package://rover_description/meshes/corrupt.stl"])
    text = "\n".join(obs.warnings)
    assert "antenna.stl' not found (looked in " in text
    assert "corrupt.stl" in text and "could not be read" in text
    assert "unsupported mesh format '.3ds'" in text
    for name in ("sonar", "antenna", "lens"):
        ob = bpy.data.objects[f"{name} (missing)"]
        assert ob.type == 'EMPTY' and MISSING_KEY in ob.keys() and "vart" not in ob.keys()
    assert bpy.data.objects["antenna (missing)"].parent == obs["camera_link"]
    # the rest imported: four wheels share the OBJ, the chassis in mm is scaled
    wheels = [obs.visuals[f"{n}_wheel"][0] for n in ("front_left", "front_right", "rear_left",
                                                      "rear_right")]
    assert len({w.data.name for w in wheels}) == 1
    chassis = obs.visuals["base_link"][0]
    assert tuple(chassis.scale) == pytest.approx((0.001,) * 3)
    assert max(chassis.dimensions) == pytest.approx(0.6, abs=1e-6)
    SceneBridge(scene).sync()  # a valid scene


def test_search_paths(scene, tmp_path):
    lone = tmp_path / "lone" / "arm6.urdf"  # the URDF without its meshes next to it
    lone.parent.mkdir()
    shutil.copy(ARM6, lone)
    obs = import_urdf(lone, use_env=False)
    assert len(obs.missing) == 6 and all("not found" in w for w in obs.warnings)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obs = import_urdf(lone, search_paths=[DATA / "arm6"], use_env=False)
    assert obs.missing == [] and obs.warnings == []
    # package:// from a copied URDF: a folder of packages as the search path
    bpy.ops.wm.read_factory_settings(use_empty=True)
    shutil.copy(ROVER, tmp_path / "rover.urdf")
    obs = import_urdf(tmp_path / "rover.urdf", search_paths=[str(DATA / "rover")], use_env=False)
    assert len(obs.missing) == 3  # the three broken ones only


# ---- names ------------------------------------------------------------------------------------
def test_importing_twice_renames_objects_and_joints(scene):
    a = import_urdf(ARM6, place_on_ground=False)
    b = import_urdf(ARM6, base_pose=se3.make_pose(np.eye(3), [1.0, 0, 0]), place_on_ground=False)
    assert set(a) == set(b)
    assert b["base_link"].name == "base_link.001" and b.joints["elbow"] == "elbow.001"
    data = read_scene(scene.objects)
    assert len(data.joints) == 2 * len(a.robot.joints)
    assert data.joints["right_finger_joint.001"].mimic.leader == "left_finger_joint.001"
    assert data.joints["elbow.001"].parent == "upper_arm.001"
    bridge = SceneBridge(scene)
    bridge.sync()
    q = {"elbow": 0.7, "left_finger_joint": 0.03}
    set_configuration(scene, b, q)
    check_poses(scene, b, q, base=se3.make_pose(np.eye(3), [1.0, 0, 0]))
    check_poses(scene, a, {})


def test_fixed_base_is_a_virtual_joint(scene):
    obs = import_urdf(ARM6, fixed_base=True)
    data = read_scene(scene.objects)
    j = data.joints[obs.base_joint]
    assert obs.base_joint == "base_link_base" and j.virtual and j.type == "fixed"
    assert j.parent is None and j.child == "base_link"
    check_poses(scene, obs, {})


def test_import_through_the_operator_selects_the_robot(opkit, capsys):
    assert bpy.ops.vart.import_urdf(filepath=str(ROVER)) == {'FINISHED'}
    assert bpy.context.view_layer.objects.active.name == "base_footprint"
    assert {ob.name for ob in bpy.context.selected_objects} == {
        link.name for link in urdf.read_urdf(ROVER).links}
    out = capsys.readouterr()
    assert "imported 'rover': 9 links, 8 joints, 3 mesh(es) missing (3 warnings)" in out.out + out.err
    assert bpy.ops.vart.import_urdf(filepath=str(ARM6), fixed_base=True,
                                    search_paths="/nowhere;/neither") == {'FINISHED'}
    assert "base_link_base" in read_scene(bpy.context.scene.objects).joints


def test_menus_and_file_handler(opkit):
    from vart_addon.io_urdf import menus as io_menus
    for op in io_menus.OPERATORS:
        assert getattr(bpy.ops.vart, op).poll() in (True, False)
        assert getattr(bpy.ops.vart, op).get_rna_type().identifier == f"VART_OT_{op}"
    assert hasattr(bpy.types, "VART_FH_urdf")
    assert bpy.types.VART_FH_urdf.bl_import_operator == "vart.import_urdf"
    draw = {f.__name__ for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()}
    assert "draw_import" in draw
    draw = {f.__name__ for f in bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()}
    assert "draw_export" in draw


def test_io_error_for_an_unreadable_file(scene, tmp_path):
    with pytest.raises(IoError, match="cannot read URDF .*nothing.urdf"):
        import_urdf(tmp_path / "nothing.urdf")


def test_import_into_another_scene(scene):
    other = bpy.data.scenes.new("Other")
    obs = import_urdf(ARM6, scene=other)
    assert obs.collection.name in other.collection.children
    assert not any("vart" in ob.keys() for ob in scene.objects)
    assert set(obs.values()) <= set(other.objects)
    assert all(ob.users_collection == (obs.collection,) for ob in obs.values())
    data = read_scene(other.objects)
    assert len(data.joints) == len(obs.robot.joints)
    assert not [ob for ob in bpy.data.objects if ob.users == 0]  # the importers' objects are gone
    assert None not in list(bpy.context.view_layer.objects)  # and the view layer knows it


def test_sidebar_buttons_draw(opkit):
    from vart_addon.io_urdf import menus as io_menus

    class Layout:  # records what draw_sidebar asks for
        def __init__(self):
            self.ops = []

        def column(self, **kw):
            return self

        def row(self, **kw):
            return self

        def operator(self, idname, **kw):
            self.ops.append(idname)
            assert getattr(bpy.ops.vart, idname.split(".")[1]).get_rna_type()

    lay = Layout()
    io_menus.draw_sidebar(lay)
    assert sorted(lay.ops) == sorted(f"vart.{op}" for op in io_menus.OPERATORS)
