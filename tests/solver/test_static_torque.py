"""Static torque limits as goals (solver/static_torque.py, declared in goal_kinds.py): a 1-DoF
tree joint's gravity torque against the lever rule, its Jacobian against finite differences on
random trees (test_group_jacobians.py), and an arm asked to rise that stops where its shoulder would stall."""
import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3
from vart_addon.solver.static_torque import StaticTorqueBatch

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TIGHT = Settings(tol=1e-12, max_iterations=300)
G = 9.81
L1, L2, M1, M2 = 0.5, 0.4, 3.0, 2.0


def arm(shoulder=0.0, elbow=0.0, gravity=True):
    """A two-link arm fixed to the world: shoulder and elbow about y, both links along +x at
    zero (horizontal), masses at their middles; gravity -z (``gravity``: set on the linkage,
    where its potential also pulls the arm down, above targets; else off, and the torque
    goal takes standard gravity)."""
    lk = Linkage()
    if gravity:
        lk.set_gravity([0.0, 0.0, -G])
    lk.add_link("upper", pose=se3.make_pose(None, [0, 0, 1]), mass=M1, com=(L1 / 2, 0, 0))
    lk.add_link("fore", pose=se3.make_pose(None, [L1, 0, 1]), mass=M2, com=(L2 / 2, 0, 0))
    lk.add_link("tip", pose=se3.make_pose(None, [L1 + L2, 0, 1]))
    y = se3.make_pose(se3.so3_exp([-math.pi / 2, 0, 0]), [0, 0, 1])  # z along +y
    lk.add_joint("shoulder", "revolute", None, "upper", world_frame=y)
    lk.add_joint("elbow", "revolute", "upper", "fore",
                 world_frame=se3.make_pose(y[:3, :3], [L1, 0, 1]))
    lk.add_joint("wrist", "fixed", "fore", "tip",
                 world_frame=se3.make_pose(None, [L1 + L2, 0, 1]))
    lk.set_q("shoulder", [shoulder])
    lk.set_q("elbow", [elbow])
    return lk


def torques(lk) -> dict:
    solver = Solver(lk)
    out = {}
    for gp in solver._analysis():
        q = lk.model().q_from_joints()
        ev = gp.evaluate(q, jac=True)
        for b in gp.batches:
            if isinstance(b, StaticTorqueBatch):
                tau, _ = b.torques(ev.state)
                out.update({j.name: float(t) for j, t in zip(b.joints, tau)})
    return out


@pytest.mark.parametrize("shoulder, elbow", [(0.0, 0.0), (0.4, -0.7), (-1.2, 0.3)])
def test_the_torque_is_the_lever_rule(shoulder, elbow):
    lk = arm(shoulder, elbow)
    for name in ("shoulder", "elbow"):
        lk.set_goal("torque_limit", name, {"effort": 1000.0})
    got = torques(lk)
    # about +y, a positive angle turns +x toward -z: the arm's own weight pulls it that way,
    # so holding it takes a negative torque, the moments of the masses beyond each joint
    a1, a12 = shoulder, shoulder + elbow
    x1, x2 = L1 / 2 * math.cos(a1), L1 * math.cos(a1) + L2 / 2 * math.cos(a12)
    assert got["shoulder"] == pytest.approx(-G * (M1 * x1 + M2 * x2), rel=1e-12)
    assert got["elbow"] == pytest.approx(-G * M2 * L2 / 2 * math.cos(a12), rel=1e-12)


def test_an_arm_asked_to_rise_stops_where_its_shoulder_would_stall():
    # hanging straight down (-90 degrees about y is up: +x -> +z; +90: down), asked up to
    # horizontal; the shoulder may give 70 % of what horizontal takes
    full = 9.80665 * (M1 * L1 / 2 + M2 * (L1 + L2 / 2))
    for limited in (False, True):
        lk = arm(shoulder=math.pi / 2, gravity=False)
        if limited:
            lk.set_goal("torque_limit", "shoulder", {"effort": 0.7 * full})
        lk.set_target("shoulder", [0.0])
        lk.lock_joint("elbow")
        st = Solver(lk, TIGHT).solve()
        q = lk.joint("shoulder").q[0]
        if not limited:
            assert q == pytest.approx(0.0, abs=1e-9) and not st.unmet
            continue
        assert st.unmet == ["target of joint 'shoulder'"]
        assert math.cos(q) == pytest.approx(0.7, abs=1e-6)  # the torque at its limit
        assert abs(torques(lk)["shoulder"]) <= 0.7 * full * (1 + 1e-9)


