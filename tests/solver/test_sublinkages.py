"""Sublinkages (MSim's hierarchy, issue 22): the solve order of driving, driven and
simultaneous sublinkages against hand-solved small mechanisms, the least-squares pose of a
driven sublinkage that cannot follow, re-analysis after every kind of edit, and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vart_addon.solver import Settings, Solver, VartError, se3
from vart_addon.solver.sublinkages import members, solve_order

TIGHT = Settings(tol=1e-12, max_iterations=200)


def angle_diff(a, b):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def fourbar_with_crank(vh, disposition="driving"):
    """The four-bar whose crank (link and joint) is a sublinkage ``disposition`` in the top,
    its crank joint and its elbow (coupler-rocker) joint targeted: the two targets conflict
    (the four-bar has one DoF)."""
    fb = vh.FourBar()
    fb.lk.add_sublinkage("crank", None, disposition, links=["crank"])
    fb.lk.set_target("elbow", [0.4])
    return fb


def test_a_four_bar_driven_by_a_crank_sublinkage_gives_the_hand_solved_rocker(vh):
    """The driving crank meets its target exactly whatever the elbow's target asks; the rest
    of the four-bar (the top) closes on it: the rocker angle of the closed-form position
    analysis, the elbow's target left to least squares and reported as the top's."""
    fb = fourbar_with_crank(vh)
    lk = fb.lk
    assert solve_order(lk) == [("crank",), (None,)]
    solver = Solver(lk, TIGHT)
    for th in np.linspace(fb.th0, fb.th0 + 1.2, 13)[1:]:
        lk.set_target("crank", [th - fb.th0])
        st = solver.solve()
        assert angle_diff(fb.measured_crank_angle(), th) <= 1e-12
        assert angle_diff(fb.measured_rocker_angle(), fb.rocker_angle(th)) <= 1e-9, th
        assert st.level("invariant").error <= 1e-10
        assert not st.converged
        assert st.unreached == {None: ["target of joint 'elbow'"]}


def test_without_the_sublinkage_the_same_targets_compromise(vh):
    """The same goals in one flat group: the crank does not reach its target (so the test
    above does show the driving order)."""
    fb = vh.FourBar()
    fb.lk.set_target("elbow", [0.4])
    th = fb.th0 + 1.0
    fb.lk.set_target("crank", [th - fb.th0])
    st = Solver(fb.lk, TIGHT).solve()
    assert angle_diff(fb.measured_crank_angle(), th) > 1e-3
    assert st.level("invariant").error <= 1e-10
    assert st.unreached == {}


@pytest.mark.parametrize("nested", [False, True])
def test_a_simultaneous_pair_equals_one_flat_group(vh, nested):
    """Two simultaneous sublinkages (side by side, or one in the other) solve as the flat
    linkage does: the same single group, the same configuration."""
    def solved(split):
        fb = vh.FourBar()
        lk = fb.lk
        if split:
            lk.add_sublinkage("front", None, "simultaneous", links=["crank", "coupler"])
            lk.add_sublinkage("back", "front" if nested else None, "simultaneous",
                              links=["rocker"])
        lk.set_target("elbow", [0.4])
        lk.set_target("crank", [0.8])
        st = Solver(lk, TIGHT).solve()
        return np.concatenate([lk.joint(n).q for n in ("crank", "knee", "elbow")]), st

    q_flat, st_flat = solved(False)
    q_split, st_split = solved(True)
    assert st_split.groups == st_flat.groups == 1
    np.testing.assert_allclose(q_split, q_flat, atol=1e-12)


def slider_and_leg(vh):
    """A hand on a slider along world x (prismatic ``slide``), gripping (revolute closure
    ``grip``) the foot of a two-link leg (1 m + 1 m) bent at hip 0.3, knee 0.5 rad: the
    hand a driving sublinkage, the leg a driven one. Returns the linkage and the hand's x."""
    lk = vh.two_link(q=(0.3, 0.5))
    T_foot = lk.pose("foot")
    x0 = float(T_foot[0, 3])
    T_hand = T_foot.copy()
    lk.add_link("hand", pose=T_hand)
    slide_frame = se3.make_pose(se3.so3_exp(np.array([0.0, math.pi / 2, 0.0])),
                                T_hand[:3, 3])  # z along world x
    lk.add_joint("slide", "prismatic", None, "hand", world_frame=slide_frame)
    lk.add_joint("grip", "revolute", "hand", "foot", world_frame=T_foot)
    lk.add_sublinkage("hand", None, "driving", links=["hand"])
    lk.add_sublinkage("leg", None, "driven", links=["thigh", "shin", "foot"])
    return lk, x0


