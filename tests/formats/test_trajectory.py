"""Trajectory model: validation, unwrap, waypoint decimation, joint selection, limit checks.

Units: seconds, radians (angular), metres (linear).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vart_addon.formats.trajectory.model import (
    Trajectory,
    Violation,
    check_limits,
    decimate,
    format_violations,
    select,
    unwrap,
    waypoint_indices,
)

TWO_PI = 2 * math.pi


def wrap(a):
    """Angles wrapped into [-pi, pi)."""
    return (np.asarray(a) + math.pi) % TWO_PI - math.pi


def simple(n=5, **kw):
    t = np.arange(n) / 24.0
    p = np.c_[np.sin(t), 0.1 * t, t]
    kw.setdefault("kinds", ["angular", "linear", "angular"])
    return Trajectory(["knee", "slide", "tilt"], t, p, **kw)


# ---------------------------------------------------------------- validation


def test_defaults_and_views():
    tr = Trajectory(["a", "b"], [0.0, 1.0], [[1, 2], [3, 4]])
    assert tr.n_times == 2 and tr.n_joints == 2
    assert tr.kinds == ("angular", "angular") and tr.units == ("rad", "rad")
    assert tr.continuous == (False, False) and tr.virtual == (False, False)
    assert tr.velocity_limits == (None, None)
    assert np.all(tr.lower == -np.inf) and np.all(tr.upper == np.inf)
    assert tr.positions.dtype == float and tr.joint_names == ("a", "b")


def test_arrays_are_read_only_and_copied():
    p = np.zeros((2, 1))
    tr = Trajectory(["a"], [0, 1], p)
    p[0, 0] = 5.0
    assert tr.positions[0, 0] == 0.0
    with pytest.raises(ValueError):
        tr.positions[0, 0] = 1.0
    with pytest.raises(ValueError):
        tr.times[0] = 1.0


def test_empty_trajectory_is_allowed():
    tr = Trajectory(["a", "b"], [], [])
    assert tr.positions.shape == (0, 2) and tr.n_times == 0
    assert decimate(tr).n_times == 0 and unwrap(tr) == tr and check_limits(tr) == []


@pytest.mark.parametrize("kwargs, match", [
    (dict(positions=[[0.0, float("nan"), 0.0]] * 5), r"positions must be finite: nan \(joint 'slide' at t=0.0 s\)"),
    (dict(positions=[[0.0, 0.0, float("inf")]] * 5), r"positions must be finite: inf \(joint 'tilt'"),
    (dict(times=[0, 1, 2, float("nan"), 4]), r"times must be finite: nan \(sample 3\)"),
    (dict(times=[0, 1, 1, 2, 3]), r"strictly increasing: sample 2 \(t=1.0 s\) does not come after t=1.0 s"),
    (dict(times=[0, 2, 1, 3, 4]), r"strictly increasing: sample 2"),
    (dict(times=[[0, 1, 2, 3, 4]]), r"times must be one-dimensional"),
    (dict(positions=np.zeros((5, 2))), r"positions have shape \(5, 2\), expected .* \(5, 3\)"),
    (dict(positions=np.zeros((4, 3))), r"positions have shape \(4, 3\)"),
    (dict(positions=[["a", 0, 0]] * 5), r"positions must be numbers"),
    (dict(joint_names=["a", "b", "a"]), r"duplicate joint names: 'a'"),
    (dict(joint_names=["a", "", "c"]), r"joint name '' must be non-empty"),
    (dict(joint_names=["a", "b\nc", "d"]), r"control characters"),
    (dict(joint_names=["a", "b\x85c", "d"]), r"control characters"),
    (dict(joint_names=["a", "b\ud800", "d"]), r"control characters"),
    (dict(joint_names=["a", " b", "c"]), r"surrounding spaces"),
    (dict(joint_names="abc"), r"joint_names must be a sequence of strings"),
    (dict(joint_names=["a", 2, "c"]), r"joint_names must be a sequence of strings"),
    (dict(kinds=["angular", "rotary", "linear"]), r"joint 'slide': kind 'rotary' must be 'angular' or 'linear'"),
    (dict(kinds=["angular"]), r"kinds has 1 entries for 3 joints"),
    (dict(virtual=[True, False]), r"virtual has 2 entries for 3 joints"),
    (dict(lower=[0, 0]), r"lower limits have shape \(2,\) for 3 joints"),
    (dict(lower=[0, float("nan"), 0]), r"lower limits must not be NaN"),
    (dict(lower=[1, 0, 0], upper=[0, 1, 1]), r"joint 'knee': lower limit 1.0 is above upper 0.0"),
    (dict(continuous=[False, True, False]), r"joint 'slide': only angular joints can be continuous"),
    (dict(continuous=[True, False, False], upper=[3, math.inf, math.inf]), r"joint 'knee': a continuous joint has no position limits"),
    (dict(velocity_limits=[None, 0.0, None]), r"joint 'slide': velocity limit 0.0 must be positive"),
    (dict(velocity_limits=[None, -1, None]), r"velocity limit -1.0 must be positive"),
    (dict(velocity_limits=[None, float("nan"), None]), r"velocity limit nan must be positive"),
    (dict(velocity_limits=[None, "fast", None]), r"velocity limit 'fast' is not a number"),
])
def test_validation_messages(kwargs, match):
    base = dict(joint_names=["knee", "slide", "tilt"], times=np.arange(5.0),
                positions=np.zeros((5, 3)), kinds=["angular", "linear", "angular"])
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Trajectory(**base)


def test_equality_rows_columns_replace():
    tr = simple(lower=[-1, -2, -3], upper=[1, 2, 3], velocity_limits=[1, None, 2],
                virtual=[False, True, False])
    assert tr == simple(lower=[-1, -2, -3], upper=[1, 2, 3], velocity_limits=[1, None, 2],
                        virtual=[False, True, False])
    assert tr != simple() and tr != "x"
    sub = tr.columns([2, 0])
    assert sub.joint_names == ("tilt", "knee") and sub.velocity_limits == (2.0, 1.0)
    assert list(sub.lower) == [-3, -1] and sub.kinds == ("angular", "angular")
    np.testing.assert_array_equal(sub.positions, tr.positions[:, [2, 0]])
    assert tr.rows([0, 4]).times.tolist() == [tr.times[0], tr.times[4]]
    with pytest.raises(ValueError, match="strictly increasing"):
        tr.rows([4, 0])


# ---------------------------------------------------------------- unwrap


def test_unwrap_ten_turns_is_monotonic_and_exact():
    theta = np.linspace(0.0, 10 * TWO_PI, 1001)  # 10 turns, 0.063 rad per frame
    tr = Trajectory(["wheel", "arm"], np.arange(1001) / 24, np.c_[wrap(theta), wrap(theta)],
                    continuous=[True, False])
    out = unwrap(tr)
    assert np.all(np.diff(out.positions[:, 0]) > 0)
    np.testing.assert_allclose(out.positions[:, 0], theta, atol=1e-9)
    assert out.positions[-1, 0] == pytest.approx(20 * math.pi)
    np.testing.assert_array_equal(out.positions[:, 1], tr.positions[:, 1])  # not continuous


def test_unwrap_keeps_first_value_and_untouched_samples_exact():
    p = np.array([[7.0], [7.1], [7.2]])  # beyond pi, already continuous: never wrapped
    tr = Trajectory(["w"], [0, 1, 2], p, continuous=[True])
    assert unwrap(tr) == tr
    assert unwrap(Trajectory(["w"], [0.0], [[-9.0]], continuous=[True])).positions[0, 0] == -9.0


@settings(max_examples=150, deadline=None)
@given(st.floats(-50, 50), st.lists(st.floats(-math.pi + 1e-6, math.pi - 1e-6), min_size=1, max_size=60),
       st.data())
def test_unwrap_property(start, steps, data):
    """Samples given with arbitrary whole turns added come back continuous: consecutive
    differences within pi, the first sample unchanged, the true motion up to one constant."""
    theta = start + np.concatenate([[0.0], np.cumsum(steps)])
    turns = data.draw(st.lists(st.integers(-5, 5), min_size=len(theta), max_size=len(theta)))
    given_ = theta + TWO_PI * np.array(turns)
    tr = Trajectory(["w"], np.arange(len(theta)), given_[:, None], continuous=[True])
    out = unwrap(tr).positions[:, 0]
    assert out[0] == given_[0]
    assert np.all(np.abs(np.diff(out)) <= math.pi + 1e-9)
    np.testing.assert_allclose(out - theta, given_[0] - theta[0], atol=1e-9)


# ---------------------------------------------------------------- decimation


@st.composite
def smooth_trajectories(draw):
    """A few joints, each a sum of sinusoids plus a drift, sampled at a frame rate."""
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 250))
    fps = draw(st.sampled_from([24.0, 25.0, 30.0, 60.0, 120.0]))
    t = np.arange(n) / fps + draw(st.floats(-10, 10))
    kinds, cols = [], []
    for _ in range(m):
        kind = draw(st.sampled_from(["angular", "linear"]))
        scale = 1.0 if kind == "angular" else 0.3
        col = draw(st.floats(-1, 1)) * scale * t
        for _ in range(draw(st.integers(1, 3))):
            a = draw(st.floats(0, 2)) * scale
            w = draw(st.floats(0.05, 6))
            ph = draw(st.floats(0, TWO_PI))
            col = col + a * np.sin(w * t + ph)
        kinds.append(kind)
        cols.append(col)
    return Trajectory([f"j{i}" for i in range(m)], t, np.array(cols).T, kinds=kinds)


@settings(max_examples=200, deadline=None)
@given(smooth_trajectories(), st.floats(0.005, 0.2), st.floats(0.002, 0.05))
def test_decimation_property(tr, angle_step, length_step):
    idx = waypoint_indices(tr, angle_step, length_step)
    thr = np.array([angle_step if k == "angular" else length_step for k in tr.kinds])
    p, n = tr.positions, tr.n_times
    assert idx[0] == 0 and idx[-1] == n - 1 and np.all(np.diff(idx) > 0)
    frame = np.abs(np.diff(p, axis=0))  # one frame's motion, per joint
    for a, b in zip(idx[:-1], idx[1:]):
        inner = np.abs(p[a + 1:b] - p[a])
        assert np.all(inner < thr), "a skipped sample moved past the threshold"
        # the waypoint itself: threshold plus one frame's motion at most
        assert np.all(np.abs(p[b] - p[a]) <= thr + frame[b - 1] + 1e-12)
        assert np.all(np.abs(p[b] - p[a]) <= thr + frame.max(axis=0) + 1e-12)
        if b != n - 1:  # kept for a reason: some joint reached its threshold
            assert np.any(np.abs(p[b] - p[a]) >= thr)
    dec = decimate(tr, angle_step, length_step)
    assert dec == tr.rows(idx)


def test_decimation_defaults_two_degrees_and_two_centimetres():
    t = np.arange(101) / 100.0
    ang = np.radians(np.arange(101) * 0.6)  # 0.6 deg per frame: 1.8 < 2 <= 2.4, every 4th
    tr = Trajectory(["a"], t, ang[:, None])
    assert waypoint_indices(tr).tolist() == list(range(0, 101, 4))
    lin = Trajectory(["s"], t, (t * 0.6)[:, None], kinds=["linear"])  # 6 mm per frame
    assert waypoint_indices(lin).tolist() == list(range(0, 101, 4))
    still = Trajectory(["a"], t, np.zeros((101, 1)))
    assert waypoint_indices(still).tolist() == [0, 100]
    assert waypoint_indices(still, every_frame=True).tolist() == list(range(101))
    assert waypoint_indices(still.rows([0])).tolist() == [0]


def test_decimation_any_joint_triggers():
    t = np.arange(6.0)
    p = np.c_[[0, 0, 0, 0, 0, 0], [0, 0.01, 0.02, 0.021, 0.05, 0.05]]
    tr = Trajectory(["a", "s"], t, p, kinds=["angular", "linear"])
    assert waypoint_indices(tr).tolist() == [0, 2, 4, 5]  # 0.02 m reached exactly at frame 2


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "2", None, True])
def test_decimation_rejects_bad_thresholds(bad):
    with pytest.raises(ValueError, match="angle_step must be a positive finite number"):
        decimate(simple(), angle_step=bad)
    with pytest.raises(ValueError, match="length_step must be a positive finite number"):
        decimate(simple(), length_step=bad)


# ---------------------------------------------------------------- select


def test_select_real_joints_by_default():
    tr = simple(virtual=[False, True, False], velocity_limits=[1, 2, 3])
    real = select(tr)
    assert real.joint_names == ("knee", "tilt") and real.velocity_limits == (1.0, 3.0)
    assert select(tr, include_virtual=True) == tr
    assert select(simple()) == simple()


def test_select_nothing_to_export():
    with pytest.raises(ValueError, match="nothing to export: all 3 joints are virtual"):
        select(simple(virtual=[True] * 3))
    with pytest.raises(ValueError, match="nothing to export: the trajectory has no joints"):
        select(Trajectory([], [0.0, 1.0], np.zeros((2, 0))))


# ---------------------------------------------------------------- limits


def test_check_limits_positions_and_velocities():
    t = [0.0, 0.5, 1.0, 1.5]
    p = np.array([[0.0, 0.0], [1.2, 0.1], [0.4, -0.3], [0.5, -0.3]])
    tr = Trajectory(["knee", "slide"], t, p, kinds=["angular", "linear"],
                    lower=[-1, -0.2], upper=[1, 0.2], velocity_limits=[2.0, None])
    assert check_limits(tr) == [
        Violation("knee", 0.0, "velocity", 2.4, 2.0),
        Violation("knee", 0.5, "position", 1.2, 1.0),
        Violation("slide", 1.0, "position", -0.3, -0.2),
        Violation("slide", 1.5, "position", -0.3, -0.2),
    ]
    tr2 = tr.replace(positions=p * [[1, 1], [1, 1], [-1, 1], [1, 1]])  # 1.2 -> -0.4: -3.2 rad/s
    assert [(v.time, v.value, v.limit) for v in check_limits(tr2) if v.kind == "velocity"] == [
        (0.0, 2.4, 2.0), (0.5, -3.2, -2.0), (1.0, 1.8, 2.0)][:2]
    lines = format_violations(check_limits(tr2), {"slide": "m"})
    assert lines == [
        "knee: velocity over 2 rad/s at t=0..0.5 s (2 samples, worst -3.2)",
        "knee: position above 1 rad at t=0.5 s (1 sample, worst 1.2)",
        "slide: position below -0.2 m at t=1..1.5 s (2 samples, worst -0.3)",
    ]
    assert format_violations(check_limits(tr), max_lines=2)[-1] == "... and 2 more"


def test_check_limits_tolerance_and_edges():
    tr = Trajectory(["a"], [0.0, 1.0], [[1.0], [1.0 + 1e-12]], upper=[1.0], velocity_limits=[1e-11])
    assert check_limits(tr) == []  # within the default 1e-9 tolerance
    assert [v.kind for v in check_limits(tr, tol=0.0)] == ["position"]
    assert check_limits(tr.replace(upper=[1.0 + 1e-12]), tol=0.0) == []  # exactly at the limit
    # limits exactly met are fine; infinite limits and no velocity limit never report
    free = Trajectory(["a"], [0.0, 1e-3], [[-1e9], [1e9]])
    assert check_limits(free) == []
    assert check_limits(tr.rows([0])) == []  # one sample: no velocity


def test_format_violations_velocity_line():
    v = [Violation("knee", 0.25, "velocity", -3.0, -2.0)]
    assert format_violations(v) == ["knee: velocity over 2 rad/s at t=0.25 s (1 sample, worst -3)"]
