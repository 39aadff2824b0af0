"""MJCF read through MuJoCo itself (formats.mjcf): every body where MuJoCo's own forward
kinematics puts it, at random configurations; equality constraints as closures, couplings
and locks; geoms as visuals where MuJoCo places them; what has no vart equivalent reported;
bad files refused naming the file."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

from repo_paths import REPO
from vart_addon.formats import mjcf as MJ
from vart_addon.solver import se3

mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

DATA = REPO / "tests" / "data" / "mjcf"
FILES = ["mechanisms.xml", "arm.xml"]


def mj_model(name):
    m = mujoco.MjModel.from_xml_path(str(DATA / name))
    return m, mujoco.MjData(m)


def random_qpos(m, rng) -> np.ndarray:
    """Values within each joint's range (+-pi or +-0.3 m if unlimited), any ball rotation, a
    free body anywhere."""
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a, t = int(m.jnt_qposadr[j]), int(m.jnt_type[j])
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            quat = rng.normal(size=4)
            q[a + 3:a + 7] = quat / np.linalg.norm(quat)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            quat = rng.normal(size=4)
            q[a:a + 4] = quat / np.linalg.norm(quat)
        else:
            lo, hi = m.jnt_range[j] if m.jnt_limited[j] else \
                ((-np.pi, np.pi) if t == mujoco.mjtJoint.mjJNT_HINGE else (-0.3, 0.3))
            q[a] = rng.uniform(lo, hi)
    return q


def set_vart(robot, m, qpos) -> None:
    """vart's values for MuJoCo's ``qpos``: tree joints at qpos - qpos0 (a ball at its
    rotation vector), a free body placed at its pose."""
    lk = robot.linkage
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        a, t = int(m.jnt_qposadr[j]), int(m.jnt_type[j])
        if t == mujoco.mjtJoint.mjJNT_FREE:
            body = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(m.jnt_bodyid[j]))
            lk.set_link_pose(body, se3.make_pose(MJ.quat_matrix(qpos[a + 3:a + 7]),
                                                 qpos[a:a + 3]))
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            lk.joints[name].q = se3.so3_log(MJ.quat_matrix(qpos[a:a + 4]))
        else:
            lk.joints[name].q = np.array([qpos[a] - m.qpos0[a]])
    lk.touch_values()


@pytest.mark.parametrize("name", FILES)
def test_every_body_is_where_mujocos_forward_kinematics_puts_it(name):
    robot = MJ.read_mjcf(DATA / name)
    m, d = mj_model(name)
    rng = np.random.default_rng(3)
    for _ in range(5):
        qpos = random_qpos(m, rng)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        set_vart(robot, m, qpos)
        poses = robot.linkage.poses()
        for b in range(1, m.nbody):
            body = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
            T = se3.make_pose(d.xmat[b].reshape(3, 3), d.xpos[b])
            np.testing.assert_allclose(poses[body], T, atol=1e-9, err_msg=body)


def test_joints_limits_units_and_reference_values():
    lk = MJ.read_mjcf(DATA / "mechanisms.xml").linkage
    A, D = lk.joints["A"], lk.joints["D"]
    assert A.jtype.name == "revolute" and A.parent is None and A.child == "crank"
    np.testing.assert_allclose([A.lower[0], A.upper[0]], np.radians([-170, 170]))  # degrees
    assert not np.isfinite(D.upper).any()
    arm = MJ.read_mjcf(DATA / "arm.xml").linkage
    sh = arm.joints["shoulder"]  # radians, ref 0.4: limits relative to the reference
    np.testing.assert_allclose([sh.lower[0], sh.upper[0]], [-1.2 - 0.4, 1.5 - 0.4])
    assert arm.joints["ballj" if "ballj" in arm.joints else "elbow"].jtype.name == "revolute"
    assert lk.joints["ballj"].jtype.name == "spherical"
    assert lk.joints["slide"].jtype.name == "prismatic"
    assert lk.joints["rx"].child == "cart.rx" and lk.joints["slide"].parent == "cart.rx"
    assert lk.links["cart.rx"].mass == 0.0 and lk.links["cart"].mass > 0
    assert lk.joints["A"].is_tree and "free" in lk.links and "free" not in [
        j.child for j in lk.joints.values()]  # a free body hangs from its root joint
    assert arm.joints["base_world"].jtype.name == "fixed"


def test_equalities_become_closures_couplings_and_locks_and_hold_at_the_reference():
    robot = MJ.read_mjcf(DATA / "arm.xml")
    lk = robot.linkage
    glue, pin, h2 = lk.joints["glue"], lk.joints["pin"], lk.joints["h2"]
    assert (glue.jtype.name, glue.parent, glue.child, glue.is_tree) == \
        ("fixed", "tool", "helper", False)
    assert (pin.jtype.name, pin.parent, pin.child, pin.is_tree) == \
        ("spherical", "upper", "helper", False)
    np.testing.assert_allclose(h2.lock_q, [0.05])
    poses = lk.poses()
    for j in (glue, pin):  # MuJoCo's reference configuration satisfies them
        rel = lk.relative_pose(j, poses)
        np.testing.assert_allclose(rel[:3, 3], 0, atol=1e-9, err_msg=j.name)
    np.testing.assert_allclose(lk.relative_pose(glue, poses), np.eye(4), atol=1e-9)
    mech = MJ.read_mjcf(DATA / "mechanisms.xml").linkage
    assert mech.joints["slide"].mimic == ("rx", 0.5, 0.01)
    assert mech.joints["C"].jtype.name == "spherical" and not mech.joints["C"].is_tree
    assert robot.warnings == ["equality 'tq' (tendon) has no vart equivalent; left out",
                              "equality 'off' is inactive at load; left out"]


@pytest.mark.parametrize("name", FILES)
def test_visuals_are_where_mujoco_puts_its_geoms(name):
    robot = MJ.read_mjcf(DATA / name)
    m, d = mj_model(name)
    mujoco.mj_kinematics(m, d)
    poses = robot.linkage.poses()
    by_name = {v.name: (link, v) for link, vs in robot.visuals.items() for v in vs}
    checked = 0
    for g in range(m.ngeom):
        gname = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g)
        key = gname or next((k for k in by_name if k.endswith(f"_geom{g}")), None)
        if key not in by_name:
            continue
        link, v = by_name[key]
        T = poses[link]
        world = v.vertices @ T[:3, :3].T + T[:3, 3]
        if int(m.geom_type[g]) == mujoco.mjtGeom.mjGEOM_MESH:
            i = int(m.geom_dataid[g])
            local = m.mesh_vert[m.mesh_vertadr[i]:m.mesh_vertadr[i] + m.mesh_vertnum[i]]
            expected = local @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
            np.testing.assert_allclose(world, expected, atol=1e-6)
        else:  # symmetric primitives: centred on the geom
            np.testing.assert_allclose(world.mean(axis=0), d.geom_xpos[g], atol=1e-9)
        checked += 1
    assert checked == sum(len(vs) for vs in robot.visuals.values()) >= 5
    if name == "arm.xml":  # the visual-only geoms, not the collision cylinder
        assert robot.visuals["base"][0].rgba == pytest.approx((0.8, 0.1, 0.1, 1.0))
        assert len(robot.visuals["base"]) == 1


@pytest.mark.parametrize("text, message", [
    ("<mujoco><worldbody><body><joint type='nope'/></body></worldbody></mujoco>", "line 1"),
    ("<mujoco><worldbody>", "MuJoCo cannot compile it"),
    ("<html><body/></html>", "MuJoCo cannot compile it"),
])
def test_bad_files_are_refused_naming_the_file(tmp_path, text, message):
    f = tmp_path / "bad.xml"
    f.write_text(text)
    with pytest.raises(MJ.MjcfError, match="bad.xml") as e:
        MJ.read_mjcf(f)
    assert message in str(e.value)
    with pytest.raises(OSError):
        MJ.read_mjcf(tmp_path / "absent.xml")


def test_without_mujoco_the_error_says_how_to_install_it(monkeypatch):
    real = builtins.__import__

    def no_mujoco(name, *a, **kw):
        if name == "mujoco" or name.startswith("mujoco."):
            raise ImportError("No module named 'mujoco'")
        return real(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_mujoco)
    with pytest.raises(MJ.MjcfError, match="pip install mujoco-core"):
        MJ.read_mjcf(DATA / "arm.xml")
