"""The arm motion check in real bpy (issue 33.3) on a real arm (UR5, example-robot-data): a
motion through the wrist's singularity is reported as a configuration change, frames near
the singularity and a joint jumping; the UR5 example's bake passes; the operator reports it
and is refused without a tool."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from pinocchio_check import ROBOTS
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S
from vart_addon.checks.arm_motion import check_arm_motion

UR5 = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
pytestmark = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data")
READY = {"shoulder_pan_joint": 0.3, "shoulder_lift_joint": -1.2, "elbow_joint": 1.5,
         "wrist_1_joint": -1.9, "wrist_2_joint": -1.5, "wrist_3_joint": 0.4}


def keyed_ur5(wrist_2, wrist_3):
    """UR5 with its joints keyed on frames 1..n: READY, wrist_2 and wrist_3 as given."""
    from vart_addon.io_urdf import import_urdf
    robot = import_urdf(UR5, context=bpy.context, fixed_base=True)
    scene = bpy.context.scene
    n = len(wrist_2)
    scene.frame_start, scene.frame_end = 1, n
    for jn, v in READY.items():
        values = {"wrist_2_joint": wrist_2, "wrist_3_joint": wrist_3}.get(jn, [v] * n)
        ob = next(o for o in robot.values() if jn in o[S.KEY]["joints"])
        for f, x in enumerate(values, start=1):
            ob[S.KEY]["joints"][jn]["q"] = [float(x)]
            A.key_channels(ob, S.q_data_path(jn), float(f))
    return scene


def test_a_flip_through_the_wrist_singularity_is_reported(vart_registered):
    wrist_2 = np.linspace(-0.5, 0.5, 11)  # through 0: the wrist's singularity
    wrist_3 = [0.4] * 6 + [1.4] * 5      # a 1 rad jump between frames 6 and 7
    scene = keyed_ur5(wrist_2, wrist_3)
    rep = check_arm_motion(scene, "tool0", 1, 11)
    assert not rep.ok
    assert rep.jumps == [(7, "wrist_3_joint", pytest.approx(1.0, abs=1e-6))]
    assert [c[0] for c in rep.changes] == [6, 7]  # at 0 on frame 6, then the other side
    assert "wrist -" in rep.changes[0][1] and "wrist +" in rep.changes[1][2]
    assert 6 in rep.singular and 1 not in rep.singular
    text = rep.summary()
    assert "configuration changes at frame 6" in text and "near a singularity" in text
    assert "worst wrist_3_joint +1 at frame 7" in text


def test_the_example_passes_and_the_operator_reports(vart_registered, capsys):
    assert bpy.ops.vart.add_example(example="ur5_pick_place") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert bpy.context.active_object.name == "gripper_tcp"
    assert bpy.ops.vart.check_arm_motion() == {'FINISHED'}
    out = capsys.readouterr().out
    assert "Arm of 'gripper_tcp', frames 1-128: shoulder L, elbow up, wrist -" in out
    assert "no jump over 0.2 per frame, no configuration change" in out
    bpy.context.view_layer.objects.active = scene.objects["base_link"]
    assert not bpy.ops.vart.check_arm_motion.poll()
