"""A body standing on a small foot in the MuJoCo replay (issue 31, item 3: the humanoid on one
foot), without Blender. The case is G1's on one foot, reduced to two links: a 32.7 kg body
whose centre of mass is 0.6 m up stands, through a servoed ankle roll joint with G1's 35 N m,
on a 0.6 kg foot touching the ground with four 5 mm spheres 55 mm apart across (G1's sole).

- The ground: with MuJoCo's default contact time constant (0.02 s) the light foot sank 0.8 mm
  into the ground, and with the centre of mass 10 mm beside the sole's middle (well inside
  its 27.5 mm) the sole tilted onto its edge and the body fell while settling: a softness
  no floor has. The replay's ground is as stiff as the time step allows
  (``physics.model.GROUND_STIFFNESS``): the foot sinks under 0.05 mm and stays flat.
- The settling: the ankle's servo is critically damped for what it moves with the base free
  (the foot), so the body swings on it almost undamped; before kinetic damping it still
  swung after the 3 s of settling. Now it comes to rest, and holds still from the first
  frame on.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.physics import model as PM  # noqa: E402
from vart_addon.physics.replay import SETTLE_S, replay_steps  # noqa: E402

FOOT_HALF_WIDTH = 0.0275  # m, the spheres' centres either side of the sole's middle
BODY_MASS, FOOT_MASS, HEIGHT = 32.7, 0.6, 0.6  # kg, kg, m (G1: 33.3 kg, its CoM 0.65 m up)


def standing(offset: float) -> urdf.Robot:
    """The foot (the root: free) and the body on an ankle roll joint (about x, 35 N m) 4 cm up;
    the body's centre of mass ``offset`` (m) beside the sole's middle, ``HEIGHT`` above."""
    spheres = tuple(urdf.Collision(geometry=urdf.Sphere(0.005), origin=urdf.Origin((x, y, 0.005)))
                    for x in (-0.05, 0.12) for y in (-FOOT_HALF_WIDTH, FOOT_HALF_WIDTH))
    foot = urdf.Link("foot", inertial=urdf.Inertial(
        mass=FOOT_MASS, origin=urdf.Origin((0.035, 0.0, 0.02)),
        inertia=(2e-4, 0, 0, 1.6e-3, 0, 1.7e-3)), collisions=spheres)
    body = urdf.Link("body", inertial=urdf.Inertial(
        mass=BODY_MASS, origin=urdf.Origin((0.0, offset, HEIGHT)),
        inertia=(1.0, 0, 0, 1.0, 0, 0.3)))
    ankle = urdf.Joint("ankle", "revolute", "foot", "body", origin=urdf.Origin((0.035, 0, 0.04)),
                       axis=(1, 0, 0), limit=urdf.Limit(-0.26, 0.26, 35.0, 10.0))
    return urdf.Robot("standing", (foot, body), (ankle,))


def held(robot: urdf.Robot, frames: int = 49):
    """The replay of ``robot`` held at its start for ``frames`` frames at 24 fps."""
    times = np.arange(frames) / 24
    steps = replay_steps(PM.build_spec(robot), times, {"ankle": np.zeros(frames)},
                         bodies={PM.FREE_JOINT: np.tile(np.eye(4), (frames, 1, 1))})
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def test_the_ground_is_as_stiff_as_the_time_step_allows():
    spec = PM.build_spec(standing(0.0)).spec
    ground = spec.geom(PM.GROUND)
    assert ground.priority == 1  # its contact parameters are the contact's
    assert ground.solref[0] == pytest.approx(PM.GROUND_STIFFNESS * spec.option.timestep)
    assert ground.solref[1] == 1.0  # critically damped


@pytest.mark.parametrize("offset", [0.0, 0.01])
def test_a_body_on_a_small_foot_stands_on_a_stiff_ground(offset):
    res = held(standing(offset))
    assert res.stays_up and res.fell_at is None, res.summary(first_frame=1)
    foot = res.base[-1]  # the root's (the foot's) world pose
    assert -foot[2, 3] < 5e-5  # it sinks less than 0.05 mm
    roll = np.degrees(np.arctan2(foot[2, 1], foot[2, 2]))
    assert abs(roll) < 0.1  # and stays flat on its four spheres


def test_a_body_swaying_on_its_ankle_comes_to_rest_before_the_first_frame():
    res = held(standing(0.01))
    assert res.settled and res.settle_s < SETTLE_S / 2
    # at rest from the first frame on: the ankle (sagging 6 mrad under its load) holds still
    # (it swung 10 mrad peak to peak over these frames when the settling did not damp)
    assert np.ptp(res.q[:, 0]) < 1e-3
    assert abs(res.q[0, 0]) > 1e-3
