"""A tool's waypoints without Blender (issue 33.2): which segment a frame is in and how far
along, the straight path's poses (origin on the line, rotation by slerp at constant angular
speed), the eased profile, the stored values of a pose and their checks."""
from __future__ import annotations

import numpy as np
import pytest

from vart_addon.solver import se3
from vart_addon.solver.errors import VartError
from vart_addon.solver.waypoints import eased, pose_values, quat_pose, waypoints


def random_pose(rng) -> np.ndarray:
    return se3.make_pose(se3.so3_exp(rng.normal(size=3)), rng.normal(size=3))


def path(rng, moves=(0, 0, 1, 0), eases=(0, 0, 0, 1)):
    T = [random_pose(rng) for _ in moves]
    return waypoints([1, 11, 21, 41], [pose_values(t) for t in T], moves, eases, "link 't'"), T


def test_stored_values_round_trip_a_pose():
    rng = np.random.default_rng(0)
    for _ in range(50):
        T = random_pose(rng)
        v = pose_values(T)
        assert len(v) == 7 and v[3] >= 0.0
        assert np.abs(quat_pose(v, "x") - T).max() < 1e-12
    # a quaternion of any length but zero
    assert np.allclose(quat_pose([0, 0, 0, 2.0, 0, 0, 0], "x"), np.eye(4))


def test_segments_and_fractions():
    wp, _ = path(np.random.default_rng(1))
    assert wp.segment(0).holding and wp.segment(0).a == 0  # before: holds the first
    assert wp.segment(99).holding and wp.segment(99).a == 3  # after: holds the last
    s = wp.segment(6)
    assert (s.a, s.b, s.move, s.s) == (0, 1, "LINEAR", 0.5)
    assert wp.segment(11).s == 1.0 and wp.segment(11).holding  # on a waypoint
    assert wp.segment(16).move == "JOINT"
    e = wp.segment(26)  # eased: a quarter of the time, less than a quarter of the way
    assert e.s == pytest.approx(eased(0.25)) and e.s < 0.25
    assert wp.fraction(e, 21) == 0.0 and wp.fraction(e, 41) == 1.0
    assert wp.fraction(e, 50) == 1.0  # clamped


def test_eased_starts_and_stops_with_zero_speed():
    u = np.linspace(0, 1, 1001)
    s = eased(u)
    assert s[0] == 0.0 and s[-1] == 1.0 and (np.diff(s) >= 0).all()
    d = np.gradient(s, u)
    assert abs(d[0]) < 1e-2 and abs(d[-1]) < 1e-2 and d.max() == pytest.approx(1.5, abs=1e-3)


def test_the_straight_path_slerps_at_constant_angular_speed():
    rng = np.random.default_rng(2)
    wp, T = path(rng)
    a, b = T[0], T[1]
    angles, points = [], []
    for f in range(1, 12):
        P = wp.pose(wp.segment(f))
        assert np.allclose(P[:3, :3] @ P[:3, :3].T, np.eye(3), atol=1e-12)
        points.append(P[:3, 3])
        angles.append(np.linalg.norm(se3.so3_log(a[:3, :3].T @ P[:3, :3])))
        assert wp.line_distance(wp.segment(f), P[:3, 3]) < 1e-12
    assert np.abs(wp.pose(wp.segment(1)) - a).max() < 1e-12
    assert np.abs(wp.pose(wp.segment(11)) - b).max() < 1e-12
    steps = np.diff(angles)
    assert np.allclose(steps, steps[0], atol=1e-9)  # one axis, constant speed
    assert np.allclose(np.diff(points, axis=0), (b[:3, 3] - a[:3, 3]) / 10, atol=1e-12)


def test_line_distance():
    wp, T = path(np.random.default_rng(3))
    seg = wp.segment(5)
    a, b = T[0][:3, 3], T[1][:3, 3]
    n = np.cross(b - a, [1.0, 0.0, 0.0])
    n /= np.linalg.norm(n)
    assert wp.line_distance(seg, 0.5 * (a + b) + 0.01 * n) == pytest.approx(0.01)
    beyond = b + (b - a)  # past the end: to the end point
    assert wp.line_distance(seg, beyond) == pytest.approx(np.linalg.norm(b - a))


@pytest.mark.parametrize("frames, values, moves, match", [
    ([1, 1], None, (0, 0), "increasing"),
    ([2, 1], None, (0, 0), "increasing"),
    ([1, 5], [[0, 0, 0, 0, 0, 0, 0]] * 2, (0, 0), "pose, frame 1: the rotation quaternion"),
    ([1, 5], [[0, 0, np.nan, 1, 0, 0, 0]] * 2, (0, 0), "frame 1: expected 7 finite"),
    ([1, 5], [[0, 0, 0, 1, 0, 0]] * 2, (0, 0), "expected 7 finite"),
    ([1, 5], [[0, 1e39, 0, 1, 0, 0, 0]] * 2, (0, 0), "pose, frame 1: 1e.39 is beyond the 1e.06"),
    ([1, 5], None, (0, 2), "move, frame 5: 2 is not a move: one of 0 .Linear., 1 .Joint."),
    ([1, 5], None, (0, 0.5), "move, frame 5: 0.5 is not a move"),
])
def test_bad_stored_waypoints_are_refused_naming_the_frame(frames, values, moves, match):
    values = values or [[0, 0, 0, 1, 0, 0, 0]] * len(frames)
    with pytest.raises(VartError, match=match):
        waypoints(frames, values, moves, [0] * len(frames), "link 't'")
