"""The MuJoCo replay of a baked scene (issue 20, item 3) in real bpy: the four stories are
replayed (the URDF export's robot, its inertials and effort limits, the links' meshes as
collision geometry, the baked joint values as targets) and the operator reports and stores
what happened; without MuJoCo it says how to install it. Issue 30: the Stewart platform, its
platform a free body held by six ball joints (connects), follows its bake; a joint whose stored
value is a plain number replays (issue 35)."""
from __future__ import annotations

import re
import sys

import bpy
import numpy as np
import pytest

pytest.importorskip("mujoco")

from vart_addon.bridge import poses as P  # noqa: E402
from vart_addon.bridge import schema as S  # noqa: E402
from vart_addon.checks.replay import replay_scene_steps  # noqa: E402
from vart_addon.physics.model import INSTALL  # noqa: E402
from vart_addon.physics.replay import SETTLE_S  # noqa: E402
from vart_addon.shared.frames import run_steps  # noqa: E402


def replayed(key):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    return run_steps(replay_scene_steps(bpy.context.scene))


@pytest.mark.parametrize("key", ["camera_tilt", "trenching", "inspection", "pinch"])
def test_a_story_replays_with_its_joints_tracked(vart_registered, key):
    res, _ = replayed(key)
    assert res.frames_done == 48 and res.floating
    assert len(res.joints) == 36  # six legs of six joints (the wheel too)
    assert np.isfinite(res.force).all()
    wheels = [i for i, j in enumerate(res.joints) if j.endswith("_wheel")]
    assert len(wheels) == 6 and (res.limit[wheels] == 0.0).all()  # continuous: no <limit>
    assert (np.delete(res.limit, wheels) == 1170.0).all()  # assets/athlete/athlete.urdf
    assert res.sim_s == pytest.approx(47 / 24)
    for what in (res.force_mean, res.required, res.required_mean):
        assert what.shape == res.force.shape and np.isfinite(what).all()
    # the simulation starts at the bake's first frame and settles there before time 0
    assert 0 < res.settle_s <= SETTLE_S
    # the contacts of every frame: links on the ground, named, with their forces; at the
    # first frame the wheels (those of the legs it stands on)
    assert len(res.contacts) == 48
    for touching in res.contacts:
        assert all(t.label.endswith(" on ground") and "ground" in t.geoms for t in touching)
        assert all(t.normal >= 0 and np.isfinite(t.tangential) for t in touching)
    assert sum(t.label.endswith("_wheel on ground") for t in res.contacts[0]) >= 3


@pytest.mark.parametrize("key", ["camera_tilt", "trenching", "inspection", "pinch"])
def test_the_stories_replay_without_a_fall(vart_registered, key):
    """With the limb joints' derived effort limit (assets/README.md: the least they could
    share and stand with the published 300 kg payload on five wheels), every story stays up
    (with the model's own 100 N m before, all four fell while settling into frame 1)."""
    res, _ = replayed(key)
    assert res.stays_up, res.summary(first_frame=1)


def test_the_operator_reports_and_stores(vart_registered):
    # story 4, whose statics need 143 % of the limit at legs 2 and 5: servos at their limit
    assert bpy.ops.vart.add_example(example="pinch") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    assert bpy.ops.vart.replay_physics() == {'FINISHED'}
    text = scene.vart.replay_summary
    assert text.startswith("Replayed 48 frames")
    assert "effort limit" in text
    assert scene.frame_current == 1
    # the forces at every step beside what inverse dynamics needs, and the contacts, named,
    # each on a line of its own in the panel
    from vart_addon.panels.checks import sentence_lines
    lines = sentence_lines(text)
    assert any(line.startswith("Peak force ") and "inverse dynamics" in line for line in lines)
    i = lines.index("Contacts:")
    assert lines[i + 1].startswith("  ") and " on ground (frames " in lines[i + 1]
    assert "N normal, " in lines[i + 1] and max(len(line) for line in lines) < 160


def test_without_mujoco_the_operator_says_how_to_install_it(vart_registered, monkeypatch):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    monkeypatch.setitem(sys.modules, "mujoco", None)  # import mujoco now raises ImportError
    with pytest.raises(RuntimeError, match="pip install mujoco-core"):
        bpy.ops.vart.replay_physics()
    assert bpy.context.scene.vart.replay_summary == ""
    assert "mujoco-core" in INSTALL


def test_a_loop_not_closed_at_zero_replays_closed(vart_registered, monkeypatch):
    """The parented four-bar stands at crank 70 degrees (its joints are not 0): MuJoCo fixes a
    connect's child-side anchor at the model's reference configuration, so the replay's model
    is posed at the first frame. With the first frame's values, the closure's residual
    (MuJoCo's own ``efc_pos`` of its equality rows) is that of the baked pose: under 1e-6 m.
    (Built at joint zeros, the loop would be closed at the wrong place.)"""
    import mujoco

    import blender_scenes as BS
    from vart_addon.animation.bake import bake
    from vart_addon.checks import replay as R
    BS.keyed_fourbar(12, 20)
    bake(bpy.context.scene, 1, 12, settings=BS.TIGHT)
    seen = {}
    real = R.replay_steps

    def spy(built, times, targets, **kw):
        seen["built"], seen["targets"] = built, targets
        return (yield from real(built, times, targets, **kw))

    monkeypatch.setattr(R, "replay_steps", spy)
    steps = R.replay_scene_steps(bpy.context.scene, 1, 12)
    next(steps)
    steps.close()
    model = seen["built"].spec.compile()
    data = mujoco.MjData(model)
    for name, values in seen["targets"].items():  # the first frame, in URDF values
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = values[0]
    mujoco.mj_forward(model, data)
    rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert rows.any()
    assert np.abs(data.efc_pos[rows]).max() < 1e-6


