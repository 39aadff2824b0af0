"""Contacts found from geometry and pins, slip of loaded contacts, and the statics of a range
of poses (issue 30, items 2 and 6): known cases. Blender-free."""
from __future__ import annotations

import math

import numpy as np
import pytest

from frame_steps import run
from pinocchio_check import ROBOTS
from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.physics.feasibility import Thresholds, check_poses_steps
from vart_addon.physics.ground_contacts import MAX_POINTS, Pin, Touch, find_contacts, group_slip
from vart_addon.physics.static_model import StaticModel
from vart_addon.physics.support import support_margin
from vart_addon.solver import Linkage, se3

R_WHEEL, HALF_TRACK, FRAMES = 0.2, 0.3, 25




def rim(n=32, r=R_WHEEL, w=0.02):
    """A wheel's rim vertices in its frame (axle along y)."""
    a = 2 * math.pi * np.arange(n) / n
    return np.concatenate([np.stack([r * np.cos(a), np.full(n, s), r * np.sin(a)], axis=1)
                           for s in (-w, w)])


def cart():
    """A chassis (floating, 10 kg, at axle height) on two wheels (2 kg, revolute about y)."""
    lk = Linkage()
    lk.add_link("chassis", pose=se3.make_pose(None, (0, 0, R_WHEEL)), mass=10.0)
    R = se3.so3_exp(np.array([-math.pi / 2, 0.0, 0.0]))  # joint z along world y
    for side, y in (("left", HALF_TRACK), ("right", -HALF_TRACK)):
        lk.add_link(side, pose=se3.make_pose(None, (0, y, R_WHEEL)), mass=2.0)
        lk.add_joint(f"{side}_axle", "revolute", "chassis", side,
                     world_frame=se3.make_pose(R, (0, y, R_WHEEL)))
    return lk


def cart_poses(x, spin):
    """Per frame: chassis at x (m) along world x, wheels turned by ``spin`` (rad about y)."""
    out = []
    for xi, a in zip(x, spin):
        R = se3.so3_exp(np.array([0.0, a, 0.0]))
        out.append({"chassis": se3.make_pose(None, (xi, 0, R_WHEEL)),
                    "left": se3.make_pose(R, (xi, HALF_TRACK, R_WHEEL)),
                    "right": se3.make_pose(R, (xi, -HALF_TRACK, R_WHEEL))})
    return out


POINTS = {"left": rim(), "right": rim()}


def test_a_wheel_dragged_one_metre_slides_one_metre_under_load():
    lk = cart()
    x = np.linspace(0.0, 1.0, FRAMES)
    rep = run(check_poses_steps(StaticModel(lk), range(1, FRAMES + 1),
                                cart_poses(x, np.zeros(FRAMES)), POINTS))
    assert rep.balanced.all()
    slip = rep.total_slip()
    assert set(slip) == {"ground under left", "ground under right"}
    for g, s in slip.items():
        assert s == pytest.approx(1.0, abs=1e-9), g
        # each wheel carries half the weight
        np.testing.assert_allclose(rep.load[g], 0.5 * 14.0 * 9.81, rtol=1e-6)
    step = 1.0 / (FRAMES - 1)
    assert sorted(rep.failures()) == list(range(2, FRAMES + 1))  # every step slides
    assert all(why[0][0] == "slip" and "slide" in why[0][1] for why in rep.failures().values())
    assert step > Thresholds().slip


def test_a_wheel_rolling_one_metre_does_not_slip():
    lk = cart()
    x = np.linspace(0.0, 1.0, FRAMES)
    rep = run(check_poses_steps(StaticModel(lk), range(1, FRAMES + 1),
                                cart_poses(x, x / R_WHEEL), POINTS))
    a = (1.0 / (FRAMES - 1)) / R_WHEEL  # the turn per frame step
    # a rim vertex b rad ahead of straight down travels r a + r (sin(b - a) - sin b) as
    # the wheel turns by a; the lowest vertex is at most half a side (pi / 32) away
    b = np.linspace(-math.pi / 32, math.pi / 32, 101)
    bound = np.abs(R_WHEEL * a + R_WHEEL * (np.sin(b - a) - np.sin(b))).max()
    for g, s in rep.slip.items():
        assert s.max() <= bound * (1 + 1e-6), g
    assert rep.failures()  # a fast roll (1 m/s) of a coarse wheel beats the default 0.5 mm
    relaxed = Thresholds(slip=bound * (1 + 1e-6))
    rep = run(check_poses_steps(StaticModel(lk), range(1, FRAMES + 1),
                                cart_poses(x, x / R_WHEEL), POINTS, thresholds=relaxed))
    assert not rep.failures()