def test_a_driven_sublinkage_that_cannot_reach_is_solved_to_its_least_squares_pose(vh):
    """The hand is slid to x = 3 m, beyond the leg's 2 m reach: the hand gets there (the
    driving sublinkage decides), the leg stretches toward it (its least-squares pose: knee
    straight, the leg pointing at the hand), and the status names the leg and its grip."""
    lk, x0 = slider_and_leg(vh)
    assert solve_order(lk) == [("hand",), (None,), ("leg",)]
    y = float(lk.pose("hand")[1, 3])
    lk.set_target("slide", [3.0 - x0])
    st = Solver(lk, Settings(max_iterations=100)).solve()
    assert lk.pose("hand")[0, 3] == pytest.approx(3.0, abs=1e-8)
    assert angle_diff(lk.joint("knee").q[0], 0.0) <= 1e-4
    assert angle_diff(lk.joint("hip").q[0], math.atan2(y, 3.0)) <= 1e-4
    gap = math.hypot(3.0, y) - 2.0
    assert np.linalg.norm(lk.pose("foot")[:2, 3] - [3.0, y]) == pytest.approx(gap, abs=1e-8)
    assert not st.converged
    assert st.unreached == {"leg": ["invariant of joint 'grip'"]}


def test_flat_the_grip_holds_the_hand_back(vh):
    """Without sublinkages the closure outranks the slide's target: the hand stops at the
    leg's reach (so the driven case above is the hierarchy's doing)."""
    lk, x0 = slider_and_leg(vh)
    lk.remove_sublinkage("hand")
    lk.remove_sublinkage("leg")
    lk.set_target("slide", [3.0 - x0])
    st = Solver(lk, Settings(max_iterations=100)).solve()
    y = float(lk.pose("hand")[1, 3])
    assert lk.pose("hand")[0, 3] == pytest.approx(math.sqrt(4.0 - y * y), abs=1e-6)
    assert st.level("invariant").error <= 1e-9
    assert st.unreached == {}


def test_a_reachable_slide_is_followed_exactly(vh):
    lk, x0 = slider_and_leg(vh)
    solver = Solver(lk, TIGHT)
    for x in np.linspace(x0, 1.72, 6)[1:]:  # the leg reaches x = 1.7245 at the hand's y
        lk.set_target("slide", [x - x0])
        st = solver.solve()
        assert st.converged, st
        assert np.linalg.norm(lk.pose("foot")[:3, 3] - lk.pose("hand")[:3, 3]) <= 1e-10
        assert st.unreached == {}


def test_a_driven_sublinkage_holds_what_hangs_from_it(vh):
    """A driven crank under the rest of the four-bar (in the spanning tree the coupler and
    rocker hang from it): solved after the top, it keeps the top's closure (its own target
    cannot be met without breaking it) and is reported as the crank's."""
    fb = fourbar_with_crank(vh, "driven")
    lk = fb.lk
    lk.clear_target("elbow")
    rocker = fb.measured_rocker_angle()
    lk.set_target("crank", [0.5])
    st = Solver(lk, TIGHT).solve()
    assert st.level("invariant").error <= 1e-10
    assert angle_diff(fb.measured_rocker_angle(), rocker) <= 1e-9
    assert st.unreached == {"crank": ["target of joint 'crank'"]}


def test_every_edit_of_the_hierarchy_is_analysed_again(vh):
    """Change the disposition, move a link between sublinkages, nest, dissolve: each next solve
    follows the new hierarchy (the cached analysis is not reused)."""
    fb = fourbar_with_crank(vh)
    lk = fb.lk
    solver = Solver(lk, TIGHT)
    th = fb.th0 + 0.6
    lk.set_target("crank", [th - fb.th0])
    solver.solve()
    assert angle_diff(fb.measured_crank_angle(), th) <= 1e-12
    lk.set_disposition("crank", "simultaneous")  # now one flat group: a compromise
    assert solver.solve().groups == 1
    assert angle_diff(fb.measured_crank_angle(), th) > 1e-3
    lk.set_disposition("crank", "driving")
    solver.solve()
    assert angle_diff(fb.measured_crank_angle(), th) <= 1e-12
    lk.assign_link("crank", None)  # the crank leaves its sublinkage: flat again
    assert members(lk, "crank") == ([], [])
    solver.solve()
    assert angle_diff(fb.measured_crank_angle(), th) > 1e-3
    lk.assign_joint("crank", "crank")  # only the joint (its DoF and target) inside
    solver.solve()
    assert angle_diff(fb.measured_crank_angle(), th) <= 1e-12
    lk.unassign_joint("crank")
    st = solver.solve()
    assert st.groups == 1 and sorted(st.unreached[None]) == \
        ["target of joint 'crank'", "target of joint 'elbow'"]
    lk.assign_link("crank", "crank")
    lk.add_sublinkage("outer", None, "simultaneous")
    lk.set_sublinkage_parent("crank", "outer")
    assert solve_order(lk) == [("crank",), (None, "outer")]
    lk.remove_sublinkage("outer")  # dissolved: the crank is the top's again
    assert lk.sublinkages["crank"].parent is None
    lk.remove_sublinkage("crank")
    assert lk.sublinkages == {} and solver.solve().groups == 1


