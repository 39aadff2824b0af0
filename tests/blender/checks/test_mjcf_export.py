"""MJCF export (issue 20, item 4) in real bpy: the file MuJoCo loads (``MjModel.from_xml_path``)
puts every body where Blender has its link, at the exported frame and at others (the hexapod of
story 1 over its bake; the four-bar driven by its crank), its closures are equalities that hold
(connect for spherical and revolute closures, weld for fixed ones, checked by MuJoCo's own
constraint residuals ``efc_pos`` after ``mj_forward``), its meshes are the STL files it names,
and the MJCF importer reads it back with the links where they were. Without MuJoCo the operator
says how to install it and writes nothing. Issue 30: the Stewart platform (a floating joint, a
MuJoCo free body, closed by six spherical joints, connects) exports closed at every frame of its
bake, and every example of Add Example exports a model MuJoCo loads."""
from __future__ import annotations

import sys

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

from vart_addon.bridge import SceneBridge  # noqa: E402
from vart_addon.bridge import poses as P  # noqa: E402
from vart_addon.bridge import schema as S  # noqa: E402
from vart_addon.checks.mjcf_export import export_mjcf  # noqa: E402
from vart_addon.examples import EXAMPLES  # noqa: E402
from vart_addon.formats.urdf.from_linkage import urdf_joint_values  # noqa: E402
from vart_addon.physics.mjcf_export import KEY  # noqa: E402
from vart_addon.physics.model import FREE_JOINT, INSTALL  # noqa: E402
from vart_addon.solver import se3  # noqa: E402

TOL = 1e-5  # m and rotation-matrix entries: Blender's matrices are single precision


def link_poses() -> dict:
    """Link name -> its rigid world pose (4x4) in Blender now."""
    return {ob.name: P.rigid_and_scale(P.observe(ob), ob.name)[0]
            for ob in bpy.context.scene.objects if S.is_link(ob)}


def set_configuration(m, d, robot, poses) -> None:
    """MuJoCo's qpos from Blender's link poses: the URDF joint values, the free joints (the
    root's, each floating joint's) at their links' world poses."""
    free = {FREE_JOINT: robot.root_link} if robot.root_link in poses else {}
    for name, v in urdf_joint_values(robot, poses).items():
        if robot.joint_by_name(name).type == "floating":
            free[name] = robot.joint_by_name(name).child
        else:
            d.qpos[m.jnt_qposadr[m.joint(name).id]] = v
    for name, link in free.items():
        a = m.jnt_qposadr[m.joint(name).id]
        T = poses[link]
        d.qpos[a:a + 3] = T[:3, 3]
        d.qpos[a + 3:a + 7] = se3.rot_to_quat(T[:3, :3])


def assert_bodies_at(m, d, poses, what) -> None:
    """Every MuJoCo body of a link is where Blender has the link (``poses``)."""
    checked = 0
    for b in range(1, m.nbody):
        name = m.body(b).name
        if name in poses:
            T = se3.make_pose(d.xmat[b].reshape(3, 3), d.xpos[b])
            np.testing.assert_allclose(T, poses[name], atol=TOL, err_msg=f"{what}: {name}")
            checked += 1
    assert checked == len([n for n in poses if n in {m.body(b).name for b in range(m.nbody)}])
    assert checked >= 3


def equality_residual(m, d) -> float:
    """Largest |residual| of MuJoCo's equality constraint rows (m or rad) after mj_forward."""
    mujoco.mj_forward(m, d)
    rows = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert rows.sum() >= 3 * m.neq  # every equality is active
    return float(np.abs(d.efc_pos[rows]).max())


def test_the_hexapod_opens_in_mujoco_where_blender_has_it(vart_registered, tmp_path):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(20)
    path = tmp_path / "athlete.xml"
    res = export_mjcf(path, scene, virtual_closures=True)
    assert scene.frame_current == 20
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    # qpos0 (and the keyframe) is the exported frame; the servos hold it
    mujoco.mj_kinematics(m, d)
    assert_bodies_at(m, d, link_poses(), "qpos0")
    k = m.key(KEY).id
    np.testing.assert_allclose(m.key_qpos[k], m.qpos0, atol=1e-12)
    for a in range(m.nu):
        j = m.actuator_trnid[a, 0]
        assert m.key_ctrl[k, a] == pytest.approx(m.qpos0[m.jnt_qposadr[j]], abs=1e-12)
    # 36 real joints, a free deck; tilt and the six upright pins (revolutes: 2 connects each)
    assert m.njnt == 37 and m.nu == 36 and m.neq == 14
    assert set(m.eq_type.tolist()) == {int(mujoco.mjtEq.mjEQ_CONNECT)}
    assert equality_residual(m, d) < TOL
    # the body-2 anchors MuJoCo computed at qpos0 are vart's child frames
    for c in res.closures:
        eq = m.eq(c.name if c.kind == "spherical" else c.name + "__a").id
        want = c.T_child_joint[:3, 3] if c.kind == "spherical" else \
            (c.T_child_joint @ [0, 0, 0.05, 1])[:3]
        np.testing.assert_allclose(m.eq_data[eq, 3:6], want, atol=TOL, err_msg=c.name)
    # other frames of the bake: forward kinematics and the pins still hold
    for f in (1, 12, 33, 48):
        scene.frame_set(f)
        poses = link_poses()
        set_configuration(m, d, res.robot, poses)
        mujoco.mj_kinematics(m, d)
        assert_bodies_at(m, d, poses, f"frame {f}")
        assert equality_residual(m, d) < TOL
    # the meshes are the STL files the XML names, beside it
    assert len(res.file.mesh_files) == 38 and m.nmesh == 38
    folder = tmp_path / "athlete_meshes"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{m.mesh(i).name}.stl" for i in range(m.nmesh))
    assert 'meshdir="athlete_meshes"' in path.read_text()


