"""URDF export from real Blender: the real robot only, meshes as STL in the link frame next to
the file, paths relative, colours, what the imported URDF held carried over, warnings for what
URDF cannot say; and round trips (import -> export -> read / import again) that keep the
kinematics: link poses equal for random configurations."""
from __future__ import annotations

import os

import bpy
import numpy as np
import pytest

from repo_paths import DATA
from urdf_random import random_q  # tests/helpers
from urdf_scene import rigid, set_configuration  # tests/helpers
from vart_addon.bridge import SceneBridge, edits, read_scene
from vart_addon.bridge import schema as S
from vart_addon.formats import stl
from vart_addon.formats.urdf import files as urdf
from vart_addon.io_urdf import IoError
from vart_addon.io_urdf.exporter import export_urdf
from vart_addon.io_urdf.importer import import_urdf
from vart_addon.solver import se3

ARM6 = DATA / "arm6" / "arm6.urdf"
ROVER = DATA / "rover" / "rover_description" / "urdf" / "rover.urdf"
GANTRY = DATA / "gantry.urdf"


def same_kinematics(r1, r2, rng, n=5):
    """Every link of r1 is posed the same in r2 for random configurations (1e-9)."""
    for _ in range(n):
        q = random_q(r1, rng)
        p1, p2 = urdf.link_poses(r1, q), urdf.link_poses(r2, q)
        for link in p1:
            np.testing.assert_allclose(p2[link], p1[link], atol=1e-9, err_msg=link)


# ---- round trips ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [ARM6, ROVER, GANTRY], ids=lambda p: p.stem)
def test_export_keeps_the_kinematics(scene, tmp_path, path):
    obs = import_urdf(path)
    rng = np.random.default_rng(2)
    set_configuration(scene, obs, random_q(obs.robot, rng))  # not exported at q = 0
    res = export_urdf(tmp_path / "out.urdf", keep_meshes=False)
    r2 = urdf.read_urdf(res.path)
    assert r2 == res.robot and r2.name == obs.robot.name
    assert {l.name for l in r2.links} == {l.name for l in obs.robot.links}
    # a revolute without <limit> is unbounded in vart: it comes back as continuous
    unbounded = {j.name: "continuous" for j in obs.robot.joints
                 if j.type == "revolute" and j.limit is None}
    assert {j.name: j.type for j in r2.joints} == {
        **{j.name: j.type for j in obs.robot.joints}, **unbounded}
    assert {j.name: j.mimic for j in r2.joints} == {j.name: j.mimic for j in obs.robot.joints}
    for j in obs.robot.joints:
        lim = r2.joint_by_name(j.name).limit
        if j.type in ("revolute", "prismatic") and j.limit is not None:
            assert (lim.lower, lim.upper, lim.effort, lim.velocity) == pytest.approx(
                (j.limit.lower, j.limit.upper, j.limit.effort, j.limit.velocity), abs=1e-12)
    same_kinematics(obs.robot, r2, rng)
    # importing the export gives the same link poses as the original URDF says
    bpy.ops.wm.read_factory_settings(use_empty=True)
    again = import_urdf(res.path)
    assert again.missing == [] and again.warnings == []
    for _ in range(3):
        q = random_q(obs.robot, rng)
        set_configuration(bpy.context.scene, again, q)
        want = urdf.link_poses(obs.robot, q)
        for link, ob in again.items():
            np.testing.assert_allclose(rigid(ob), want[link], atol=1e-5, err_msg=link)