def test_values_are_checked():
    lk = arm()
    with pytest.raises(VartError, match="effort: must be >= 0"):
        lk.set_goal("torque_limit", "shoulder", {"effort": -1.0})
    lk.add_link("ball", pose=se3.make_pose(None, [2, 0, 1]), mass=1.0)
    lk.add_joint("ball_joint", "spherical", "tip", "ball",
                 world_frame=se3.make_pose(None, [2, 0, 1]))
    with pytest.raises(VartError, match="1-DoF joints, this one has 3"):
        lk.set_goal("torque_limit", "ball_joint", {"effort": 5.0})


def test_two_limits_a_step_would_break_at_once_are_both_kept():
    """Fixed defect: the stepper compared guards (tuples holding arrays) by equality, and
    raised when a step broke more than one (found by the random-mechanism tests, seed
    27693)."""
    full = 9.80665 * (M1 * L1 / 2 + M2 * (L1 + L2 / 2))
    lk = arm(shoulder=math.pi / 2, gravity=False)
    lk.set_goal("torque_limit", "shoulder", {"effort": 0.7 * full})
    lk.set_goal("torque_limit", "elbow", {"effort": 0.5 * 9.80665 * M2 * L2 / 2})
    lk.set_target("shoulder", [0.0])
    lk.set_target("elbow", [-math.pi / 2])
    st = Solver(lk, TIGHT).solve()
    assert st.level("limit").satisfied
    tau = torques(lk)
    assert abs(tau["shoulder"]) <= 0.7 * full * (1 + 1e-9)
    assert abs(tau["elbow"]) <= 0.5 * 9.80665 * M2 * L2 / 2 * (1 + 1e-9)


def test_a_torque_limit_at_the_posture_level_is_a_wish_a_target_overrides():
    full = 9.80665 * (M1 * L1 / 2 + M2 * (L1 + L2 / 2))
    lk = arm(shoulder=math.pi / 2, gravity=False)
    lk.set_goal("torque_limit", "shoulder", {"effort": 0.7 * full, "level": "posture"})
    assert lk.goal("torque_limit", "shoulder")["level"] == "posture"
    lk.set_target("shoulder", [0.0])
    lk.lock_joint("elbow")
    st = Solver(lk, TIGHT).solve()
    assert not st.unmet and lk.joint("shoulder").q[0] == pytest.approx(0.0, abs=1e-9)


def test_the_guards_rate_is_the_jacobian_along_the_step(vh):
    """What the guards compute at every step (the torques' rate along it, without the
    Jacobian) is the Jacobian times the step, on random trees with random gravity."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        lk = vh.random_tree(rng, closures=1)
        for name in lk.links:
            lk.set_mass(name, float(rng.uniform(0.1, 5.0)), rng.normal(0, 0.2, 3))
        lk.set_gravity(rng.normal(0, 5.0, 3))
        for j in lk.joints.values():
            if j.is_tree and j.dof == 1:
                lk.set_goal("torque_limit", j.name, {"effort": 1.0})
        for gp in Solver(lk)._analysis():
            ev = gp.evaluate(lk.model().q_from_joints(), jac=True)
            for b in gp.batches:
                if isinstance(b, StaticTorqueBatch):
                    _, ci = b.torques(ev.state)
                    step = rng.normal(size=len(gp.cols))
                    np.testing.assert_allclose(b.rate(ev.state, ci, step),
                                               b._jacobian(ev.state, ci) @ step,
                                               rtol=1e-9, atol=1e-9)