def test_removed_and_renamed_members_follow(vh):
    fb = fourbar_with_crank(vh)
    lk = fb.lk
    lk.assign_joint("knee", "crank")
    lk.rename_joint("knee", "knee2")
    assert members(lk, "crank") == (["crank"], ["crank", "knee2"])
    lk.remove_joint("knee2")
    assert "knee2" not in lk.joint_home
    lk.remove_link("crank")
    assert "crank" not in lk.link_home
    lk.add_link("crank")
    assert members(lk, None)[0] == ["coupler", "rocker", "crank"]


def test_bad_input_changes_nothing(vh):
    fb = fourbar_with_crank(vh)
    lk = fb.lk
    before = (dict(lk.link_home), dict(lk.joint_home), lk.goals_version,
              [(s.name, s.parent, s.disposition) for s in lk.sublinkages.values()])
    bad = [
        (lambda: lk.add_sublinkage("crank"), "already exists"),
        (lambda: lk.add_sublinkage("", None), "non-empty string"),
        (lambda: lk.add_sublinkage("x", "nowhere"), "sublinkage 'nowhere' does not exist"),
        (lambda: lk.add_sublinkage("x", None, "leading"), "disposition must be one of"),
        (lambda: lk.add_sublinkage("x", None, links=["crank", "nolink"]),
         "link 'nolink' does not exist"),
        (lambda: lk.add_sublinkage("x", None, joints=["nojoint"]), "joint 'nojoint'"),
        (lambda: lk.set_disposition("crank", "sideways"), "disposition must be one of"),
        (lambda: lk.set_sublinkage_parent("crank", "crank"), "lies inside it"),
        (lambda: lk.assign_link("rocker", "nowhere"), "sublinkage 'nowhere'"),
        (lambda: lk.assign_joint("nojoint", "crank"), "joint 'nojoint'"),
        (lambda: lk.remove_sublinkage("nowhere"), "sublinkage 'nowhere'"),
    ]
    for call, message in bad:
        with pytest.raises(VartError, match=message):
            call()
        assert before == (dict(lk.link_home), dict(lk.joint_home), lk.goals_version,
                          [(s.name, s.parent, s.disposition) for s in lk.sublinkages.values()])


def test_a_goal_no_dof_of_its_stage_can_move_is_evaluated_and_reported(vh):
    """Every link of the four-bar in a driving sublinkage, the closure left in the top: the
    driving crank turns without it, and the top, with no DoF to close it, reports it."""
    fb = vh.FourBar()
    lk = fb.lk
    lk.add_sublinkage("bars", None, "driving", links=["crank", "coupler", "rocker"])
    lk.assign_joint("ground", None)
    lk.set_target("crank", [0.3])
    st = Solver(lk, TIGHT).solve()
    assert angle_diff(fb.measured_crank_angle(), fb.th0 + 0.3) <= 1e-12
    assert st.level("invariant").error > 1e-3
    assert st.unreached == {None: ["invariant of joint 'ground'"]}
    lk.clear_target("crank")  # nothing moves: the closure, as the last solve left it, is met
    lk.set_q("crank", [0.0])
    lk.set_q("knee", [0.0])
    lk.set_q("elbow", [0.0])
    st = Solver(lk, TIGHT).solve()
    assert st.converged and st.unreached == {}


def test_the_readme_sublinkage_example_runs_as_documented():
    """README's *Python API* four-bar, then its sublinkage lines: the crank (driving) meets
    its target (90 -> 30 degrees) despite the closure's conflicting target, which is reported."""
    import re

    from repo_paths import REPO
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text[text.index("## Python API"):], re.S)
    ns: dict = {}
    exec(blocks[0], ns)
    exec(blocks[1], ns)
    assert math.degrees(float(ns["lk"].joint("A").q[0])) + 90.0 == pytest.approx(30.0, abs=1e-9)
    assert ns["status"].unreached == {None: ["target of joint 'C'"]}
