"""Waypoints of a tool in real bpy (issue 33.2) on a real arm (UR5, example-robot-data): Linear
moves keep the tool's origin on the straight line at every frame (within 1e-6 m) with its
rotation by slerp, Joint moves take the arm's joints straight between the two waypoints'
solutions, eased moves start and stop slowly; live mode shows what the bake keys; the
operators key, change and remove waypoints; bad stored waypoints are refused by name (and
any one key corrupted: a property test)."""
from __future__ import annotations

import os

import bpy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mathutils import Matrix

import blender_scenes as BS
from pinocchio_check import ROBOTS
from vart_addon.bridge import BridgeError
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S
from vart_addon.bridge import tools as TL
from vart_addon.solver import VartError, se3
from vart_addon.solver.waypoints import eased

UR5 = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
pytestmark = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data")
ARM = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
       "wrist_2_joint", "wrist_3_joint")
#: An elbow-up pose well inside the workspace, away from singularities (rad).
READY = (0.3, -1.2, 1.5, -1.9, -1.5, 0.4)
#: The solver's tolerance is 1e-9-ish; float32 keys hold poses to ~1e-7 relative.
LINE_TOL = 1e-6


def ur5_ready():
    from vart_addon.io_urdf import import_urdf
    import_urdf(UR5, context=bpy.context, fixed_base=True)
    scene = bpy.context.scene
    for jn, v in zip(ARM, READY):
        scene.vart.active_joint = jn
        assert bpy.ops.vart.operate_joint(value=(np.degrees(v), 0, 0, 0, 0, 0)) == {'FINISHED'}
    tool = scene.objects["tool0"]
    assert TL.is_tool(tool)  # REP-199's name: marked by the import
    return scene, tool


