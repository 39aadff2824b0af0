"""Balance goals (solver/balance.py, declared in goal_kinds.py) on a table-like robot: a body on
four telescopic legs, each foot pinned to the ground by a virtual spherical joint. The centre
of mass stays over the pins' support polygon, moved in by a margin, while a leg lifts; a
margin that cannot be kept is reported unmet; CoM Target and CoM Over hold it at a point or
over one."""
import json

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3
from vart_addon.solver import balance as B
from vart_addon.solver import goal_store as GS
from vart_addon.solver import model_file as MF
from vart_addon.solver import support_polygon as SP

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TIGHT = Settings(tol=1e-12, max_iterations=300)
CORNERS = [(0.4, 0.3), (-0.4, 0.3), (-0.4, -0.3), (0.4, -0.3)]
HEIGHT = 0.5
BODY = "body"


def table(body_com=(0.0, 0.0, 0.0), pins=(0, 1, 2, 3)):
    """The table: ``body`` (10 kg at ``body_com``, its frame at (0, 0, 0.5)), legs ``leg<i>``
    (1 kg each at their middle) on spherical hips at the body's corners, telescoping along the
    vertical (``knee<i>``, prismatic) to feet ``foot<i>`` (0.5 kg) at the ground, pinned there
    (``pin<i>``, virtual spherical joints from the world) for the legs in ``pins``. Every
    joint has a posture (its value now), so the solve is determined."""
    lk = Linkage()
    lk.add_link(BODY, pose=se3.make_pose(None, [0, 0, HEIGHT]), mass=10.0, com=body_com)
    for i, (x, y) in enumerate(CORNERS):
        lk.add_link(f"leg{i}", pose=se3.make_pose(None, [x, y, HEIGHT]), mass=1.0,
                    com=(0, 0, -HEIGHT / 2))
        lk.add_link(f"foot{i}", pose=se3.make_pose(None, [x, y, 0.0]), mass=0.5)
        lk.add_joint(f"hip{i}", "spherical", BODY, f"leg{i}",
                     world_frame=se3.make_pose(None, [x, y, HEIGHT]))
        lk.add_joint(f"knee{i}", "prismatic", f"leg{i}", f"foot{i}",
                     world_frame=se3.make_pose(None, [x, y, 0.0]))
        if i in pins:
            lk.add_joint(f"pin{i}", "spherical", None, f"foot{i}", virtual=True,
                         world_frame=se3.make_pose(None, [x, y, 0.0]))
    for j in list(lk.joints.values()):
        if j.is_tree:
            lk.set_posture(j.name)
    GS.posture_put(lk, lk.root(BODY), {"q": None})
    return lk


def com_of(lk) -> np.ndarray:
    T = lk.poses()
    links = list(lk.links.values())
    m = np.array([link.mass for link in links])
    c = np.stack([T[link.name][:3, :3] @ link.com + T[link.name][:3, 3] for link in links])
    return m @ c / m.sum()


def margin_of(lk, pins) -> float:
    return SP.support_margin(com_of(lk)[:2], [CORNERS[i] for i in pins])


def lift(lk, leg: int, up: float = 0.15):
    """Unpin leg ``leg`` and shorten it by ``up`` (m): a target on its knee; its hip locked
    (a hanging leg could otherwise swing out as a counterweight)."""
    lk.remove_joint(f"pin{leg}")
    lk.set_target(f"knee{leg}", [up])
    lk.lock_joint(f"hip{leg}")


def test_the_centre_of_mass_stays_inside_while_a_leg_lifts():
    # Without the goal the centre of mass stays on the diagonal the lifted leg leaves:
    # margin 0, the edge of the support.
    plain = table()
    lift(plain, 3)
    assert Solver(plain, TIGHT).solve().converged
    assert abs(margin_of(plain, (0, 1, 2))) < 1e-6
    lk = table()
    lk.set_goal("balance", BODY, {"margin": 0.05})
    lift(lk, 3)
    st = Solver(lk, TIGHT).solve()
    assert not st.unmet, st
    assert margin_of(lk, (0, 1, 2)) >= 0.05 - 1e-9
    np.testing.assert_allclose(lk.joint("knee3").q, [0.15], atol=1e-9)  # the leg is up
    T = lk.poses()
    for i in (0, 1, 2):  # the pins held
        np.testing.assert_allclose(T[f"foot{i}"][:3, 3], [*CORNERS[i], 0.0], atol=1e-9)


