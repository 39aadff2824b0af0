"""Will It Run? (issue 30, item 3) in real bpy: the statics of a baked range (balance,
static torque, slip of loaded contacts) read from the scene, and the operator that runs it
with the clearance check: curves keyed, markers where failing frames begin, the worst
frames and joints listed with a click that goes there, Esc that stops cleanly.

The four stories' figures are news, not tuned: stories 2 and 3 pass with leg 0's wheel
clear of the ground (on it, the check finds it dragged 1.3 m in story 2: the known case of a
loaded contact sliding), story 4, balanced by its goal, needs about 1.4 times the limit on
four wheels; the limb joints need 36 to 41 % of their derived limit on six wheels, up to
79 % on five (assets/README.md: the least they could share and stand with the published
300 kg payload on five wheels; four to five times the model's old 100 N m)."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from frame_steps import run
from vart_addon.checks.statics import MARKER_PREFIX, statics_scene_steps
from vart_addon.checks.will_it_run import will_it_run_steps
from vart_addon.physics.feasibility import Thresholds


def story(key):
    """A story baked without Check After Bake: the tests run the checks themselves."""
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    bpy.context.scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    return bpy.context.scene


def statics(scene, **kw):
    return run(statics_scene_steps(scene, scene.frame_start, scene.frame_end, **kw))


def test_story_1_is_balanced_without_slip_and_within_its_derived_limits(vart_registered):
    rep, model, _ = statics(story("camera_tilt"))
    assert len(rep.frames) == 48 and len(model.motors) == 36 and not model.grounded
    assert model.total_mass == pytest.approx(850.0)
    assert rep.balanced.all() and (rep.margin > 1.0).all()  # six pinned wheels, 1.8 m
    assert sorted(rep.load) == [f"leg{k}_pin" for k in range(6)]
    total = sum(rep.load.values())
    np.testing.assert_allclose(total, 850.0 * 9.81, rtol=1e-6)  # the pins carry the weight
    assert max(rep.total_slip().values()) < 1e-6  # pinned wheels steer about their points
    assert 0.3 < rep.worst.min() and rep.worst.max() < 0.5  # 36-41 % of 1170 N m
    worst = rep.worst_joints(1)[0]
    assert "hip_pitch" in worst[0] or "knee_pitch" in worst[0]
    assert rep.failures() == {}  # story 1 passes the static check


@pytest.mark.parametrize("key, worst", [("trenching", 0.79), ("inspection", 0.73)])
def test_stories_2_and_3_pass_with_leg_0s_wheel_clear_of_the_ground(vart_registered, key,
                                                                      worst):
    """Leg 0 works with its wheel lifted clear (3 cm, 5 cm): five pinned wheels carry the
    robot, balanced, without slip, the hip pitches of legs 1 and 5 at 73-79 % of their derived
    limit at frame 48."""
    rep, _, _ = statics(story(key))
    assert rep.balanced.all() and rep.margin.min() > 0.9
    assert sorted(rep.load) == [f"leg{k}_pin" for k in range(1, 6)]
    assert max(rep.total_slip().values()) < 1e-6
    assert rep.worst.max() == pytest.approx(worst, abs=0.01)
    assert rep.failures() == {}


@pytest.fixture
def wheel_on_the_ground(monkeypatch):
    """Story 2 as it was first built: leg 0's wheel resting on the ground as the scoop drags
    it along the trench (the known case of a loaded contact sliding)."""
    from vart_addon.examples import stories
    monkeypatch.setattr(stories, "TRENCH_CLEARANCE", 0.0)
    return story("trenching")


def test_a_loaded_wheel_dragged_1_3_m_is_found(vart_registered, wheel_on_the_ground):
    rep, _, _ = statics(wheel_on_the_ground)
    slip = rep.total_slip()
    assert slip["ground under leg0_wheel"] == pytest.approx(1.3, abs=0.005)
    assert (rep.load["ground under leg0_wheel"] > 0.01 * rep.weight).all()
    assert all(s < 1e-6 for g, s in slip.items() if g.endswith("_pin"))
    slid = [f for f, why in rep.failures().items() if "slip" in [k for k, _ in why]]
    assert slid == list(range(2, 49))


def test_story_4_is_balanced_by_its_goal_but_needs_more_torque_on_four_wheels(
        vart_registered):
    """Story 4 keeps its centre of mass 0.05 m inside wheels 2-5 (its Balance goal on the
    deck; before it, the centre of mass went 0.3 to 10.8 mm outside), and four wheels carry
    the 850 kg robot: legs 2 and 5's hip and knee pitch need about 1.4 times the limit
    derived for standing on five (news, not tuned; the margin does not change it: 136 to
    143 % for margins of 0.05 to 0.45 m)."""
    rep, _, _ = statics(story("pinch"))
    assert rep.balanced.all()
    assert rep.margin.min() >= 0.05 - 1e-5 and rep.margin.max() < 0.05 + 1e-4
    assert sorted(rep.load) == [f"leg{k}_pin" for k in range(2, 6)]  # legs 0, 1 pinch
    assert max(rep.total_slip().values()) < 1e-6
    assert 1.3 < rep.worst.max() < 1.5
    assert {j.split("_", 1)[0] for j, _, _ in rep.worst_joints(4)} <= {"leg2", "leg5"}
    assert all(why[0][0] == "torque" for why in rep.failures().values())


def test_the_operator_keys_marks_lists_and_goes_to_a_row(vart_registered, wheel_on_the_ground):
    scene = wheel_on_the_ground
    scene.timeline_markers.new("mine", frame=3)
    assert bpy.ops.vart.will_it_run() == {'FINISHED'}
    sv = scene.vart
    assert sv.statics_summary.startswith("Statics of 48 frames: 47 frames fail (2-48)")
    assert "1300.0 mm (ground under leg0_wheel)" in sv.statics_summary
    assert sv.clearance_summary.endswith("No contact")
    names = {m.name: m.frame for m in scene.timeline_markers}
    assert names["mine"] == 3
    ours = sorted((f, n) for n, f in names.items() if n.startswith(MARKER_PREFIX))
    assert ours == [(2, MARKER_PREFIX + "slip")]  # frame 1: no step before, no slip yet
    # curves: a joint's static torque and share, a wheel's load and slip, the robot's margin
    paths = {fc.data_path for ob in scene.objects if ob.animation_data
             for fc in _fcurves(ob)}
    assert any(p.endswith('["static_torque"]') for p in paths)
    assert any(p.endswith('["torque_share"]') for p in paths)
    assert '["vart_plots"]["(contact)"]["contact_slip"]' in paths
    assert '["vart_plots"]["(robot)"]["balance_margin"]' in paths
    wheel = scene.objects["leg0_wheel"]
    scene.frame_set(30)
    slip_30 = float(wheel["vart_plots"]["(contact)"]["contact_slip"][0])
    assert slip_30 == pytest.approx(1.3 / 47, rel=0.05)
    # the list: failing frames first, then joints; a joint's row selects it and goes there
    rows = list(sv.statics_rows)
    assert rows[0].kind == 'FRAME' and rows[-1].kind == 'JOINT'
    j = next(i for i, r in enumerate(rows) if r.kind == 'JOINT')
    sv.statics_index = j
    assert scene.frame_current == rows[j].frame
    assert sv.active_joint == rows[j].name
    assert bpy.context.view_layer.objects.active.name == rows[j].link
    # again: markers replaced, not doubled
    n = len(scene.timeline_markers)
    assert bpy.ops.vart.will_it_run() == {'FINISHED'}
    assert len(scene.timeline_markers) == n


def _fcurves(ob):
    from vart_addon.bridge import animation as A
    return A.fcurves_of(ob)


def test_the_checks_step_and_stop_cleanly(vart_registered):
    scene = story("camera_tilt")
    scene.frame_set(7)
    steps = will_it_run_steps(scene, 1, 48)
    done = [next(steps) for _ in range(50)]  # clearance's 48, then statics' first two
    assert done[-1] == (50, 96) and scene.frame_current == 2
    steps.close()
    assert scene.frame_current == 7
    assert scene.vart.statics_summary == ""


def test_thresholds_decide_what_fails(vart_registered):
    scene = story("camera_tilt")
    rep, _, _ = statics(scene)
    assert not rep.failures()
    strict = Thresholds(torque_margin=0.7)  # a torque fails beyond 30 % of its limit
    rep, _, _ = statics(scene, thresholds=strict)
    assert rep.failures() and all(kind == "torque" for why in rep.failures().values()
                                  for kind, _ in why)


def test_it_refuses_an_empty_scene(vart_registered):
    with pytest.raises(RuntimeError, match="poll"):
        bpy.ops.vart.will_it_run()


@pytest.mark.parametrize("degrees, holds", [(20.0, True), (45.0, False)])
def test_a_ground_mesh_is_the_surface_its_slope_against_the_friction(vart_registered, degrees,
                                                                     holds):
    """A block (a real link, 10 kg) resting on a slope: the Ground object (a plane mesh turned
    by ``degrees``) is the contact surface, its faces' normal the contacts' normal; with
    friction 0.8 (39 degrees) it holds on 20 degrees, not on 45."""
    import math

    import blender_scenes as BS
    from vart_addon.bridge import schema as S
    from vart_addon.solver import se3
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    slope = bpy.context.active_object
    R = se3.so3_exp(np.array([0.0, math.radians(degrees), 0.0]))
    BS.place(slope, se3.make_pose(R, None))
    block = BS.cube("block", (0.2, 0.2, 0.1))  # 0.2 x 0.2 x 0.1 m
    BS.place(block, se3.make_pose(R, 0.05 * R[:, 2]))  # its bottom face on the slope
    S.write_link(block, mass=10.0)
    scene.vart.clearance_ground = slope
    scene.frame_start, scene.frame_end = 1, 2
    rep, model, _ = statics(scene, ground=slope)
    assert model.links == ["block"] and not model.grounded
    assert list(rep.load) == ["ground under block"]
    assert rep.balanced.all() == holds
    if holds:  # the load on the slope: the weight's component along its normal
        np.testing.assert_allclose(rep.load["ground under block"],
                                   10.0 * 9.81 * math.cos(math.radians(degrees)), rtol=1e-6)
    else:  # friction cannot hold the weight's pull down the slope: a wrench unsupported
        assert (rep.unsupported.sum(axis=1) > 0.01 * 10.0 * 9.81).all()
