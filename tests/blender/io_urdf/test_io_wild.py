"""Issue 32.1-2 in Blender: hostile and bent robot files through the import operators. An MJCF
joint whose range excludes qpos0 imports clamped (each Empty where MuJoCo puts its body at
that configuration); an MJCF naming a file outside its folder, or with an absurd mesh scale,
is an error report naming the element, with nothing added; the URDF cases Pinocchio loads
import with their warnings."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from vart_addon.bridge import schema as S
from vart_addon.solver import se3

mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

CLAMPED = ('<mujoco><worldbody><body name="upper" pos="0 0 1"><joint name="shoulder" '
           'axis="0 1 0" range="20 60"/><geom type="box" size="0.1 0.1 0.1"/>'
           '<body name="lower" pos="0.5 0 0"><joint name="wrist" axis="0 0 1" range="-90 -30"/>'
           '<geom type="box" size="0.1 0.1 0.1"/></body></body></worldbody></mujoco>')


def rigid(ob) -> np.ndarray:
    M = np.array(ob.matrix_world)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def report(capsys) -> str:
    out = capsys.readouterr()
    return out.out + out.err


def test_an_mjcf_range_excluding_qpos0_imports_clamped(vart_registered, tmp_path, capsys):
    path = tmp_path / "clamped.xml"
    path.write_text(CLAMPED)
    assert bpy.ops.vart.import_mjcf(filepath=str(path)) == {'FINISHED'}
    text = report(capsys)
    assert "(2 warnings)" in text and "excludes qpos0" in text
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:] = [math.radians(20), math.radians(-30)]
    mujoco.mj_kinematics(m, d)
    obs = {ob.name: ob for ob in bpy.context.scene.objects if S.is_link(ob)}
    for b in ("upper", "lower"):
        i = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b)
        np.testing.assert_allclose(rigid(obs[b]), se3.make_pose(d.xmat[i].reshape(3, 3),
                                                                d.xpos[i]), atol=1e-6)


@pytest.mark.parametrize("text, message", [
    ('<mujoco><include file="../elsewhere.xml"/></mujoco>',
     "<include> file: '../elsewhere.xml' refused: the path leaves the model's folder"),
    ('<mujoco><asset><mesh name="m" file="/etc/hostname.stl"/></asset><worldbody><body>'
     '<geom type="mesh" mesh="m"/></body></worldbody></mujoco>',
     "<mesh name='m'> file: '/etc/hostname.stl' refused"),
    ('<mujoco><asset><mesh name="m" file="m.stl" scale="1e300 1 1"/></asset><worldbody><body>'
     '<geom type="mesh" mesh="m"/></body></worldbody></mujoco>',
     "<mesh name='m'> scale 1e+300 1 1 refused"),
])
def test_a_refused_mjcf_adds_nothing(vart_registered, tmp_path, capsys, text, message):
    folder = tmp_path / "robot"
    folder.mkdir()
    (tmp_path / "elsewhere.xml").write_text(
        '<mujoco><worldbody><body name="stolen"><geom size="0.1"/></body></worldbody></mujoco>')
    path = folder / "bad.xml"
    path.write_text(text)
    before = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes))
    with pytest.raises(RuntimeError, match="bad.xml: "):
        bpy.ops.vart.import_mjcf(filepath=str(path))
    assert message in report(capsys)
    assert (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes)) == before


def test_urdf_files_pinocchio_loads_import_with_their_warnings(vart_registered, tmp_path,
                                                               capsys):
    """Issue 32.2: a swapped <limit>, a <plane> visual, a four-number mesh scale and an XML
    declaration after blank lines, in one file: it imports, the report says what was bent."""
    path = tmp_path / "bent.urdf"
    path.write_text(
        '\n\n<?xml version="1.0"?>\n<robot name="bent"><link name="a"/><link name="b">'
        '<visual><geometry><plane normal="0 0 1"/></geometry></visual>'
        '<visual><geometry><mesh filename="m.stl" scale="1 1 1 1"/></geometry></visual>'
        '<visual name="kept"><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        '<axis xyz="0 0 1"/><limit lower="1" upper="-1" effort="1" velocity="1"/></joint>'
        '</robot>')
    assert bpy.ops.vart.import_urdf(filepath=str(path), place_on_ground='OFF') == {'FINISHED'}
    text = report(capsys)
    assert "(3 warnings)" in text
    for said in ("<limit> lower 1 > upper -1: read as [-1, 1]", "<plane> is not URDF geometry",
                 "<mesh> scale has 4 values, not 3: skipped"):
        assert said in text, text
    b = bpy.context.scene.objects["b"]
    assert [c.name for c in b.children] == ["kept"]
    assert tuple(b["vart"]["joints"]["j"]["lower"]) == (-1.0,)