def test_the_stewart_platform_follows_its_bake(vart_registered):
    """The platform hangs from its base by a floating joint (a MuJoCo free body) and is held
    by the six legs' spherical joints (connects); only the legs' servos move it. It follows
    its baked pose at every frame within 1 cm and 0.5 degrees while it moves 9 cm and 12
    degrees: each leg carries about 10 N (the 3 kg platform and its own rods) on servos of
    kp = 100 N / 0.05 m, a 5 mm sag (measured: 3.9 mm, 0.05 degrees)."""
    res, warnings = replayed("stewart")
    assert res.stays_up and res.settled and res.frames_done == 96
    assert list(res.bodies) == ["platform"]
    scene = bpy.context.scene
    platform = bpy.data.objects["platform"]
    moved = []
    for k, f in enumerate(range(scene.frame_start, scene.frame_end + 1)):
        scene.frame_set(f)
        T = P.rigid_and_scale(P.observe(platform), "platform")[0]
        G = res.bodies["platform"][k]
        assert np.linalg.norm(G[:3, 3] - T[:3, 3]) < 0.01, f
        cos = (np.trace(G[:3, :3].T @ T[:3, :3]) - 1) / 2
        assert np.degrees(np.arccos(np.clip(cos, -1, 1))) < 0.5, f
        moved.append(T[:3, 3])
    assert np.linalg.norm(np.array(moved) - moved[0], axis=1).max() > 0.09  # it does move
    assert not any("made fixed" in w for w in warnings)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf"), "2"])
def test_a_time_scale_that_is_not_a_positive_number_is_refused(vart_registered, scale):
    from vart_addon.physics.model import PhysicsError
    with pytest.raises(PhysicsError, match="time_scale must be a positive number"):
        next(replay_scene_steps(bpy.context.scene, time_scale=scale))


@pytest.mark.parametrize("times, message", [
    ([0.0, 1.0], r"one time per frame \(96\), got shape \(2,\)"),
    (np.r_[0.0, np.ones(95)], "finite and increasing"),
    (np.r_[np.arange(95.0), np.nan], "finite and increasing"),
    (["a"] * 96, "must be numbers"),
    (np.arange(96.0), "not both")])
def test_times_that_are_not_one_increasing_time_per_frame_are_refused(vart_registered, times,
                                                                      message):
    from vart_addon.physics.model import PhysicsError
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    scale = 2.0 if message == "not both" else 1.0
    with pytest.raises(PhysicsError, match=message):
        next(replay_scene_steps(bpy.context.scene, times=times, time_scale=scale))