def test_a_four_bar_closes_in_mujoco_and_moves_as_in_vart(op_fourbar, tmp_path):
    scene = bpy.context.scene
    path = tmp_path / "fourbar.xml"
    assert bpy.ops.vart.export_mjcf(filepath=str(path)) == {'FINISHED'}
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    assert m.neq == 2 and m.nu == 3  # C: two connects on its axis; A, B, D driven
    assert equality_residual(m, d) < TOL
    robot = export_mjcf(tmp_path / "again.xml", scene).robot
    for crank in (0.0, 15.0, -25.0, 40.0):
        scene.vart.active_joint = "A"
        assert bpy.ops.vart.operate_joint(value=(crank, 0, 0, 0, 0, 0)) == {'FINISHED'}
        poses = link_poses()
        set_configuration(m, d, robot, poses)
        mujoco.mj_kinematics(m, d)
        assert_bodies_at(m, d, poses, f"crank {crank}")
        assert equality_residual(m, d) < TOL  # the loop MuJoCo holds is vart's
    # a broken loop is seen: the crank turned alone opens the connects
    d.qpos[m.jnt_qposadr[m.joint("A").id]] += 0.1
    assert equality_residual(m, d) > 1e-2


def test_a_fixed_closure_is_a_weld_that_holds(op_fourbar, tmp_path):
    scene = bpy.context.scene
    scene.vart.active_joint = "C"
    assert bpy.ops.vart.change_joint_type(joint_type="fixed") == {'FINISHED'}
    path = tmp_path / "welded.xml"
    res = export_mjcf(path, scene)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    assert m.eq_type.tolist() == [int(mujoco.mjtEq.mjEQ_WELD)]
    assert 'relpose="' in path.read_text()  # the relative pose is written, not recomputed
    mujoco.mj_kinematics(m, d)
    assert_bodies_at(m, d, link_poses(), "qpos0")
    assert equality_residual(m, d) < TOL  # position and orientation rows
    (c,) = res.closures
    assert c.kind == "fixed" and c.parent == "coupler" and c.child == "rocker"
    # the weld's rows see a turn of the rocker's own joint
    d.qpos[m.jnt_qposadr[m.joint("D").id]] += 0.05
    assert equality_residual(m, d) > 1e-3


def test_the_exported_file_imports_back_with_the_same_link_poses(vart_registered, tmp_path):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(30)
    before = link_poses()
    path = tmp_path / "athlete.xml"
    assert bpy.ops.vart.export_mjcf(filepath=str(path)) == {'FINISHED'}
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob)
    SceneBridge(scene).sync()
    assert bpy.ops.vart.import_mjcf(filepath=str(path)) == {'FINISHED'}
    after = link_poses()
    real = {n for n in before if n in after}
    assert len(real) == len(before) == 38  # story 1 has no virtual links
    for n in real:
        np.testing.assert_allclose(after[n], before[n], atol=TOL, err_msg=n)


def test_without_mujoco_the_operator_says_how_to_install_it(vart_registered, tmp_path,
                                                              monkeypatch):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    monkeypatch.setitem(sys.modules, "mujoco", None)  # import mujoco now raises ImportError
    path = tmp_path / "athlete.xml"
    with pytest.raises(RuntimeError, match="pip install mujoco-core"):
        bpy.ops.vart.export_mjcf(filepath=str(path))
    assert list(tmp_path.iterdir()) == []
    assert "mujoco-core" in INSTALL


def test_the_export_menu_offers_it(vart_registered):
    from vart_addon.io_urdf.menus import OPERATORS
    assert "export_mjcf" in OPERATORS and hasattr(bpy.ops.vart, "export_mjcf")
    assert bpy.ops.vart.export_mjcf.poll() is False  # no links in an empty scene


def test_the_stewart_platform_exports_closed_at_every_frame(vart_registered, tmp_path):
    """Exported at frame 49 (mid-motion: the platform up and tilted), the platform's free
    joint and the six connects put every body where Blender has it and hold, at that frame
    and at every other frame of the bake."""
    assert bpy.ops.vart.add_example(example="stewart") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(49)
    path = tmp_path / "stewart.xml"
    res = export_mjcf(path, scene)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    assert m.neq == 6 and set(m.eq_type.tolist()) == {int(mujoco.mjtEq.mjEQ_CONNECT)}
    assert m.joint("platform_float").type == mujoco.mjtJoint.mjJNT_FREE
    mujoco.mj_kinematics(m, d)
    assert_bodies_at(m, d, link_poses(), "qpos0")
    assert equality_residual(m, d) < TOL
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        poses = link_poses()
        set_configuration(m, d, res.robot, poses)
        mujoco.mj_kinematics(m, d)
        assert_bodies_at(m, d, poses, f"frame {f}")
        assert equality_residual(m, d) < TOL, f


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_every_example_exports_a_model_mujoco_loads(vart_registered, tmp_path, key):
    """Each example as Add Example builds it (with its virtual closures) at its first frame:
    the replay's model, written and loaded back, its loops closed there."""
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    path = tmp_path / f"{key}.xml"
    res = export_mjcf(path, bpy.context.scene, virtual_closures=True)
    m = mujoco.MjModel.from_xml_path(str(path))
    assert m.nu == len(res.robot.joints) - sum(
        j.type in ("fixed", "floating", "planar") or j.mimic is not None
        for j in res.robot.joints)
    if m.neq:
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        rows = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        assert np.abs(d.efc_pos[rows]).max() < TOL
