"""A robot's joint_limits.yaml with its URDF (issue 33, item 4): found beside the URDF (or
chosen) at import, kept with the robot, and the exports' re-timing keeps within its velocity
(it wins over the URDF's) and acceleration limits; a bad file refuses the import naming it."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon import io_trajectory as TB
from vart_addon.bridge import schema as S
from vart_addon.io_urdf.importer import SOURCE_KEY

URDF = """<robot name="arm">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"
    ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="upper"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"
    ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="elbow" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="2.0"/></joint>
</robot>"""
LIMITS = """joint_limits:
  elbow: {has_velocity_limits: true, max_velocity: 1.0,
          has_acceleration_limits: true, max_acceleration: 0.5}
  wrist: {max_velocity: 1.0}
"""


def arm(tmp_path, limits=LIMITS):
    (tmp_path / "arm.urdf").write_text(URDF)
    if limits is not None:
        (tmp_path / "joint_limits.yaml").write_text(limits)
    return str(tmp_path / "arm.urdf")


def key_elbow(turn=1.0, frames=10):
    ob = next(ob for ob in bpy.context.scene.objects if S.is_link(ob)
              and "elbow" in ob["vart"].get("joints", {}))
    path = S.q_data_path("elbow")
    for frame, q in ((1, 0.0), (frames, turn)):
        ob["vart"]["joints"]["elbow"]["q"] = [q]
        ob.keyframe_insert(data_path=path, frame=frame)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}


def test_the_export_is_retimed_within_the_yaml_limits(vart_registered, tmp_path):
    assert bpy.ops.vart.import_urdf(filepath=arm(tmp_path), fixed_base=True) == {'FINISHED'}
    coll = next(c for c in bpy.data.collections if SOURCE_KEY in c)
    kept = coll[SOURCE_KEY]["joint_limits"].to_dict()
    assert kept["file"] == str(tmp_path / "joint_limits.yaml")
    assert kept["joints"]["elbow"] == {"velocity": 1.0, "acceleration": 0.5}
    key_elbow()
    scene = bpy.context.scene
    for method in ("uniform", "toppra"):
        res = TB.export_trajectory(scene, tmp_path / f"{method}.csv", every_frame=True,
                                   retime=method)
        full = res.timing.trajectory
        assert full.velocity_limits == (1.0,)  # the file's, not the URDF's 2.0
        assert np.abs(full.velocities).max() <= 1.0 * (1 + 1e-9)
        assert np.abs(full.accelerations).max() <= 0.5 * (1 + 1e-9)
        assert res.timing.duration_after > 2.0  # 0.5 s within the URDF's 2 rad/s alone


def test_without_the_file_the_urdf_s_limits_and_no_acceleration_limit(vart_registered,
                                                                        tmp_path):
    path = arm(tmp_path, limits=None)
    assert bpy.ops.vart.import_urdf(filepath=path, fixed_base=True) == {'FINISHED'}
    coll = next(c for c in bpy.data.collections if SOURCE_KEY in c)
    assert "joint_limits" not in coll[SOURCE_KEY]
    key_elbow()
    res = TB.export_trajectory(bpy.context.scene, tmp_path / "u.csv", every_frame=True,
                               retime="uniform")
    assert res.timing.trajectory.velocity_limits == (2.0,)
    assert res.timing.duration_after < 1.0  # 1 rad at 2 rad/s


def test_a_chosen_file_and_a_bad_one(vart_registered, tmp_path):
    path = arm(tmp_path, limits=None)
    other = tmp_path / "mine.yaml"
    other.write_text("joint_limits: {elbow: {max_velocity: 0.25}}")
    assert bpy.ops.vart.import_urdf(filepath=path, fixed_base=True,
                                    joint_limits_file=str(other)) == {'FINISHED'}
    coll = next(c for c in bpy.data.collections if SOURCE_KEY in c)
    assert coll[SOURCE_KEY]["joint_limits"]["joints"]["elbow"].to_dict() == {"velocity": 0.25}
    other.write_text("joint_limits: {elbow: {max_velocity: -2}}")
    before = set(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"mine\.yaml: joint_limits: elbow: max_velocity"):
        bpy.ops.vart.import_urdf(filepath=path, joint_limits_file=str(other))
    assert set(bpy.data.objects) == before


def test_the_checks_read_the_yaml_s_velocity_and_effort(vart_registered, tmp_path):
    from vart_addon.checks.plots import urdf_limits
    limits = LIMITS.replace("max_acceleration: 0.5}", "max_acceleration: 0.5, max_effort: 4}")
    assert bpy.ops.vart.import_urdf(filepath=arm(tmp_path, limits),
                                    fixed_base=True) == {'FINISHED'}
    assert urdf_limits(bpy.context.scene)["elbow"] == (1.0, 4.0)  # the URDF says 2.0, 10
