"""A ``.path`` export loads in Klampt beside vart's own URDF export and moves every link where
Blender has it (issue 18, items 1 and 2): Klampt (PyPI ``klampt``) is the consumer.

For each of the four stories: added, baked, the robot exported as URDF (*Export URDF*'s
:func:`~vart_addon.io_urdf.exporter.export_urdf`) and the motion as ``.path``; Klampt loads
both, and at several frames (every milestone of an every-frame export) each link's
transform in Klampt equals the link object's pose in Blender (1e-5 m and rad). The worst
difference per story is printed (``-s``) for the report.
"""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon import examples as X
from vart_addon import io_trajectory as TB
from vart_addon.io_urdf.exporter import export_urdf

klampt = pytest.importorskip("klampt")
from klampt.model.trajectory import Trajectory as KlamptTrajectory  # noqa: E402

STORIES = ("camera_tilt", "trenching", "inspection", "pinch")
FRAMES = (1, 9, 24, 37, 48)


def klampt_pose(link) -> np.ndarray:
    R, t = link.getTransform()
    T = np.eye(4)
    T[:3, :3] = np.array(R).reshape(3, 3).T  # Klampt's so3 is column-major
    T[:3, 3] = t
    return T


def blender_pose(name) -> np.ndarray:
    return X.pose(bpy.data.objects[name])


def pose_error(A, B) -> float:
    return float(max(np.abs(A[:3, 3] - B[:3, 3]).max(), np.abs(A[:3, :3] - B[:3, :3]).max()))


@pytest.mark.parametrize("story", STORIES)
def test_a_path_moves_klampts_robot_where_blender_has_it(story, vart_registered, tmp_path):
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example=story) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    urdf_res = export_urdf(tmp_path / "robot.urdf", scene=scene)
    res = TB.export_trajectory(scene, tmp_path / "motion.path", every_frame=True)
    world = klampt.WorldModel()
    assert world.loadRobot(str(tmp_path / "robot.urdf"))
    robot = world.robot(0)
    path = KlamptTrajectory()
    path.load(str(tmp_path / "motion.path"))
    # the layout is Klampt's own: six base entries, then one per other link, depth first
    names = [robot.link(i).getName() for i in range(robot.numLinks())]
    assert len(path.milestones[0]) == robot.numLinks() == res.written.n_joints
    assert names[6:] == list(res.written.joint_names[6:])
    fps = scene.render.fps / scene.render.fps_base
    worst = 0.0
    for f in FRAMES:
        robot.setConfig(path.eval((f - 1) / fps))
        scene.frame_set(f)
        for i in range(5, robot.numLinks()):  # the root (entry 5) and every other link
            name = names[i] if i > 5 else urdf_res.robot.root_link
            if name not in bpy.data.objects:
                continue  # a helper link of the URDF export
            err = pose_error(klampt_pose(robot.link(i)), blender_pose(name))
            worst = max(worst, err)
            assert err < 1e-5, (story, f, name, err)
    print(f"\nKlampt pose error, {story}: {worst:.2e} (m, rad; {len(FRAMES)} frames, "
          f"{robot.numLinks() - 5} links)")