def world(ob) -> np.ndarray:
    M = np.array(ob.matrix_world, float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def moved(T, d, angle=0.0, axis=(0.0, 0.0, 1.0)):
    out = T.copy()
    out[:3, 3] += d
    out[:3, :3] = se3.so3_exp(angle * np.asarray(axis)) @ T[:3, :3]
    return out


def joint_q(scene, jn) -> float:
    for ob in scene.objects:
        if S.is_link(ob):
            for j in S.read_object(ob)[1]:
                if j.name == jn:
                    return float(j.q[0])
    raise KeyError(jn)


def program(scene, tool):
    """Waypoints on frames 1, 13 (Linear, turned 40 degrees), 25 (Joint, back to the start)
    and 37 (Linear, eased)."""
    T0 = world(tool)
    T1 = moved(T0, (0.10, 0.12, -0.08), np.radians(40), (0.3, 0.2, 0.9))
    T3 = moved(T0, (-0.05, 0.15, 0.06))
    TL.key_waypoint(tool, 1, T0, "LINEAR", False)
    TL.key_waypoint(tool, 13, T1, "LINEAR", False)
    TL.key_waypoint(tool, 25, T0, "JOINT", False)
    TL.key_waypoint(tool, 37, T3, "LINEAR", True)
    scene.frame_start, scene.frame_end = 1, 37
    return T0, T1, T3


def baked(scene, tool, frames):
    out = {}
    for f in frames:
        scene.frame_set(f)
        out[f] = (world(tool), np.array([joint_q(scene, jn) for jn in ARM]))
    return out


def test_linear_and_joint_moves_bake_as_programmed(vart_registered):
    scene, tool = ur5_ready()
    T0, T1, T3 = program(scene, tool)
    assert bpy.ops.vart.bake() == {'FINISHED'}
    summary = scene.vart.status_summary
    assert "unmet" not in summary.lower(), summary
    got = baked(scene, tool, range(1, 38))
    # Linear 1 -> 13, constant speed: on the line, at the frame's fraction, rotation by slerp
    w = se3.so3_log(T0[:3, :3].T @ T1[:3, :3])
    for f in range(1, 14):
        s = (f - 1) / 12
        T = got[f][0]
        assert np.linalg.norm(T[:3, 3] - (T0[:3, 3] + s * (T1[:3, 3] - T0[:3, 3]))) < LINE_TOL
        R = T0[:3, :3] @ se3.so3_exp(s * w)
        assert np.abs(T[:3, :3] - R).max() < LINE_TOL
    # Joint 13 -> 25: every arm joint straight from its value at 13 to its value at 25
    qa, qb = got[13][1], got[25][1]
    assert np.abs(qb - qa).max() > 0.1  # it moved
    for f in range(13, 26):
        s = (f - 13) / 12
        assert np.abs(got[f][1] - (qa + s * (qb - qa))).max() < LINE_TOL, f
    mid = got[19][0][:3, 3]  # ... and the tool left the straight line there
    line = T0[:3, 3] + 0.5 * (T1[:3, 3] - T0[:3, 3])
    assert np.linalg.norm(mid - line) > 1e-3
    assert np.abs(got[25][0] - T0).max() < LINE_TOL
    # Linear eased 25 -> 37: on the line, at the eased fraction (slow start)
    for f in range(25, 38):
        s = eased((f - 25) / 12)
        p = T0[:3, 3] + s * (T3[:3, 3] - T0[:3, 3])
        assert np.linalg.norm(got[f][0][:3, 3] - p) < LINE_TOL, f
    step = [np.linalg.norm(got[f + 1][0][:3, 3] - got[f][0][:3, 3]) for f in range(25, 37)]
    assert step[0] < 0.2 * max(step) and step[-1] < 0.2 * max(step)


def test_the_bake_reports_the_largest_deviation_from_a_linear_line(vart_registered, capsys):
    scene, tool = ur5_ready()
    T0 = world(tool)
    TL.key_waypoint(tool, 1, T0, "LINEAR", False)
    TL.key_waypoint(tool, 9, moved(T0, (0.0, 0.0, -0.1)), "LINEAR", False)
    scene.frame_start, scene.frame_end = 1, 9
    assert bpy.ops.vart.bake() == {'FINISHED'}
    out = capsys.readouterr().out
    assert "tool 'tool0' within" in out and "mm of its Linear moves' lines" in out


def test_a_line_the_arm_cannot_follow_is_unmet_and_its_deviation_measured(vart_registered):
    from vart_addon.animation.bake import bake
    scene, tool = ur5_ready()
    T0 = world(tool)
    TL.key_waypoint(tool, 1, T0, "LINEAR", False)
    TL.key_waypoint(tool, 9, moved(T0, (2.0, 0.0, 0.0)), "LINEAR", False)  # out of reach
    res = bake(scene, 1, 9)
    assert res.unmet and res.deviation["tool0"] > 0.01


def test_live_shows_what_the_bake_keys(vart_registered):
    scene, tool = ur5_ready()
    program(scene, tool)
    scene.vart.live = True
    order = [30, 5, 19, 37, 13, 26]
    shown = {}
    for f in order:
        scene.frame_set(f)
        shown[f] = (world(tool), np.array([joint_q(scene, jn) for jn in ARM]))
    scene.vart.live = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    got = baked(scene, tool, order)
    for f in order:
        assert np.abs(got[f][0] - shown[f][0]).max() < 1e-5, f
        assert np.abs(got[f][1] - shown[f][1]).max() < 1e-5, f


def test_waypoint_operators(vart_registered):
    scene, tool = ur5_ready()
    bpy.context.view_layer.objects.active = tool
    scene.frame_set(1)
    assert bpy.ops.vart.key_waypoint(move='LINEAR') == {'FINISHED'}
    scene.frame_set(10)
    assert bpy.ops.vart.key_waypoint(move='JOINT', ease=True) == {'FINISHED'}
    wp = TL.read_waypoints(tool)
    assert wp.frames.tolist() == [1.0, 10.0] and wp.moves == ("LINEAR", "JOINT")
    assert wp.eases.tolist() == [False, True]
    assert np.abs(wp.T[1] - world(tool)).max() < 1e-6
    assert bpy.ops.vart.set_waypoint_move(frame=10, move='LINEAR') == {'FINISHED'}
    assert TL.read_waypoints(tool).moves[1] == "LINEAR"
    assert TL.read_waypoints(tool).eases.tolist() == [False, False]
    with pytest.raises(RuntimeError, match="no waypoint on frame 5"):
        bpy.ops.vart.set_waypoint_move(frame=5, move='JOINT')
    assert bpy.ops.vart.go_to_waypoint(frame=1) == {'FINISHED'}
    assert scene.frame_current == 1
    assert bpy.ops.vart.remove_waypoint(frame=1) == {'FINISHED'}
    assert TL.read_waypoints(tool).frames.tolist() == [10.0]
    bpy.context.view_layer.objects.active = scene.objects["wrist_3_link"]
    assert not bpy.ops.vart.key_waypoint.poll()  # not a tool
    assert bpy.ops.vart.mark_tool(on=True) == {'FINISHED'}
    assert bpy.ops.vart.key_waypoint.poll()


def test_add_tool_frame_at_the_cursor(vart_registered):
    scene, tool = ur5_ready()
    flange = scene.objects["wrist_3_link"]
    T = world(flange) @ se3.make_pose(np.eye(3), [0.0, 0.0, 0.15])
    scene.cursor.matrix = Matrix(T.tolist())
    bpy.context.view_layer.objects.active = flange
    assert bpy.ops.vart.add_tool(name="gripper_tcp") == {'FINISHED'}
    tcp = scene.objects["gripper_tcp"]
    assert TL.is_tool(tcp) and bpy.context.active_object == tcp
    assert np.abs(world(tcp) - T).max() < 1e-6
    scene.vart.active_joint = "shoulder_pan_joint"
    assert bpy.ops.vart.operate_joint(value=(30.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    # fixed to the flange: it moved with the arm
    assert np.abs(world(tcp) - world(flange) @ se3.make_pose(np.eye(3), [0, 0, 0.15])).max() \
        < 1e-6


def test_bad_stored_waypoints_refuse_the_bake_naming_the_property(vart_registered):
    scene, tool = ur5_ready()
    program(scene, tool)
    fc = A.fcurve_map(tool)[('["vart_waypoint"]', 4)]
    fc.keyframe_points.remove(fc.keyframe_points[1])  # frame 13 loses a value
    with pytest.raises(RuntimeError, match=r"tool0.*vart_waypoint.*\[4\] has no key on frame 13"):
        bpy.ops.vart.bake()
    fc = A.fcurve_map(tool)[('["vart_move"]', 0)]
    TL.remove_waypoint(tool, 13)
    fc.keyframe_points[1].co.y = 7.0
    with pytest.raises(RuntimeError,
                       match=r"tool0.: \[\"vart_move\"\], frame 25: 7.0 is not a move"):
        bpy.ops.vart.bake()


def test_a_tools_keyed_location_and_rotation_are_a_pose_target(vart_registered):
    """Without waypoints, a tool's keyed transform is its pose target at every frame (as any
    link's): Blender's own interpolation between the keys."""
    scene, tool = ur5_ready()
    for jn in ARM:  # Operate Joint left targets on them: without waypoints they would stay
        scene.vart.active_joint = jn
        assert bpy.ops.vart.clear_target() == {'FINISHED'}
    T0 = world(tool)
    T1 = moved(T0, (0.0, 0.1, -0.05), np.radians(20))
    tool.rotation_mode = 'QUATERNION'
    for f, T in ((1, T0), (11, T1)):
        tool.matrix_world = Matrix(T.tolist())
        tool.keyframe_insert("location", frame=f)
        tool.keyframe_insert("rotation_quaternion", frame=f)
    scene.frame_start, scene.frame_end = 1, 11
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary.lower(), scene.vart.status_summary
    scene.frame_set(11)
    assert np.abs(world(tool) - T1).max() < 1e-5
    q = joint_q(scene, "shoulder_pan_joint")
    scene.frame_set(1)
    assert abs(joint_q(scene, "shoulder_pan_joint") - q) > 1e-3  # the arm moved it there


# ---- corrupted waypoints ------------------------------------------------------------------------
BAD_KEYS = [float("nan"), float("inf"), -float("inf"), 1e39, -1.0, 0.0, 2.0, 0.5]


@pytest.fixture(scope="module")
def keyed_scene():
    """UR5 with three waypoints on tool0 (frames 1, 4, 7: Linear, Joint), kept for the module
    (vart registered for it): each example corrupts one key and puts it back."""
    import vart_addon
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    try:
        scene, tool = ur5_ready()
        T0 = world(tool)
        TL.key_waypoint(tool, 1, T0, "LINEAR", False)
        TL.key_waypoint(tool, 4, moved(T0, (0.0, 0.05, 0.0)), "LINEAR", False)
        TL.key_waypoint(tool, 7, T0, "JOINT", True)
        scene.frame_start, scene.frame_end = 1, 7
        yield scene, tool
    finally:
        vart_addon.unregister()


def _channels(tool):
    return sorted(k for k in A.fcurve_map(tool) if k[0] in TL.PATHS)


@settings(max_examples=int(os.environ.get("VART_FUZZ_EXAMPLES", "40")), deadline=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_one_corrupted_waypoint_key_is_baked_or_refused_naming_it(keyed_scene, data):
    """Any one key of a waypoint channel set to NaN, infinite, huge or an out-of-range move,
    or removed: the bake either runs (a move 0.5 is not a move: refused; a quaternion
    scaled is still a rotation) or refuses naming the tool and the property, keying nothing."""
    from vart_addon.animation.bake import bake
    from vart_addon.animation.bake_result import BakeError
    scene, tool = keyed_scene
    key = data.draw(st.sampled_from(_channels(tool)))
    k = data.draw(st.integers(0, 2))
    action = data.draw(st.sampled_from(["remove"] + list(range(len(BAD_KEYS)))))
    fc = A.fcurve_map(tool)[key]
    kp = fc.keyframe_points[k]
    frame, value = kp.co.x, kp.co.y
    if action == "remove":
        fc.keyframe_points.remove(kp)
    else:
        kp.co.y = BAD_KEYS[action]
    fc.update()
    before = repr(BS.scene_snapshot()), len(A.fcurves_of(tool))
    try:
        bake(scene, 1, 7)
    except (BakeError, BridgeError, VartError) as e:
        assert (repr(BS.scene_snapshot()), len(A.fcurves_of(tool))) == before
        assert "tool0" in str(e) and ("vart_waypoint" in str(e) or "move" in str(e)), str(e)
    finally:
        fc = A.fcurve_map(tool)[key]
        if action == "remove":
            fc.keyframe_points.insert(frame, value)
        else:
            fc.keyframe_points[k].co.y = value
        fc.update()
        for c in A.fcurves_of(tool):  # what a bake keyed on the tool goes again
            if A.group_of(c) == A.BAKE_GROUP:
                A.remove_fcurve(tool, c)