def test_meshes_are_stl_in_the_link_frame_next_to_the_urdf(scene, tmp_path):
    obs = import_urdf(ARM6)
    res = export_urdf(tmp_path / "arm.urdf", keep_meshes=False)
    folder = tmp_path / "meshes"
    assert sorted(os.listdir(tmp_path)) == ["arm.urdf", "meshes"]
    assert sorted(res.meshes) == sorted(str(p) for p in folder.iterdir())
    assert len(res.meshes) == sum(len(l.visuals) for l in obs.robot.links)
    by_name = {}
    for link in res.robot.links:
        for v in link.visuals:
            assert v.origin.is_identity and v.geometry.filename.startswith("meshes/")
            assert not os.path.isabs(v.geometry.filename)
            by_name[v.name] = (link.name, tmp_path / v.geometry.filename, v)
            head = (tmp_path / v.geometry.filename).read_bytes()[:5]
            assert head != b"solid"  # binary by default

    def same_set(a, b):
        a = np.unique(np.round(a.reshape(-1, 3), 5), axis=0)
        b = np.unique(np.round(b.reshape(-1, 3), 5), axis=0)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=2e-5)

    meshes = DATA / "arm6" / "meshes"
    finger = stl.read_stl(meshes / "finger.stl").reshape(-1, 3)
    same_set(stl.read_stl(by_name["right_finger_visual"][1]), finger * [1, -1, 1])
    same_set(stl.read_stl(by_name["left_finger_visual"][1]), finger)
    obj = np.array([[float(x) for x in line.split()[1:]] for line in
                    (meshes / "upper_arm.obj").read_text().splitlines() if line.startswith("v ")])
    R = urdf.rpy_to_matrix((0.1, 0, 0))
    got = stl.read_stl(by_name["upper_arm_body"][1]).reshape(-1, 3)
    same_set(got, obj @ R.T)
    # primitives: the box of forearm_plate, in the link frame
    plate = stl.read_stl(by_name["forearm_plate"][1]).reshape(-1, 3)
    T = urdf.Origin((0.12, 0, 0.035), (0, 0, 0.2)).matrix()
    local = (np.linalg.inv(T) @ np.c_[plate, np.ones(len(plate))].T).T[:, :3]
    np.testing.assert_allclose(np.abs(local).max(axis=0), [0.05, 0.02, 0.005], atol=1e-6)
    # colours: those of the URDF (float32 in Blender, written to 6 decimals)
    orig = {v.name: v for l in obs.robot.links for v in l.visuals if v.name}
    for name in ("base_ring", "elbow_cap", "forearm_plate"):
        assert by_name[name][2].rgba == pytest.approx(orig[name].rgba, abs=1e-6)
        assert by_name[name][2].material_name == orig[name].material_name
    assert by_name["upper_arm_body"][2].rgba == pytest.approx((0.9, 0.9, 0.95, 1.0), abs=1e-6)
    wrist3 = next(v for l in res.robot.links if l.name == "wrist_3_link" for v in l.visuals)
    assert wrist3.rgba == pytest.approx((0.2, 0.9, 0.3, 0.5), abs=1e-6)


def test_what_the_imported_urdf_held_is_carried_over(scene, tmp_path):
    obs = import_urdf(ARM6)
    res = export_urdf(tmp_path / "arm.urdf", name="renamed")
    r1, r2 = obs.robot, urdf.read_urdf(tmp_path / "arm.urdf")
    assert r2.name == "renamed"
    assert r2.link_by_name("base_link").collisions == r1.link_by_name("base_link").collisions
    for link in r1.links:
        if link.inertial is not None:
            i1, i2 = link.inertial, r2.link_by_name(link.name).inertial
            assert i2.mass == i1.mass and i2.inertia == i1.inertia
            assert i2.origin.xyz == pytest.approx(i1.origin.xyz, abs=1e-15)
            assert i2.origin.rpy == i1.origin.rpy
    assert r2.joint_by_name("shoulder_pan").dynamics == r1.joint_by_name("shoulder_pan").dynamics
    assert {m.name for m in r2.materials} == {"blue", "grey"}
    assert res.warnings == []