def test_with_four_feet_down_a_centre_inside_is_left_alone():
    lk = table(body_com=(0.1, 0.0, 0.0))
    before = lk.poses()
    lk.set_goal("balance", BODY, {"margin": 0.05})
    st = Solver(lk, TIGHT).solve()
    assert st.converged and not st.unmet and st.iterations == 0
    for name, T in lk.poses().items():
        np.testing.assert_array_equal(T, before[name])


def test_an_offset_centre_of_mass_is_brought_back_over_the_support():
    # The body's mass 0.5 m beyond the edge of feet 0 and 3: outside the support at first.
    lk = table(body_com=(0.9, 0.0, 0.0))
    assert margin_of(lk, range(4)) < 0
    lk.set_goal("balance", BODY, {"margin": 0.03})
    st = Solver(lk, TIGHT).solve()
    assert not st.unmet, st
    assert 0.03 - 1e-9 <= margin_of(lk, range(4)) <= 0.03 + 1e-6  # to the edge, no further


def test_an_impossible_balance_is_reported_unmet_and_gets_as_near_as_it_can():
    # Two feet down: the support is a segment, no margin can be kept; the centre of mass
    # goes onto the segment and the goal is reported unmet by the margin lost.
    lk = table(body_com=(0.0, 0.2, 0.0), pins=(0, 2))
    lk.set_goal("balance", BODY, {"margin": 0.02})
    st = Solver(lk, TIGHT).solve()
    assert st.unmet == ["balance of root joint of link 'body'"]
    c = com_of(lk)[:2]
    a, b = np.array(CORNERS[0]), np.array(CORNERS[2])
    assert SP.nearest(np.stack([a, b]), c)[1] < 1e-9  # on the segment
    lvl = st.level("limit")
    assert lvl.error == pytest.approx(0.02, abs=1e-9)
    # ... and without pins the goal cannot be met at all
    bare = table(pins=())
    bare.set_goal("balance", BODY, {"margin": 0.0})
    assert Solver(bare, TIGHT).solve().unmet == ["balance of root joint of link 'body'"]


def test_a_drag_that_would_tip_the_robot_stops_at_the_edge():
    # Leg 3 up; the body asked 0.3 m toward it (a link target, as a drag makes): the balance
    # (limit level) stops the body where its centre of mass reaches the margin, and the
    # target is reported unmet; without the goal the body goes all the way.
    for balanced in (False, True):
        lk = table()
        if balanced:
            lk.set_goal("balance", BODY, {"margin": 0.02})
        lift(lk, 3)
        goal = lk.poses()[BODY].copy()
        goal[:3, 3] += [0.3, -0.3, 0.0]
        lk.set_link_target(BODY, goal)
        st = Solver(lk, TIGHT).solve()
        reached = np.allclose(lk.poses()[BODY], goal, atol=1e-9)
        if not balanced:
            assert reached and margin_of(lk, (0, 1, 2)) < -0.1
            continue
        assert not reached
        assert "target of root joint of link 'body'" in st.unmet
        assert "balance of root joint of link 'body'" not in st.unmet
        assert 0.02 - 1e-9 <= margin_of(lk, (0, 1, 2)) <= 0.02 + 1e-6  # stopped at the edge


def test_com_target_and_com_over():
    lk = table()
    lk.remove_joint("pin0")  # leg 0 free to hang: the body can move
    lk.set_goal("com_over", BODY, {"point": (0.05, -0.04, 7.0)})
    st = Solver(lk, TIGHT).solve()
    assert not st.unmet, st
    np.testing.assert_allclose(com_of(lk)[:2], [0.05, -0.04], atol=1e-9)
    lk.clear_goal("com_over", BODY)
    lk.set_goal("com_target", BODY, {"point": (0.0, 0.02, 0.38)})
    st = Solver(lk, TIGHT).solve()
    assert not st.unmet, st
    np.testing.assert_allclose(com_of(lk), [0.0, 0.02, 0.38], atol=1e-9)


