"""Import MuJoCo MJCF (issue 17): through the operator, links where MuJoCo puts the bodies,
geoms as meshes where MuJoCo puts them, closures that hold when the mechanism moves, what is
left out reported; a bad file is an error report with nothing added."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from repo_paths import REPO
from vart_addon.bridge import SceneBridge, read_scene
from vart_addon.bridge import schema as S
from vart_addon.solver import Settings, se3

mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

DATA = REPO / "tests" / "data" / "mjcf"


def rigid(ob) -> np.ndarray:
    M = np.array(ob.matrix_world)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def test_an_mjcf_robot_imports_where_mujoco_puts_it_and_its_loop_holds(vart_registered,
                                                                         capsys):
    assert bpy.ops.vart.import_mjcf(filepath=str(DATA / "mechanisms.xml")) == {'FINISHED'}
    out = capsys.readouterr()
    assert "imported 'mechanisms': 7 links, 6 joints (1 warning)" in out.out + out.err
    obs = {ob.name: ob for ob in bpy.context.scene.objects if S.is_link(ob)}
    m = mujoco.MjModel.from_xml_path(str(DATA / "mechanisms.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        T = se3.make_pose(d.xmat[b].reshape(3, 3), d.xpos[b])
        np.testing.assert_allclose(rigid(obs[name]), T, atol=1e-6, err_msg=name)
    # geoms: the coupler's capsule is centred where MuJoCo puts it
    g = 2  # geoms in file order: the floor, the crank, the coupler
    cap = next(c for c in obs["coupler"].children if c.type == 'MESH')
    centre = np.mean([np.array(cap.matrix_world @ v.co) for v in cap.data.vertices], axis=0)
    np.testing.assert_allclose(centre, d.geom_xpos[g], atol=1e-5)
    assert tuple(cap.color) == pytest.approx(tuple(m.geom_rgba[g]))
    data = read_scene(obs.values())
    assert data.joints["C"].tree is False and data.joints["slide"].mimic.leader == "rx"
    # drive the crank: the connect closure keeps coupler and rocker together
    bpy.context.scene.vart.active_joint = "A"
    assert bpy.ops.vart.operate_joint(value=(20.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    bridge = SceneBridge(bpy.context.scene, Settings(tol=1e-10))
    bridge.sync()
    lk = bridge.linkage
    rel = lk.relative_pose(lk.joints["C"], lk.poses())
    assert np.abs(rel[:3, 3]).max() < 1e-6
    assert abs(lk.joints["A"].q[0] - np.radians(20)) < 1e-6


def test_a_bad_file_is_reported_and_nothing_is_added(vart_registered, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><joint type='nope'/></body></worldbody></mujoco>")
    before = set(bpy.data.objects.keys())
    with pytest.raises(RuntimeError, match="bad.xml: MuJoCo cannot compile it"):
        bpy.ops.vart.import_mjcf(filepath=str(bad))
    assert set(bpy.data.objects.keys()) == before