def test_collision_meshes_of_the_original_are_kept_in_the_package(scene, tmp_path):
    """Issue 32.5: the original's mesh collisions, package:// ones too, are copied into the
    export's meshes/ (one copy per file) and named relative to it; one not found is left out
    with a warning."""
    src = tmp_path / "src" / "p"
    (src / "meshes").mkdir(parents=True)
    (src / "package.xml").write_text("<package><name>p</name></package>")
    (src / "meshes" / "c.stl").write_bytes((DATA / "arm6" / "meshes" / "finger.stl").read_bytes())
    (src / "r.urdf").write_text(
        '<robot name="r"><link name="a"><visual><geometry><box size="1 1 1"/></geometry></visual>'
        '<collision><geometry><mesh filename="meshes/c.stl"/></geometry></collision>'
        '<collision><geometry><mesh filename="package://p/meshes/c.stl"/></geometry></collision>'
        '<collision><geometry><mesh filename="meshes/gone.stl"/></geometry></collision>'
        '</link></robot>')
    import_urdf(src / "r.urdf", use_env=False)
    (tmp_path / "out" / "deep").mkdir(parents=True)
    res = export_urdf(tmp_path / "out" / "deep" / "r.urdf")
    cols = res.robot.link_by_name("a").collisions
    assert [c.geometry.filename for c in cols] == ["meshes/c.stl", "meshes/c.stl"]
    assert str(tmp_path / "out" / "deep" / "meshes" / "c.stl") in res.meshes  # and a's box
    assert len(res.meshes) == 2
    assert (tmp_path / "out" / "deep" / "meshes" / "c.stl").read_bytes() == \
        (src / "meshes" / "c.stl").read_bytes()
    assert any("1 collision mesh(es) of the original URDF not found or not kept, left out: "
               "meshes/gone.stl" in w for w in res.warnings)


# ---- what is left out -------------------------------------------------------------------------
def test_virtual_parts_are_left_out_and_unsupported_types_warned(scene, tmp_path):
    obs = import_urdf(ARM6, fixed_base=True)
    probe = edits.add_virtual_link("Probe", se3.make_pose(np.eye(3), [0.5, 0, 0.5]),
                                   scene.collection)
    cube = bpy.data.objects.new("Extra", bpy.data.meshes.new("Extra"))
    scene.collection.objects.link(cube)
    edits.make_link(cube)

    def mutate(lk):
        lk.add_joint("look", "spherical", "tool0", "Probe", world_frame=lk.pose("Probe"),
                     virtual=True)
        lk.add_joint("ball", "spherical", "tool0", "Extra", world_frame=lk.pose("tool0"))
    edits.edit(mutate, scene)
    assert read_scene(scene.objects).joints["look"].virtual
    res = export_urdf(tmp_path / "arm.urdf")
    text = (tmp_path / "arm.urdf").read_text()
    for virtual in ("Probe", "look", obs.base_joint):
        assert f'"{virtual}"' not in text
    assert "joint 'ball' left out: URDF has no spherical joint" in res.warnings
    assert "link 'Extra' is not connected to 'base_link' by real joints: hung from it by " \
        "floating joint 'Extra_floating' at its current pose" in res.warnings
    assert len(res.warnings) == 2 and res.robot.root_link == "base_link"
    assert probe.name not in {l.name for l in res.robot.links}


def test_placeholders_of_missing_meshes_are_left_out_with_a_warning(scene, tmp_path):
    import_urdf(ROVER)
    res = export_urdf(tmp_path / "rover.urdf", keep_meshes=False)
    assert sum("stands in for mesh" in w for w in res.warnings) == 3
    cam = res.robot.link_by_name("camera_link")
    assert [v.name for v in cam.visuals] == ["camera_body"]
    chassis = next(v for v in res.robot.link_by_name("base_link").visuals if v.name == "chassis")
    tri = stl.read_stl(tmp_path / chassis.geometry.filename)
    assert np.ptp(tri.reshape(-1, 3), axis=0) == pytest.approx([0.6, 0.4, 0.18], abs=1e-5)


# ---- robots built in Blender ------------------------------------------------------------------
def _cube(name, scale, T):
    mesh = bpy.data.meshes.new(name)
    v = [(x, y, z) for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)]
    mesh.from_pydata(v, [], [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6),
                             (0, 2, 6, 4), (1, 5, 7, 3)])
    ob = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(ob)
    M = np.array(T, float)
    M[:3, :3] = M[:3, :3] * scale
    from mathutils import Matrix
    ob.matrix_world = Matrix(M.tolist())
    bpy.context.view_layer.update()
    return ob


