"""MJCF export without Blender (issue 20, item 4): a URDF robot posed at a configuration and
written through MjSpec loads in MuJoCo with ``qpos0`` that configuration and every body where
the URDF's forward kinematics puts it, at ``qpos0`` and elsewhere; a mimic's joint equality
holds against MuJoCo's reference pose; mesh files get safe, unique names; a failed write leaves
no XML behind."""
from __future__ import annotations

import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from vart_addon.formats.stl import read_stl  # noqa: E402
from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf.kinematics import link_poses  # noqa: E402
from vart_addon.physics.mjcf_export import KEY, posed_spec, write_mjcf  # noqa: E402
from vart_addon.physics.model import FREE_JOINT, PhysicsError  # noqa: E402
from vart_addon.solver import se3  # noqa: E402

INERTIAL = urdf.Inertial(mass=1.0, origin=urdf.Origin((0.1, 0, 0)),
                         inertia=(1e-2, 0, 0, 1e-2, 0, 1e-2))
CUBE_V = np.array([[x, y, z] for x in (-.05, .05) for y in (-.05, .05) for z in (-.05, .05)])
CUBE_T = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                   [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])


def arm() -> urdf.Robot:
    """A free ``base``; ``shoulder`` (revolute about a tilted axis) to ``upper``; ``slide``
    (prismatic) to ``fore``; ``wrist`` (continuous) to ``hand``, which mimics the shoulder
    (``wrist = -0.5 shoulder + 0.2``)."""
    links = tuple(urdf.Link(n, inertial=INERTIAL) for n in ("base", "upper", "fore", "hand"))
    joints = (
        urdf.Joint("shoulder", "revolute", "base", "upper",
                   origin=urdf.Origin((0.1, 0.2, 0.3), (0.3, -0.2, 0.5)),
                   axis=(0.0, 0.6, 0.8), limit=urdf.Limit(-2.0, 2.0, 50.0, 1.0)),
        urdf.Joint("slide", "prismatic", "upper", "fore", origin=urdf.Origin((0.5, 0, 0)),
                   axis=(1.0, 0.0, 0.0), limit=urdf.Limit(-0.2, 0.4, 80.0, 0.5)),
        urdf.Joint("wrist", "continuous", "fore", "hand",
                   origin=urdf.Origin((0.3, 0, 0), (0, 0.4, 0)), axis=(0.0, 0.0, 1.0),
                   mimic=urdf.Mimic("shoulder", -0.5, 0.2)),
    )
    return urdf.Robot("arm", links, joints)


Q = {"shoulder": 0.7, "slide": 0.15, "wrist": -0.5 * 0.7 + 0.2}
BASE = se3.make_pose(se3.so3_exp(np.array([0.1, 0.2, -0.3])), [0.5, -0.4, 1.2])


def exported(tmp_path, q=Q, meshes=None):
    built = posed_spec(arm(), q, base=BASE, meshes=meshes)
    f = write_mjcf(tmp_path / "arm.xml", built)
    return f, mujoco.MjModel.from_xml_path(f.path)


def qpos_of(m, q, base) -> np.ndarray:
    qpos = m.qpos0.copy()
    for name, v in q.items():
        qpos[m.jnt_qposadr[m.joint(name).id]] = v
    a = m.jnt_qposadr[m.joint(FREE_JOINT).id]
    qpos[a:a + 3], qpos[a + 3:a + 7] = base[:3, 3], se3.rot_to_quat(base[:3, :3])
    return qpos


def equality_residual(m, qpos) -> float:
    """Largest |residual| of MuJoCo's equality rows at ``qpos`` (after mj_forward)."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    rows = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert rows.sum() == m.neq == 1
    return float(np.abs(d.efc_pos[rows]).max())


def assert_fk(m, qpos, q, base):
    """Bodies where the URDF puts the links at ``q``; returns the equality residual."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    for name, T in link_poses(arm(), q, base=base).items():
        b = m.body(name).id
        np.testing.assert_allclose(se3.make_pose(d.xmat[b].reshape(3, 3), d.xpos[b]), T,
                                   atol=1e-9, err_msg=name)
    return equality_residual(m, qpos)


def test_the_file_opens_at_the_configuration_and_moves_as_the_urdf(tmp_path):
    _, m = exported(tmp_path)
    qpos0 = qpos_of(m, Q, BASE)
    np.testing.assert_allclose(m.qpos0, qpos0, atol=1e-12)
    np.testing.assert_allclose(m.key_qpos[m.key(KEY).id], qpos0, atol=1e-12)
    assert m.key_ctrl[m.key(KEY).id].tolist() == pytest.approx([Q["shoulder"], Q["slide"]])
    assert assert_fk(m, m.qpos0, Q, BASE) < 1e-12  # the mimic holds at qpos0
    # elsewhere: the values still mean the URDF's (limits, targets, trajectories alike)
    other = {"shoulder": -0.4, "slide": -0.1, "wrist": -0.5 * -0.4 + 0.2}
    pose = se3.make_pose(se3.rot_z(1.0), [0.0, 0.3, 0.9])
    assert assert_fk(m, qpos_of(m, other, pose), other, pose) < 1e-12
    np.testing.assert_allclose(m.jnt_range[m.joint("shoulder").id], [-2.0, 2.0])
    # a wrist off its mimic is a residual: the equality is the URDF's, not a lock at qpos0
    bad = dict(other, wrist=other["wrist"] + 0.1)
    assert equality_residual(m, qpos_of(m, bad, pose)) == pytest.approx(0.1, abs=1e-12)


def test_meshes_are_files_the_xml_names(tmp_path):
    meshes = {"upper": [(CUBE_V, CUBE_T)], "hand": [(CUBE_V * 2, CUBE_T)]}
    f, m = exported(tmp_path, meshes=meshes)
    assert m.nmesh == 2 and len(f.mesh_files) == 2
    for path in f.mesh_files:
        assert os.path.dirname(path) == str(tmp_path / "arm_meshes")
        assert read_stl(path).shape == (12, 3, 3)
    text = (tmp_path / "arm.xml").read_text()
    assert f.xml_bytes == len(text.encode()) and 'file="upper__0.stl"' in text
    assert "vertex=" not in text


def test_unsafe_mesh_names_become_safe_unique_files(tmp_path):
    robot = arm()
    links = tuple(urdf.Link(n, inertial=INERTIAL) for n in ("base", "up/per", "fore", "Up:per"))
    robot = urdf.Robot("arm", links, (
        urdf.Joint("shoulder", "revolute", "base", "up/per", axis=(0, 0, 1),
                   limit=urdf.Limit(-1, 1, 1, 1)),
        urdf.Joint("slide", "fixed", "up/per", "fore"),
        urdf.Joint("wrist", "fixed", "fore", "Up:per")))
    built = posed_spec(robot, {}, meshes={"up/per": [(CUBE_V, CUBE_T)],
                                          "Up:per": [(CUBE_V, CUBE_T)]})
    f = write_mjcf(tmp_path / "odd.xml", built)
    names = sorted(os.path.basename(p) for p in f.mesh_files)
    assert names == ["Up_per__0_1.stl", "up_per__0.stl"]
    assert mujoco.MjModel.from_xml_path(f.path).nmesh == 2


def test_a_failed_write_leaves_no_xml(tmp_path):
    built = posed_spec(arm(), Q, base=BASE)
    with pytest.raises(OSError, match="cannot write MJCF"):
        write_mjcf(tmp_path / "missing" / "arm.xml", built)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(PhysicsError, match="not finite"):
        posed_spec(arm(), {"shoulder": float("nan")})