def test_a_pinned_wheel_steering_about_its_contact_does_not_slip():
    lk = Linkage()
    lk.add_link("wheel", pose=se3.make_pose(None, (0, 0, R_WHEEL)), mass=5.0)
    pin = Pin("pin", "wheel", np.array([0.0, 0.0, -R_WHEEL]))
    poses = [{"wheel": se3.make_pose(se3.so3_exp(np.array([0, 0, a])), (0, 0, R_WHEEL))}
             for a in np.linspace(0, 1.5, 10)]
    rep = run(check_poses_steps(StaticModel(lk), range(10), poses, {"wheel": rim()}, [pin]))
    assert list(rep.slip) == ["pin"]
    assert rep.slip["pin"].max() < 1e-12
    assert rep.load["pin"] == pytest.approx(np.full(10, 5.0 * 9.81))
    # a single point carries it: balanced where the centre of mass is above it
    assert rep.balanced.all()


def test_a_loaded_wheel_lifted_is_a_lift_off():
    lk = cart()
    poses = cart_poses(np.zeros(6), np.zeros(6))
    for P in poses[3:]:
        P["left"] = P["left"].copy()
        P["left"][2, 3] += 0.05
    rep = run(check_poses_steps(StaticModel(lk), range(6), poses, POINTS))
    assert rep.lift_off == [(3, "ground under left")]
    assert rep.load["ground under left"][3:].max() == 0.0
    assert list(rep.balanced) == [True] * 3 + [False] * 3  # a line contact alone tips


def test_contacts_are_the_corners_of_what_touches():
    sole = np.array([[x, y, 0.0] for x in np.linspace(-0.1, 0.15, 11)
                     for y in np.linspace(-0.05, 0.05, 5)])
    T = se3.make_pose(None, (0.3, 0.2, 0.004))  # within the 5 mm tolerance
    cs, touches = find_contacts({"foot": T}, {"foot": sole})
    assert len(touches["ground under foot"].local) == len(sole)  # resting flat: all touch
    assert len(cs) == 4 and {c.name for c in cs} == {"ground under foot"}
    np.testing.assert_allclose(sorted(c.point[0] for c in cs), [0.2, 0.2, 0.45, 0.45])
    assert find_contacts({"foot": se3.make_pose(None, (0, 0, 0.006))}, {"foot": sole}) == ([], {})
    disc = np.array([[0.1 * math.cos(a), 0.1 * math.sin(a), 0.0]
                     for a in np.linspace(0, 2 * math.pi, 40, endpoint=False)])
    assert len(find_contacts({"d": np.eye(4)}, {"d": disc})[0]) == MAX_POINTS
    # a pin wins over its link's geometry
    pin = Pin("hold", "foot", np.zeros(3))
    cs, _ = find_contacts({"foot": T}, {"foot": sole}, [pin])
    assert [c.name for c in cs] == ["hold"]


def test_group_slip_of_a_spinning_sole_is_its_corners_travel():
    corners = np.array([[x, y, 0.0] for x in (-0.1, 0.1) for y in (-0.05, 0.05)])
    a = 0.3
    T1 = se3.make_pose(se3.so3_exp(np.array([0, 0, a])), None)
    r = math.hypot(0.1, 0.05)
    touch = Touch("foot", corners, np.array([0, 0, 1.0]))
    assert group_slip(touch, np.eye(4), T1) == pytest.approx(2 * r * math.sin(a / 2))


def test_a_quadruped_lifting_a_foot_is_unbalanced_exactly_where_its_centre_of_mass_leaves():
    """go2: frames where the front-left foot is lifted and the trunk shifted toward it; the
    statics says unbalanced exactly at the frames where the centre of mass lies outside the
    other three feet (computed here from the poses)."""
    robot = urdf.read_urdf(str(ROBOTS / "go2_description/urdf/go2.urdf"))
    lk, _ = linkage_from_urdf(robot)
    base = lk.poses()
    feet = ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]
    low = min(base[f][2, 3] for f in feet)
    base = {n: se3.make_pose(None, (0, 0, -low)) @ T for n, T in base.items()}
    sm = StaticModel(lk, {j.name: j.limit.effort for j in robot.joints if j.limit})
    frames, poses = list(range(1, 11)), []
    shifts = [0.0, 0.0, 0.0, 0.05, 0.15, 0.25, 0.3, 0.1, 0.0, 0.0]
    for k, s in enumerate(shifts):
        P = dict(base)
        lifted = 3 <= k <= 7
        if lifted:
            P["FL_foot"] = se3.make_pose(None, (0, 0, 0.05)) @ base["FL_foot"]
        P["base"] = se3.make_pose(None, (0, s, 0)) @ base["base"]  # the trunk to the left
        poses.append(P)
    points = {f: np.zeros((1, 3)) for f in feet}
    rep = run(check_poses_steps(sm, frames, poses, points))
    for k, P in enumerate(poses):
        com = sm.frame(P).com
        down = [f for f in feet if P[f][2, 3] < 0.005]
        inside = support_margin(com[:2], [P[f][:2, 3] for f in down]) > 0
        assert rep.balanced[k] == inside, k
        assert rep.margin[k] == pytest.approx(
            support_margin(com[:2], [P[f][:2, 3] for f in down]), abs=1e-12)
    assert not rep.balanced.all() and rep.balanced[:3].all()
    assert [f for f, why in rep.failures().items() if why[0][0] == "balance"] == \
        [frames[k] for k in range(10) if not rep.balanced[k]]