def test_a_robot_built_from_blender_meshes(scene, tmp_path):
    T_a = se3.make_pose(se3.so3_exp(np.array([0.0, 0.0, 0.4])), [1, 2, 0.5])
    T_b = se3.make_pose(se3.so3_exp(np.array([0.3, 0.0, 0.0])), [2, 2.5, 0.5])
    a, b = _cube("Arm A", (2.0, 0.5, 0.5), T_a), _cube("Arm/B", (1.0, 1.0, 0.2), T_b)
    mat = bpy.data.materials.new("paint")
    mat.diffuse_color = (0.2, 0.4, 0.6, 1.0)
    b.data.materials.append(mat)
    a.color = (1.0, 0.0, 0.0, 1.0)
    for ob in (a, b):
        edits.make_link(ob)
    pivot = se3.make_pose(np.eye(3), [1.8, 2.2, 0.5])
    edits.edit(lambda lk: (lk.add_joint("hinge", "revolute", "Arm A", "Arm/B", world_frame=pivot,
                                        lower=[-1.0], upper=[1.5]),
                           lk.add_joint("base", "fixed", None, "Arm A", world_frame=T_a)), scene)
    res = export_urdf(tmp_path / "built.urdf", binary=False)
    r = res.robot
    # the hinge axis misses the origin of Arm/B: a helper link carries the joint
    assert r.root_link == "world"
    assert {l.name for l in r.links} == {"world", "Arm A", "Arm/B", "Arm/B_axis"}
    assert any("written to helper link 'Arm/B_axis'" in w for w in res.warnings)
    files = {v.name: tmp_path / v.geometry.filename for l in r.links for v in l.visuals}
    assert files["Arm/B"].name == "Arm_B.stl" and files["Arm/B"].read_bytes().startswith(b"solid")
    tri = stl.read_stl(files["Arm A"]).reshape(-1, 3)  # the object's scale is in the mesh
    np.testing.assert_allclose(tri.min(axis=0), [-1, -0.25, -0.25], atol=1e-6)
    np.testing.assert_allclose(tri.max(axis=0), [1, 0.25, 0.25], atol=1e-6)
    vis = {v.name: v for l in r.links for v in l.visuals}
    assert vis["Arm/B"].material_name == "paint" and vis["Arm/B"].rgba == pytest.approx((0.2, 0.4, 0.6, 1.0))
    assert vis["Arm A"].rgba == (1.0, 0.0, 0.0, 1.0) and vis["Arm A"].material_name == "Arm A_color"
    hinge = r.joint_by_name("hinge")
    assert hinge.type == "revolute" and (hinge.limit.lower, hinge.limit.upper) == (-1.0, 1.5)
    # the file poses the links where the scene has them
    bridge = SceneBridge(scene)
    bridge.sync()
    poses = urdf.link_poses(r, {"hinge": 0.0})
    for n in ("Arm A", "Arm/B"):
        np.testing.assert_allclose(poses[n], bridge.linkage.pose(n), atol=1e-9)


# ---- choices and failures ---------------------------------------------------------------------
def test_selected_robots_only(scene, tmp_path):
    import_urdf(ARM6)
    import_urdf(ROVER)
    res = export_urdf(tmp_path / "all.urdf")
    assert any("is not connected to" in w for w in res.warnings)
    res = export_urdf(tmp_path / "arm.urdf", links={"wrist_2_link"})
    assert {l.name for l in res.robot.links} == {l.name for l in urdf.read_urdf(ARM6).links}
    assert res.warnings == [] and not any("floating" == j.type for j in res.robot.joints)
    with pytest.raises(IoError, match="no real links among the selected robots"):
        export_urdf(tmp_path / "none.urdf", links={"nothing"})


def test_the_operator(opkit, tmp_path, capsys):
    assert bpy.ops.vart.import_urdf(filepath=str(ROVER)) == {'FINISHED'}
    path = tmp_path / "rover_out.urdf"
    assert bpy.ops.vart.export_urdf(filepath=str(path), binary_stl=False,
                                    robot_name="my_rover") == {'FINISHED'}
    r = urdf.read_urdf(path)
    assert r.name == "my_rover"
    mesh = tmp_path / r.link_by_name("mast").visuals[0].geometry.filename
    assert mesh.read_bytes().startswith(b"solid")
    out = capsys.readouterr()
    assert "exported 'my_rover'" in out.out + out.err and "3 warnings" in out.out + out.err
    opkit.select(bpy.data.objects["mast_visual"])  # a visual: its link's robot
    path2 = tmp_path / "sel.urdf"
    assert bpy.ops.vart.export_urdf(filepath=str(path2), selected_only=True) == {'FINISHED'}
    opkit.select()
    with pytest.raises(RuntimeError, match="no link is selected"):
        bpy.ops.vart.export_urdf(filepath=str(tmp_path / "x.urdf"), selected_only=True)
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(RuntimeError, match="Error: .*cannot write"):
        bpy.ops.vart.export_urdf(filepath=str(blocker / "x.urdf"))