def test_a_replay_plays_at_the_times_given(vart_registered):
    """Frame k at ``times[k]``: the targets are the baked values at those times (a fourbar's
    crank, played twice as slowly in its second half)."""
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    n = scene.frame_end - scene.frame_start + 1
    fps = scene.render.fps / scene.render.fps_base
    steps = np.where(np.arange(1, n) < n // 2, 1.0, 2.0) / fps
    times = np.r_[0.0, np.cumsum(steps)]
    res, _ = run_steps(replay_scene_steps(scene, times=times))
    plain, _ = run_steps(replay_scene_steps(scene))
    np.testing.assert_array_equal(res.times, times)
    assert res.sim_s == pytest.approx(times[-1])
    np.testing.assert_array_equal(res.target, plain.target)  # the same values, later


def test_a_replay_that_cannot_be_re_timed_is_refused_and_changes_nothing(vart_registered):
    """The four-bar's joints have no velocity limit: Timing Uniform to Limits without a
    default limit is an error report, and the last replay's outcome stays."""
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.replay_summary = "earlier"
    with pytest.raises(RuntimeError, match="frames 1-96: cannot re-time: no joint has a "
                                           "velocity limit"):
        bpy.ops.vart.replay_physics(retime='UNIFORM')
    assert scene.vart.replay_summary == "earlier"
    assert bpy.ops.vart.replay_physics(retime='UNIFORM', velocity_limit=1.0) == {'FINISHED'}
    assert "At the export's timing: re-timed (uniform) from 3.958 s to " in \
        scene.vart.replay_summary


def test_a_time_optimal_replay_without_toppra_says_how_to_install_it(vart_registered,
                                                                      monkeypatch):
    from vart_addon.formats.trajectory.timing import TOPPRA_INSTALL
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    monkeypatch.setitem(sys.modules, "toppra", None)  # (import toppra: ImportError)
    with pytest.raises(RuntimeError, match="needs the toppra package: "
                                           + re.escape(TOPPRA_INSTALL)):
        bpy.ops.vart.replay_physics(retime='TOPPRA', velocity_limit=1.0)
    assert bpy.context.scene.vart.replay_summary == ""


def test_a_joint_value_stored_as_a_number_replays(vart_registered):
    """Issue 35: ``q`` as a plain number, which the schema accepts for a 1-DoF joint, is read
    through the schema: the replay runs and its curves are keyed."""
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    crank = next(ob for ob in bpy.context.scene.objects
                 if S.is_link(ob) and "A" in ob[S.KEY].get("joints", {}))
    crank[S.KEY]["joints"]["A"]["q"] = float(crank[S.KEY]["joints"]["A"]["q"][0])
    assert bpy.ops.vart.replay_physics() == {'FINISHED'}
    assert bpy.context.scene.vart.replay_summary.startswith("Replayed 96 frames")
    assert "A" in crank["vart_plots"]


BALL_ARM = """<mujoco model="ball_arm"><worldbody>
<body name="post" pos="0 0 1"><geom type="box" size=".05 .05 .05" mass="5"/>
 <body name="upper" pos="0 0 -0.1"><joint name="shoulder" type="ball"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
  <body name="fore" pos="0.3 0 0"><joint name="elbow" type="hinge" axis="0 1 0" range="-2 2"/>
   <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="0.5"/></body>
 </body></body></worldbody></mujoco>"""


def test_a_real_spherical_joint_is_a_mujoco_ball_joint(vart_registered, tmp_path,
                                                       monkeypatch):
    """A ball joint read from MJCF is a real spherical vart joint; the URDF export leaves it
    out (URDF has none) and hangs its child by a floating joint: the replay's model makes it
    a MuJoCo ball joint again, the arm's subtree under the post (no free body, no equality),
    and the MJCF export opens where Blender has the links."""
    import mujoco

    from vart_addon.checks import replay as R
    from vart_addon.checks.mjcf_export import export_mjcf
    from vart_addon.examples.common import key_value
    path = tmp_path / "ball_arm.xml"
    path.write_text(BALL_ARM)
    assert bpy.ops.vart.import_mjcf(filepath=str(path)) == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_end = 24
    key_value(bpy.data.objects["fore"], "elbow", "q", [(1, [0.0]), (24, [1.0])])
    assert bpy.ops.vart.bake() == {'FINISHED'}
    seen = {}
    real = R.replay_steps

    def spy(built, times, targets, **kw):
        seen["built"], seen["bodies"] = built, kw["bodies"]
        return (yield from real(built, times, targets, **kw))

    monkeypatch.setattr(R, "replay_steps", spy)
    res, _ = run_steps(R.replay_scene_steps(scene))
    built = seen["built"]
    assert built.balls == {"shoulder": "upper"} and built.free == {}
    model = built.spec.compile()
    assert model.joint("shoulder").type == mujoco.mjtJoint.mjJNT_BALL and model.neq == 0
    assert model.body("upper").parentid == model.body("post").id
    assert set(seen["bodies"]) == {"shoulder"} and res.bodies == {} and res.carried
    assert res.joints == ["elbow"] and np.isfinite(res.required).all()
    exported = export_mjcf(tmp_path / "out.xml", scene, frame=12)
    m = mujoco.MjModel.from_xml_path(exported.file.path)
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    scene.frame_set(12)
    for name in ("post", "upper", "fore"):
        b = m.body(name).id
        T = P.rigid_and_scale(P.observe(bpy.data.objects[name]), name)[0]
        np.testing.assert_allclose(d.xpos[b], T[:3, 3], atol=1e-5, err_msg=name)


def test_a_humanoid_standing_still_stays_where_it_stands(vart_registered):
    """G1 (example-robot-data) standing still, knees a little bent: with its URDF's collision
    spheres under its soles it stays within a centimetre (with its foot meshes' convex hulls,
    rounded, it rocked 48-93 mm off and its feet slid 18-57 mm)."""
    from pinocchio_check import ROBOTS
    from vart_addon.io_urdf import import_urdf
    path = ROBOTS / "g1_description" / "urdf" / "g1_29dof_rev_1_0.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data")
    q = {f"{s}_{j}_joint": v for s in ("left", "right")
         for j, v in (("hip_pitch", -0.2), ("knee", 0.4), ("ankle_pitch", -0.2))}
    import_urdf(path, context=bpy.context, scene=bpy.context.scene, use_env=False, q=q)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.key_pose() == {'FINISHED'}
    scene.frame_set(24)
    assert bpy.ops.vart.key_pose() == {'FINISHED'}
    scene.frame_set(1)
    assert bpy.ops.vart.bake() == {'FINISHED'}
    res, _ = run_steps(replay_scene_steps(scene))
    assert res.stays_up, res.summary(first_frame=1)
    drift = np.linalg.norm(res.base[-1][:3, 3] - res.base[0][:3, 3])
    assert drift < 0.01, res.summary(first_frame=1)
