"""The look-at goal (solver/goals.py LookAtBatch, declared in goal_kinds.py): an axis of a link
points from its origin at a world point, at the target level, set and cleared through the
generic goal edits, kept by the model file."""
import json

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3
from vart_addon.solver import model_file as MF

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TIGHT = Settings(tol=1e-12, max_iterations=200)


def pan_tilt():
    """A camera on a pan (about z) and tilt (about y) head 1 m above the ground, looking along
    its -z (down) at first."""
    lk = Linkage()
    lk.add_link("head", pose=se3.make_pose(None, [0, 0, 1]))
    lk.add_link("camera", pose=se3.make_pose(None, [0, 0, 1]))
    lk.add_joint("pan", "revolute", None, "head", world_frame=se3.make_pose(None, [0, 0, 1]))
    lk.add_joint("tilt", "revolute", "head", "camera",
                 world_frame=se3.make_pose(se3.so3_exp([np.pi / 2, 0, 0]), [0, 0, 1]))
    return lk


def aim(lk, link="camera", axis=(0.0, 0.0, -1.0)):
    T = lk.poses()[link]
    return T[:3, :3] @ np.asarray(axis) / np.linalg.norm(axis), T[:3, 3]


@pytest.mark.parametrize("point", [(2.0, 1.0, 0.0), (-1.0, -3.0, 0.5), (0.1, 0.0, 3.0)])
def test_the_axis_points_at_the_point(point):
    lk = pan_tilt()
    lk.set_goal("look_at", "camera", {"axis": (0, 0, -1), "point": point})
    st = Solver(lk, TIGHT).solve()
    assert st.converged and not st.unmet
    a, o = aim(lk)
    d = np.asarray(point) - o
    np.testing.assert_allclose(a, d / np.linalg.norm(d), atol=1e-9)
    np.testing.assert_allclose(o, [0, 0, 1], atol=1e-12)  # the head only turns


def test_values_are_checked_and_the_axis_normalised():
    lk = pan_tilt()
    lk.set_goal("look_at", "camera", {"axis": (0, 0, -5), "point": (1, 0, 0)})
    np.testing.assert_array_equal(lk.goal("look_at", "camera")["axis"], [0, 0, -1])
    for values, message in [
            ({"axis": (0, 0, 0), "point": (1, 0, 0)}, "a direction cannot be zero"),
            ({"axis": (0, 0, 1), "point": (1, 0)}, "point: expected 3 values"),
            ({"axis": (0, 0, 1)}, "missing value 'point'"),
            ({"axis": (0, 0, 1), "point": (1, 0, 0), "up": 1}, "unknown value 'up'"),
            ({"axis": (0, 0, 1), "point": (np.nan, 0, 0)}, "must be finite")]:
        with pytest.raises(VartError, match=message):
            lk.set_goal("look_at", "camera", values)
        assert lk.goal("look_at", "camera")["axis"].tolist() == [0, 0, -1]  # unchanged
    with pytest.raises(VartError, match="no link named 'nope'|'nope'"):
        lk.set_goal("look_at", "nope", {"axis": (0, 0, 1), "point": (1, 0, 0)})
    with pytest.raises(VartError, match="no settable goal kind 'look'"):
        lk.set_goal("look", "camera", {})


def test_a_lock_above_wins_and_the_goal_is_reported_unmet_then_cleared():
    lk = pan_tilt()
    lk.lock_joint("pan", [0.0])
    lk.set_goal("look_at", "camera", {"axis": (0, 0, -1), "point": (0.0, 2.0, 0.0)})
    st = Solver(lk, TIGHT).solve()
    assert st.unmet == ["look_at of root joint of link 'camera'"]
    assert lk.joint("pan").q[0] == 0.0
    lk.clear_goal("look_at", "camera")
    assert lk.goal("look_at", "camera") is None
    assert not Solver(lk, TIGHT).solve().unmet


def test_a_new_point_is_a_value_change_and_the_solve_follows_it():
    lk = pan_tilt()
    lk.set_goal("look_at", "camera", {"axis": (0, 0, -1), "point": (2.0, 0.0, 0.0)})
    solver = Solver(lk, TIGHT)
    solver.solve()
    v0 = lk.topology_version if hasattr(lk, "topology_version") else None
    lk.set_goal("look_at", "camera", {"axis": (0, 0, -1), "point": (0.0, 2.0, 0.0)})
    assert v0 is None or lk.topology_version == v0
    assert solver.solve().converged
    a, o = aim(lk)
    np.testing.assert_allclose(a, (np.array([0, 2.0, 0]) - o) / np.linalg.norm([0, 2, -1]),
                               atol=1e-9)


def test_the_model_file_keeps_the_goal_and_an_older_file_reads_it_as_off():
    lk = pan_tilt()
    lk.set_goal("look_at", "camera", {"axis": (0.3, 0.1, -1), "point": (2.0, 1.0, 0.25)})
    text = MF.dumps(lk)
    doc = json.loads(text)
    cam = next(link for link in doc["links"] if link["name"] == "camera")
    assert set(cam["look_at"]) == {"axis", "point"}
    back, _ = MF.loads(text)
    for name in ("axis", "point"):
        np.testing.assert_array_equal(back.goal("look_at", "camera")[name],
                                      lk.goal("look_at", "camera")[name])
    assert MF.dumps(back) == text
    for link in doc["links"]:
        link.pop("look_at")  # as written before the kind existed
    older, _ = MF.from_dict(doc)
    assert older.goal("look_at", "camera") is None
    cam["look_at"] = {"axis": [0, 0, 0], "point": [1, 0, 0]}
    doc["links"] = [cam if link["name"] == "camera" else link for link in doc["links"]]
    with pytest.raises(MF.ModelFileError, match=r"links\[1\]\.look_at: .*direction"):
        MF.from_dict(doc)
