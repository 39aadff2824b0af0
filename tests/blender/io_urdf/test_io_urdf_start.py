"""Import URDF's start configuration (issue 17): Panda, whose zero lies outside a joint's
limits, imports from the UI; the middle of the limits and a pose file are choices too."""
from __future__ import annotations

import sysconfig
from pathlib import Path

import bpy
import pytest

from vart_addon.bridge import read_scene
from vart_addon.bridge import schema as S

PANDA = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / \
    "example-robot-data" / "robots" / "panda_description" / "urdf" / "panda.urdf"
needs_panda = pytest.mark.skipif(not PANDA.is_file(), reason="example-robot-data not installed")


def joint_q(name: str) -> float:
    data = read_scene(ob for ob in bpy.context.scene.objects if S.is_link(ob))
    return data.joints[name].q[0]


@needs_panda
def test_panda_imports_from_the_ui_at_zero_clamped_into_its_limits(vart_registered):
    assert bpy.ops.vart.import_urdf(filepath=str(PANDA)) == {'FINISHED'}
    assert joint_q("panda_joint4") == pytest.approx(-0.0698)  # its upper limit: 0 is outside
    assert joint_q("panda_joint1") == 0.0


@needs_panda
def test_the_middle_of_the_limits(vart_registered):
    assert bpy.ops.vart.import_urdf(filepath=str(PANDA), start='MIDDLE') == {'FINISHED'}
    assert joint_q("panda_joint4") == pytest.approx(0.5 * (-3.0718 - 0.0698))
    assert joint_q("panda_joint2") == pytest.approx(0.0)  # limits symmetric about 0


@needs_panda
def test_a_pose_file_gives_the_start_and_says_what_it_passed_over(vart_registered, tmp_path):
    from vart_addon.io_urdf.importer import import_urdf
    pose = tmp_path / "ready.csv"
    pose.write_text("time_s,panda_joint2 [rad],panda_joint4 [rad],ghost [rad]\n"
                    "0,-0.785,-2.356,1\n1,0,-1,0\n")
    obs = import_urdf(PANDA, context=bpy.context, start_file=pose)
    assert joint_q("panda_joint2") == pytest.approx(-0.785)
    assert joint_q("panda_joint4") == pytest.approx(-2.356)
    assert joint_q("panda_joint1") == 0.0  # not in the file: zero, as "zero" says
    assert any("has 2 samples; the first is used" in w for w in obs.warnings)
    assert any("passed over: ghost" in w for w in obs.warnings)


@needs_panda
def test_a_bad_pose_file_is_refused_with_the_scene_unchanged(vart_registered, tmp_path):
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="choose the pose file"):
        bpy.ops.vart.import_urdf(filepath=str(PANDA), start='FILE')
    pose = tmp_path / "far.csv"
    pose.write_text("time_s,panda_joint4 [rad]\n0,0.5\n")  # outside [-3.0718, -0.0698]
    with pytest.raises(RuntimeError, match="panda_joint4.*outside its limits"):
        bpy.ops.vart.import_urdf(filepath=str(PANDA), start='FILE', start_file=str(pose))
    nothing = tmp_path / "none.csv"
    nothing.write_text("time_s,ghost [rad]\n0,1\n")
    with pytest.raises(RuntimeError, match="names none of the robot's joints"):
        bpy.ops.vart.import_urdf(filepath=str(PANDA), start='FILE', start_file=str(nothing))
    # fixed defect (issue 35): a field over the csv module's limit escaped as _csv.Error
    long = tmp_path / "long.csv"
    long.write_text("time_s,panda_joint4 [rad]\n" + "9" * 140_000 + ",-1\n")
    with pytest.raises(RuntimeError, match=r"long.csv: line 2, column 'time_s': longer than "
                       r"131,072 characters"):
        bpy.ops.vart.import_urdf(filepath=str(PANDA), start='FILE', start_file=str(long))
    assert len(bpy.data.objects) == before