def test_failures(scene, tmp_path):
    with pytest.raises(IoError, match="nothing to export: the scene has no real links"):
        export_urdf(tmp_path / "empty.urdf")
    import_urdf(GANTRY)
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(IoError, match="cannot write"):
        export_urdf(blocker / "g.urdf")
    # a corrupt scene is refused with the bridge's message
    bpy.data.objects["drone"]["vart"]["joints"]["fly"]["q"] = [0.0]
    with pytest.raises(IoError, match=r"cannot export the scene: object 'drone'.*\"q\"\]"):
        export_urdf(tmp_path / "g.urdf")
    assert not (tmp_path / "g.urdf").exists()
    assert S.KEY in bpy.data.objects["drone"].keys()


def test_unchanged_imported_meshes_name_their_files_and_edited_ones_are_written(scene,
                                                                               tmp_path):
    """Keep Original Meshes (the default): a visual imported from a mesh file and unchanged
    keeps that file, copied into the export's meshes/ (its origin and scale as they were);
    no STL of the object is written for it. Edited geometry (a vertex moved, the object
    moved, a modifier) is written as an STL of what it shows."""
    obs = import_urdf(ROVER)
    r1 = obs.robot
    res = export_urdf(tmp_path / "out" / "rover.urdf")
    r2 = urdf.read_urdf(tmp_path / "out" / "rover.urdf")
    files1 = {v.name: v for link in r1.links for v in link.visuals
              if isinstance(v.geometry, urdf.Mesh)}
    files2 = {v.name: v for link in r2.links for v in link.visuals}
    chassis = files1["chassis"].geometry.filename
    assert files2["chassis"].geometry.filename == \
        "meshes/" + os.path.basename(chassis.split("://")[-1])  # the source file, copied
    assert files2["chassis"].geometry.scale == files1["chassis"].geometry.scale
    assert files2["chassis"].origin == files1["chassis"].origin
    assert str(tmp_path / "out" / files2["chassis"].geometry.filename) in res.meshes
    # the re-exported robot, imported again from its own folder alone, shows every mesh
    scene2 = bpy.data.scenes.new("again")
    again = import_urdf(tmp_path / "out" / "rover.urdf", scene=scene2, use_env=False)
    assert not again.missing or set(again.missing) == set(obs.missing)
    # edit the chassis: one vertex moved -> an STL of the edited geometry is written
    chassis = next(ob for ob in bpy.context.scene.objects if ob.name == "chassis")
    chassis.data = chassis.data.copy()
    chassis.data.vertices[0].co.z += 0.01
    res = export_urdf(tmp_path / "edited" / "rover.urdf")
    r3 = urdf.read_urdf(tmp_path / "edited" / "rover.urdf")
    v3 = next(v for link in r3.links for v in link.visuals if v.name == "chassis")
    assert v3.geometry.filename == "meshes/base_link__chassis.stl" and v3.origin.is_identity
    assert str(tmp_path / "edited" / v3.geometry.filename) in res.meshes
    # moving the object relative to its link, or adding a modifier, counts as an edit too
    for edit in ("move", "modifier"):
        obs2 = import_urdf(ROVER, scene=bpy.data.scenes.new(edit))
        ob = next(o for vs in obs2.visuals.values() for o in vs if o.name.startswith("chassis"))
        if edit == "move":
            ob.location.x += 0.05
        else:
            ob.modifiers.new("bevel", 'BEVEL')
        from vart_addon.io_urdf.visuals import SOURCE_MESH_KEY, fingerprint
        assert fingerprint(ob) != ob[SOURCE_MESH_KEY]["fingerprint"]
