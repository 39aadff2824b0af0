"""The MuJoCo replay (issue 20, item 3) without Blender: a pendulum hanging from the world
by a revolute joint, its arm's mass m at distance l, driven slowly from hanging to 69 degrees:
the actuator's force is the static torque m g l sin q within 2 %; with an effort limit below
m g l it saturates, the joint lags, and the replay says so; a free-floating base is free."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("mujoco")

from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.physics.model import PhysicsError, build_spec  # noqa: E402
from vart_addon.physics.replay import replay_steps  # noqa: E402
from vart_addon.solver import se3  # noqa: E402

M, L, G = 2.0, 0.5, 9.81


def pendulum(effort=100.0, root="world") -> urdf.Robot:
    """``arm`` hanging from ``root`` by revolute ``swing`` about y at 1 m height; its mass M
    at L below the joint (a small sphere of inertia)."""
    arm = urdf.Link("arm", inertial=urdf.Inertial(mass=M, origin=urdf.Origin((0, 0, -L)),
                                                  inertia=(1e-3, 0, 0, 1e-3, 0, 1e-3)),
                    collisions=(urdf.Collision(geometry=urdf.Sphere(0.05),
                                               origin=urdf.Origin((0, 0, -L))),))
    swing = urdf.Joint("swing", "revolute", root, "arm", origin=urdf.Origin((0, 0, 1.0)),
                       axis=(0, 1, 0), limit=urdf.Limit(-2.0, 2.0, effort, 1.0))
    return urdf.Robot("pendulum", (urdf.Link(root), arm), (swing,))


def run(robot, seconds=30.0, last=1.2, fps=24, **kw):
    n = int(seconds * fps) + 1
    times = np.arange(n) / fps
    steps = replay_steps(build_spec(robot, **kw), times,
                         {"swing": np.linspace(0.0, last, n)})
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


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
