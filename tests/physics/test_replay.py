"""The MuJoCo replay (issues 20 and 30) without Blender, against known answers:

- a pendulum hanging from the world by a revolute joint, its arm's mass m at distance l,
  driven slowly from hanging to 69 degrees: the actuator's force is the static torque
  m g l sin q within 2 %; with an effort limit below m g l it saturates, the joint lags, and
  the replay says so; a free-floating base is free;
- the same pendulum swung through the horizontal between two frames: at every frame, the
  peak and the mean over the physics steps since the previous frame of the actuator force and
  of the inverse dynamics torque are those of m g l sin q + I qddot along the replayed motion
  (the documented spline through the frames) within 2 % of its range, though the frames
  alone miss the peak by more than that;
- a two-link arm held still: its forces are the static torques within 1 % from the first
  frame on (the servos settle into the first frame before it);
- an arm fixed to the world driven through the ground: a contact with the ground, named,
  whose normal force balances the servo's torque.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("mujoco")
from scipy.interpolate import CubicSpline  # noqa: E402

from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.physics.model import PhysicsError, build_spec  # noqa: E402
from vart_addon.physics.replay import replay_steps  # noqa: E402
from vart_addon.solver import se3  # noqa: E402

M, L, G = 2.0, 0.5, 9.81
I_ARM = M * L ** 2 + 1e-3  # about the joint (kg m^2)


def pendulum(effort=100.0, root="world", limit=2.0) -> urdf.Robot:
    """``arm`` hanging from ``root`` by revolute ``swing`` about y at 1 m height; its mass M
    at L below the joint (a small sphere of inertia)."""
    arm = urdf.Link("arm", inertial=urdf.Inertial(mass=M, origin=urdf.Origin((0, 0, -L)),
                                                  inertia=(1e-3, 0, 0, 1e-3, 0, 1e-3)),
                    collisions=(urdf.Collision(geometry=urdf.Sphere(0.05),
                                               origin=urdf.Origin((0, 0, -L))),))
    swing = urdf.Joint("swing", "revolute", root, "arm", origin=urdf.Origin((0, 0, 1.0)),
                       axis=(0, 1, 0), limit=urdf.Limit(-limit, limit, effort, 1.0))
    return urdf.Robot("pendulum", (urdf.Link(root), arm), (swing,))


def finish(steps):
    """Run a replay (its generator) to its end; the ReplayResult."""
    try:
        while True:
            next(steps)
    except StopIteration as stop:
        return stop.value


def run(robot, seconds=30.0, last=1.2, fps=24, **kw):
    n = int(seconds * fps) + 1
    times = np.arange(n) / fps
    return finish(replay_steps(build_spec(robot, **kw), times,
                               {"swing": np.linspace(0.0, last, n)}))


def test_a_slow_pendulum_needs_m_g_l_sin_q():
    res = run(pendulum())
    assert not res.floating and res.frames_done == len(res.times)
    q, force = res.q[:, 0], res.force[:, 0]
    static = M * G * L * np.sin(q)
    held = np.abs(np.sin(q)) > 0.2
    assert held.sum() > 100
    rel = np.abs(force[held] - static[held]) / np.abs(static[held])
    assert rel.max() < 0.02, rel.max()
    assert res.saturated() == {}
    assert abs(res.error[-1, 0]) < 0.05  # the servo's own error: below servo_error


def test_beyond_the_effort_limit_is_reported():
    effort = 5.0  # N m, about half of m g l
    res = run(pendulum(effort=effort))
    sat = res.saturated()["swing"]
    # at the limit from where the target needs more than the effort, once the servo's lag
    # (servo_error 0.05 rad at the limit: 30 frames at 1.2 rad / 720 frames) has built up
    first_needed = int(np.flatnonzero(M * G * L * np.sin(res.target[:, 0]) > effort)[0])
    assert first_needed <= sat[0] <= first_needed + 36 and sat[-1] == res.frames_done - 1
    assert np.abs(res.force[:, 0]).max() <= effort * (1 + 1e-9)
    assert res.error[-1, 0] > 0.3  # it cannot follow: it hangs at asin(effort / (m g l))
    assert res.q[-1, 0] == pytest.approx(math.asin(effort / (M * G * L)), abs=0.03)
    text = res.summary(first_frame=1)
    assert "1 joints at their effort limit: swing (frames" in text


def test_a_free_base_falls_and_it_is_said():
    """The same pendulum without the world link: its root is free, it drops to the ground."""
    robot = pendulum(root="base")
    robot = urdf.Robot("pendulum", (urdf.Link("base", inertial=urdf.Inertial(
        mass=1.0, inertia=(0.01, 0, 0, 0.01, 0, 0.01))),) + robot.links[1:], robot.joints)
    res = run(robot, seconds=2.0, base=se3.make_pose(None, [0.0, 0.0, 2.0]))
    assert res.floating
    assert res.base[-1, 2, 3] < 1.0 and not res.stays_up


def test_bad_input_is_refused():
    with pytest.raises(PhysicsError, match="servo_error"):
        build_spec(pendulum(), servo_error=0.0)
    with pytest.raises(PhysicsError, match="no trajectory for actuated joint"):
        next(replay_steps(build_spec(pendulum()), [0.0, 1.0], {}))
    with pytest.raises(PhysicsError, match="increasing times"):
        next(replay_steps(build_spec(pendulum()), [0.0, 0.0], {"swing": [0, 0]}))


def swing_through_horizontal(fps):
    """Joint values (rad) at ``fps`` frames/s: from rest at -0.8 rad, up to 4.5 rad/s (cosine
    ramps of 0.4 s), cruising 0.5 s, back to rest; it crosses the horizontal (pi/2) midway
    between two frames. Returns (times, values)."""
    ramp, cruise, top = 0.4, 0.5, 4.5
    t = np.linspace(0.0, 2 * ramp + cruise, 20001)
    up = top * (1 - np.cos(np.pi * np.clip(t, 0, ramp) / ramp)) / 2
    down = top * (1 - np.cos(np.pi * np.clip(2 * ramp + cruise - t, 0, ramp) / ramp)) / 2
    v = np.minimum(up, down)
    q = -0.8 + np.concatenate([[0.0], np.cumsum((v[1:] + v[:-1]) / 2 * np.diff(t))])
    crossing = float(np.interp(math.pi / 2, q, t))
    start = (math.ceil((crossing + 0.3) * fps) + 0.5) / fps - crossing
    times = np.arange(int(math.ceil((start + t[-1] + 0.3) * fps)) + 1) / fps
    return times, np.interp(times - start, t, q)


def test_forces_at_every_step_are_the_torque_of_the_motion_peaks_between_frames_included():
    """The replay follows a cubic spline through the frames, at rest at the first and free
    at the last (its documented interpolation; scipy's CubicSpline is the reference here).
    Along it the joint needs tau = I qddot + m g l sin q. Per frame the replay reports the
    peak and the mean over its physics steps (those starting from the previous frame up to
    this one) of the servo's force and of mj_inverse's torque; both must be tau's within 2 %
    of its range at every frame. The servo is stiff (kp = 20 kN m/rad, natural frequency
    200 rad/s against a motion of about 10 rad/s): it lags the motion by tau / kp (0.5
    mrad), which changes its force by (m g l + I w^2) tau / kp, 0.05 %; the inverse
    dynamics' central differences at the 1 ms step are exact on a cubic. At 8 frames/s the
    frames alone miss the peak (at the horizontal, between two frames) by 2.6 %."""
    fps = 8
    times, values = swing_through_horizontal(fps)
    res = finish(replay_steps(build_spec(pendulum(effort=1000.0, limit=3.5)), times,
                              {"swing": values}))
    spline = CubicSpline(times, values, bc_type=((1, 0.0), (2, 0.0)))

    def tau(t):
        return I_ARM * spline(t, 2) + M * G * L * np.sin(spline(t))

    steps = 125  # 1 ms each: the spec's timestep, a whole number per frame
    want_peak, want_mean = np.zeros(len(times)), np.zeros(len(times))
    want_peak[0] = want_mean[0] = tau(times[0])
    for k in range(1, len(times)):
        t = tau(times[k - 1] + np.arange(steps) / (steps * fps))
        want_peak[k], want_mean[k] = t[np.abs(t).argmax()], t.mean()
    top = np.abs(want_peak).max()
    assert np.abs(tau(times)).max() < 0.98 * top  # the frames alone miss the peak
    assert res.steps == steps * (len(times) - 1) and res.settled
    for got, want in ((res.force, want_peak), (res.force_mean, want_mean),
                      (res.required, want_peak), (res.required_mean, want_mean)):
        np.testing.assert_allclose(got[:, 0], want, atol=0.02 * top, rtol=0)
    k = int(np.abs(want_peak).argmax())
    assert res.force[k, 0] == pytest.approx(want_peak[k], rel=0.02)
    assert res.units == ["N m"]


def two_link_arm() -> urdf.Robot:
    """Fixed to the world: ``shoulder`` (about y, 1 m up) to ``upper`` (1.5 kg at 0.2 m
    along x), ``elbow`` (0.4 m along) to ``fore`` (1 kg at 0.15 m)."""
    def link(name, mass, com):
        return urdf.Link(name, inertial=urdf.Inertial(mass=mass, origin=urdf.Origin((com, 0, 0)),
                                                       inertia=(1e-3, 0, 0, 1e-3, 0, 1e-3)))
    joints = (urdf.Joint("shoulder", "revolute", "world", "upper", origin=urdf.Origin((0, 0, 1.0)),
                         axis=(0, 1, 0), limit=urdf.Limit(-3, 3, 50.0, 1)),
              urdf.Joint("elbow", "revolute", "upper", "fore", origin=urdf.Origin((0.4, 0, 0)),
                         axis=(0, 1, 0), limit=urdf.Limit(-3, 3, 20.0, 1)))
    return urdf.Robot("arm2", (urdf.Link("world"), link("upper", 1.5, 0.2),
                               link("fore", 1.0, 0.15)), joints)


def static_torque(q1, q2) -> np.ndarray:
    """The torques (N m, about +y) that hold the arm at ``q1, q2``: a turn about +y takes x
    to -z, so a weight at horizontal distance x pulls with m g x and the joint holds -m g x."""
    x_upper, x_elbow = 0.2 * np.cos(q1), 0.4 * np.cos(q1)
    x_fore = x_elbow + 0.15 * np.cos(q1 + q2)
    return -G * np.array([1.5 * x_upper + 1.0 * x_fore, 1.0 * (x_fore - x_elbow)])


def test_a_two_link_arm_at_rest_holds_its_static_torque_from_the_first_frame():
    """Held still, the servos settle into the first frame before it: at every frame, from
    the first on, the force (peak and mean) is the static torque of the pose reached within
    1 %, and mj_inverse's torque that of the baked pose."""
    n = 25
    times = np.arange(n) / 24
    q = (-0.6, 0.9)
    res = finish(replay_steps(build_spec(two_link_arm()), times,
                              {"shoulder": np.full(n, q[0]), "elbow": np.full(n, q[1])}))
    assert res.settled and res.settle_s > 0
    reached = np.array([static_torque(*row) for row in res.q])
    for got in (res.force, res.force_mean):
        np.testing.assert_allclose(got, reached, rtol=0.01)
    np.testing.assert_allclose(res.required, np.tile(static_torque(*q), (n, 1)), rtol=1e-6)
    assert res.contacts == [[]] * n


def test_a_fixed_base_driven_through_the_ground_is_a_contact_with_its_force():
    """An arm fixed to the world at ground level (a joint about y at z = 0), a 5 cm ball at
    its tip, is driven from 0.6 rad up to 0.5 rad down: the ball meets the ground and the
    servo pushes at its 20 N m limit. The contact is reported, the ground named, with the
    normal force that balances the joint's moments: the ball's contact point lies at the
    joint's height, so its tangential force has no moment, and the servo's effort plus the
    weight's moment equal the normal force at lever x (the ball's distance)."""
    mass, length, effort = 2.0, 0.5, 20.0
    arm = urdf.Link("arm", inertial=urdf.Inertial(mass=mass, origin=urdf.Origin((length, 0, 0)),
                                                  inertia=(1e-3, 0, 0, 1e-3, 0, 1e-3)),
                    collisions=(urdf.Collision(geometry=urdf.Sphere(0.05),
                                               origin=urdf.Origin((length, 0, 0))),))
    hinge = urdf.Joint("hinge", "revolute", "world", "arm", axis=(0, 1, 0),
                       limit=urdf.Limit(-2, 2, effort, 1))
    robot = urdf.Robot("press", (urdf.Link("world"), arm), (hinge,))
    times = np.arange(49) / 24
    res = finish(replay_steps(build_spec(robot), times,
                              {"hinge": np.interp(times, [0, 1, 2], [-0.6, 0.5, 0.5])}))
    assert not res.floating and res.saturated()["hinge"][-1] == 48
    touching = [k for k, c in enumerate(res.contacts) if c]
    assert touching and touching[-1] == 48
    for k in range(36, 49):  # the last half second: at rest on the ground
        (t,) = res.contacts[k]
        assert t.label == "arm on ground" and t.geoms == ("ground", "arm__c0")
        x = length * math.cos(res.q[k, 0])
        assert t.normal == pytest.approx(effort / x + mass * G, rel=1e-3)
        assert t.tangential < 1e-3 * t.normal
    text = res.summary(first_frame=1)
    assert "Contacts: arm on ground (frames" in text and " N normal" in text
    assert "1 joints at their effort limit: hinge" in text


def test_a_trajectory_for_an_unknown_joint_or_not_finite_is_refused():
    with pytest.raises(PhysicsError, match="no joint 'nope' in the model"):
        finish(replay_steps(build_spec(pendulum()), [0.0, 1.0],
                            {"swing": [0.0, 0.1], "nope": [0.0, 0.0]}))
    with pytest.raises(PhysicsError, match="joint 'swing': 2 finite values needed"):
        finish(replay_steps(build_spec(pendulum()), [0.0, 1.0], {"swing": [0.0, np.nan]}))
