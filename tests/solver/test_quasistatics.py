"""Quasistatics: the potential level (gravity on link masses, springs on joints) settles a
mechanism at a minimum of its potential energy, below the invariant, limit and lock levels.

References: closed forms, scipy.optimize.minimize_scalar on the same 1-DoF energy, and a
brute-force scan of the four-bar's potential over the crank angle.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from vart_addon.solver import Linkage, Settings, Solver, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

G = 9.81


def pendulum(start, mass=2.0, length=0.8, gravity=(0, -G, 0)):
    lk = Linkage()
    lk.add_link("bob", mass=mass, com=(length, 0, 0))
    lk.add_joint("pivot", "revolute", None, "bob")
    lk.set_q("pivot", [start])
    lk.set_gravity(gravity)
    return lk


def com_world(lk, link):
    T = lk.pose(link)
    return T[:3, :3] @ lk.link(link).com + T[:3, 3]


@pytest.mark.parametrize("start", [0.0, 1.0, 2.5, -3.0, 3.1, -1.0])
def test_a_pendulum_settles_hanging_down(start):
    lk = pendulum(start)
    st = Solver(lk, Settings(max_iterations=300)).solve()
    np.testing.assert_allclose(com_world(lk, "bob"), [0, -0.8, 0], atol=1e-7)
    assert st.level("potential").error == pytest.approx(-2.0 * G * 0.8, abs=1e-9)
    assert st.level("potential").active
    assert not st.out_of_budget


def test_a_spherical_pendulum_settles_below_its_pivot():
    lk = Linkage()
    lk.add_link("bob", pose=se3.make_pose(None, [0, 0, 1.0]), mass=1.0, com=(0.3, 0.2, -0.5))
    lk.add_joint("ball", "spherical", None, "bob", world_frame=se3.make_pose(None, [0, 0, 1.0]))
    lk.set_q("ball", [0.4, -0.3, 0.2])
    lk.set_gravity([0, 0, -G])
    Solver(lk, Settings(max_iterations=300)).solve()
    r = math.sqrt(0.3 ** 2 + 0.2 ** 2 + 0.5 ** 2)
    np.testing.assert_allclose(com_world(lk, "bob"), [0, 0, 1.0 - r], atol=1e-7)


@pytest.mark.parametrize("jtype, start, rest, k", [("revolute", 1.2, 0.3, 3.0),
                                                   ("prismatic", 1.2, -0.3, 300.0),
                                                   ("helical", -2.0, 4.0, 0.5)])
def test_a_spring_joint_returns_to_rest(jtype, start, rest, k):
    lk = Linkage()
    lk.add_link("a")
    lk.add_joint("j", jtype, None, "a", pitch=0.1)
    lk.set_q("j", [start])
    lk.set_stiffness("j", k, rest=[rest])
    st = Solver(lk, Settings(max_iterations=300)).solve()
    assert lk.joint("j").q[0] == pytest.approx(rest, abs=1e-7)
    assert st.level("potential").error == pytest.approx(0.0, abs=1e-10)  # spring energy (J)


def test_a_spring_on_a_closure_joint_drives_the_four_bar(vh):
    fb = vh.FourBar()
    fb.lk.set_stiffness("ground", 10.0, rest=[0.2])
    st = Solver(fb.lk, Settings(max_iterations=300)).solve()
    assert st.level("invariant").error <= 1e-9
    assert fb.lk.joint_q(fb.lk.joint("ground"))[0] == pytest.approx(0.2, abs=1e-7)


def test_a_zero_stiffness_spring_does_nothing():
    lk = Linkage()
    lk.add_link("a")
    lk.add_joint("j", "revolute", None, "a")
    lk.set_q("j", [1.0])
    lk.set_stiffness("j", 0.0, rest=[0.0])
    st = Solver(lk).solve()
    assert lk.joint("j").q[0] == 1.0 and st.iterations == 0


@pytest.mark.parametrize("k, rest", [(20.0, 0.5), (5.0, 2.0), (100.0, -1.0)])
def test_spring_against_gravity_matches_the_energy_minimum(k, rest):
    m, L = 1.5, 0.7
    lk = Linkage()
    lk.add_link("arm", mass=m, com=(L, 0, 0))
    lk.add_joint("j", "revolute", None, "arm")
    lk.set_stiffness("j", k, rest=[rest])
    lk.set_q("j", [rest])
    lk.set_gravity([0, -G, 0])
    st = Solver(lk, Settings(max_iterations=500)).solve()

    def energy(q):
        return 0.5 * k * (q - rest) ** 2 + m * G * L * math.sin(q)

    q = lk.joint("j").q[0]
    ref = minimize_scalar(energy, bracket=(rest - 1.0, rest), tol=1e-12)
    # The solver descends from the rest angle, as minimize_scalar does from that bracket.
    assert q == pytest.approx(ref.x, abs=1e-6)
    assert st.level("potential").error == pytest.approx(energy(q), abs=1e-9)
    assert energy(q) <= ref.fun + 1e-10


def test_a_four_bar_with_masses_settles_at_its_potential_minimum(vh):
    masses = {"coupler": (2.0, np.array([1.5, 0.2])), "rocker": (1.0, np.array([1.25, 0.0])),
              "crank": (0.5, np.array([0.5, 0.0]))}
    g2 = np.array([0.0, -G])
    probe = vh.FourBar()
    ths = np.linspace(-math.pi, math.pi, 4001)
    U = np.array([probe.potential(t, masses, g2) for t in ths])
    # This mechanism's potential has a single minimum over the crank's full turn.
    is_min = (U < np.roll(U, 1)) & (U < np.roll(U, -1))
    assert is_min.sum() == 1
    i = int(np.argmin(U))
    ref = minimize_scalar(lambda t: probe.potential(t, masses, g2),
                          bracket=(ths[i - 3], ths[i], ths[i + 3]), tol=1e-12)
    for th0 in (0.3, 2.0, 4.0, -1.0):
        fb = vh.FourBar(th0=th0)
        for link, (m, c) in masses.items():
            fb.lk.set_mass(link, m, com=(c[0], c[1], 0.0))
        fb.lk.set_gravity([0, -G, 0])
        st = Solver(fb.lk, Settings(max_iterations=500)).solve()
        assert st.level("invariant").error <= 1e-10
        th = fb.measured_crank_angle()
        assert abs(vh.wrap(th - ref.x)) <= 1e-6, (th0, th, ref.x)
        assert st.level("potential").error == pytest.approx(ref.fun, abs=1e-8)
        assert st.level("potential").error <= U.min() + 1e-9


def test_a_lock_holds_against_gravity_and_gravity_beats_a_target():
    lk = pendulum(0.5)
    lk.lock_joint("pivot")
    st = Solver(lk).solve()
    assert lk.joint("pivot").q[0] == pytest.approx(0.5, abs=1e-12)
    assert st.level("lock").satisfied
    lk.unlock_joint("pivot")
    lk.set_target("pivot", [0.0])  # the target is below the potential level
    st = Solver(lk, Settings(max_iterations=300)).solve()
    np.testing.assert_allclose(com_world(lk, "bob"), [0, -0.8, 0], atol=1e-7)
    assert "target of joint 'pivot'" in st.unmet


def test_gravity_off_means_no_motion():
    lk = pendulum(0.5)
    lk.set_gravity(None)
    assert Solver(lk).solve().iterations == 0
    assert lk.joint("pivot").q[0] == 0.5
    lk.set_gravity([0, 0, 0])
    assert Solver(lk).solve().iterations == 0


def test_setting_the_gravity_it_already_has_changes_nothing():
    """The bake, a drag and every scene edit set the scene's gravity before they solve: the
    same value again must not make the solver analyse the goals anew."""
    lk = pendulum(0.5)
    v = lk.goals_version
    for same in ([0, -G, 0], (0.0, -G, 0.0), np.array([0.0, -G, 0.0])):
        lk.set_gravity(same)
        assert lk.goals_version == v
    lk.set_gravity([0, 0, -G])
    assert lk.goals_version > v and lk.gravity.tolist() == [0, 0, -G]
    v = lk.goals_version
    lk.set_gravity(None)
    assert lk.goals_version > v and lk.gravity is None
    v = lk.goals_version
    lk.set_gravity(None)
    assert lk.goals_version == v