def test_balance_beats_a_com_target_outside_the_support():
    lk = table()
    lk.set_goal("balance", BODY, {"margin": 0.05})
    lk.set_goal("com_over", BODY, {"point": (1.0, 0.0, 0.0)})
    st = Solver(lk, TIGHT).solve()
    assert st.unmet == ["com_over of root joint of link 'body'"]
    assert 0.05 - 1e-9 <= margin_of(lk, range(4)) <= 0.05 + 1e-6
    assert com_of(lk)[0] == pytest.approx(0.35, abs=1e-6)  # as far as the margin allows


def test_values_are_checked_and_the_model_file_keeps_them():
    lk = table()
    with pytest.raises(VartError, match="margin: must be >= 0"):
        lk.set_goal("balance", BODY, {"margin": -0.1})
    with pytest.raises(VartError, match="point: expected 3 values"):
        lk.set_goal("com_target", BODY, {"point": (1, 2)})
    assert lk.goal("balance", BODY) is None
    lk.set_goal("balance", BODY, {"margin": 0.04})
    lk.set_goal("com_over", BODY, {"point": (0.1, 0.2, 0.0)})
    text = MF.dumps(lk)
    doc = json.loads(text)
    body = next(link for link in doc["links"] if link["name"] == BODY)
    assert body["balance"] == {"margin": 0.04, "level": "limit"}
    back, _ = MF.loads(text)
    assert back.goal("balance", BODY)["margin"] == 0.04
    assert MF.dumps(back) == text


def test_the_robot_is_the_host_links_tree():
    lk = table()
    lk.add_link("rock", pose=se3.make_pose(None, [3, 0, 0]), mass=100.0)  # not the robot
    model = lk.model() if hasattr(lk, "model") else None
    from vart_addon.solver.kinematics import TreeModel
    model = TreeModel(lk) if model is None else model
    names = {model.link_names[i] for i in B.robot_links(model, "foot2")}
    assert names == {BODY} | {f"{p}{i}" for p in ("leg", "foot") for i in range(4)}


def test_a_goal_s_level_is_chosen_per_goal():
    """Balance at the posture level is a wish: a target above it carries the centre of mass
    out; at its default, the limit level, the target stops at the edge. The level is kept by
    the model file; a file without it reads the default; a level that is not one is refused
    naming the field."""
    out = {}
    for level in ("posture", "limit"):
        lk = table()
        lk.set_goal("balance", BODY, {"margin": 0.05, "level": level})
        lift(lk, 3)
        goal = lk.poses()[BODY].copy()
        goal[:3, 3] += [0.3, -0.3, 0.0]
        lk.set_link_target(BODY, goal)
        st = Solver(lk, TIGHT).solve()
        out[level] = (margin_of(lk, (0, 1, 2)), st)
    assert out["posture"][0] < -0.1  # the target wins over a wish
    assert out["limit"][0] == pytest.approx(0.05, abs=1e-6)
    lk = table()
    lk.set_goal("com_over", BODY, {"point": (0.1, 0.0, 0.0), "level": "lock"})
    assert lk.goal("com_over", BODY)["level"] == "lock"
    doc = json.loads(MF.dumps(lk))
    body = next(link for link in doc["links"] if link["name"] == BODY)
    assert body["com_over"]["level"] == "lock"
    del body["com_over"]["level"]  # as written before levels were chosen
    back, _ = MF.from_dict(doc)
    assert back.goal("com_over", BODY)["level"] == "target"
    body["com_over"]["level"] = "potential"
    with pytest.raises(MF.ModelFileError, match=r"com_over\.level: expected one of invariant, "
                                                r"limit, lock, target, posture"):
        MF.from_dict(doc)
    with pytest.raises(VartError, match="level: one of"):
        lk.set_goal("balance", BODY, {"margin": 0.0, "level": "LIMIT"})
