"""Bad input to the solver API raises VartError with a message naming the thing at fault, and
leaves the linkage exactly as it was (links, joint names, each joint's ends, type, q, tree
direction, frames, limits, goals, gravity and every world pose are compared before/after)."""

import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

NAN, INF = math.nan, math.inf


def P(x, y, angle=0.0, z=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, z])


def build():
    """Links a, b, c, d: a revolute from the ground, a spherical, a prismatic, a free link d,
    closures (ground to c, c to d, a pin-slider a to d), a mimic, a few goals."""
    lk = Linkage()
    lk.add_link("a", mass=1.0)
    lk.add_link("b", pose=P(1, 0))
    lk.add_link("c", pose=P(2, 0))
    lk.add_link("d", pose=P(0, 3, 0.4))
    lk.add_joint("ja", "revolute", None, "a", lower=[-2], upper=[2])
    lk.add_joint("jb", "spherical", "a", "b", world_frame=P(1, 0))
    lk.add_joint("jc", "prismatic", "b", "c", world_frame=se3.make_pose(se3.so3_exp([0, 1.5708, 0]), [2, 0, 0]))
    lk.add_joint("close", "revolute", None, "c", world_frame=P(2, 0))
    lk.add_joint("jd", "revolute", "c", "d", world_frame=P(0, 3), tree=False)
    lk.add_joint("ps", "pin-slider", "a", "d", world_frame=P(0, 3), tree=False)
    lk.set_q("ja", [0.3])
    lk.set_mimic("jc", "ja", 0.5)
    lk.set_target("jb", [0.1, 0.2, 0.3])
    lk.lock_link("d")
    lk.set_gravity([0, 0, -9.81])
    return lk


SKEW = np.eye(4)
SKEW[0, 1] = 0.2
SCALED = np.diag([1.01, 1.0, 1.0, 1.0])
MIRROR = np.diag([-1.0, 1.0, 1.0, 1.0])
BAD_ROW = np.eye(4)
BAD_ROW[3, 0] = 0.5
NAN_POSE = P(1, 0)
NAN_POSE[0, 3] = NAN
INF_POSE = P(1, 0)
INF_POSE[1, 1] = INF

CASES = {
    # a joint whose parent is its child
    "parent is child": (lambda lk: lk.add_joint("x", "revolute", "a", "a"), r"'x'.*same link 'a'"),
    "set_parent to child": (lambda lk: lk.set_parent("jb", "b"), r"'jb'.*same link 'b'"),
    "set_child to parent": (lambda lk: lk.set_child("jb", "a"), r"'jb'.*same link 'a'"),
    "child is ground": (lambda lk: lk.add_joint("x", "revolute", "a", None), r"'x'.*ground"),
    "set_child to ground": (lambda lk: lk.set_child("jb", None), r"'jb'.*ground"),
    # unknown types
    "unknown type": (lambda lk: lk.add_joint("x", "hinge", None, "d"), r"'x'.*'hinge'.*revolute"),
    "set unknown type": (lambda lk: lk.set_joint_type("ja", "ball"), r"'ja'.*'ball'"),
    "split unknown type": (lambda lk: lk.split_link("a", "a2", jtype="weld"), r"'weld'"),
    "type not a string": (lambda lk: lk.add_joint("x", 3, None, "d"), r"'x'.*3"),
    # limits
    "limits crossed": (lambda lk: lk.set_limits("ja", [1.0], [0.5]), r"'ja'.*lower.*upper"),
    "add limits crossed": (lambda lk: lk.add_joint("x", "prismatic", "a", "d", lower=[1], upper=[0]),
                           r"'x'.*lower.*upper"),
    "limits nan": (lambda lk: lk.set_limits("ja", [NAN], [1.0]), r"'ja'.*lower.*finite"),
    "limits size": (lambda lk: lk.set_limits("jb", [0, 0], [1, 1]), r"'jb'.*lower.*3"),
    "set_q outside limits": (lambda lk: lk.set_q("ja", [2.5]), r"'ja'.*outside"),
    "add q outside limits": (lambda lk: lk.add_joint("x", "revolute", None, "d", q=[3.0],
                                                     lower=[-1], upper=[1]), r"'x'.*outside"),
    # NaN / inf in q, frames, targets, masses, gravity
    "q nan": (lambda lk: lk.set_q("ja", [NAN]), r"'ja'.*finite"),
    "q inf": (lambda lk: lk.set_q("jb", [0, INF, 0]), r"'jb'.*finite"),
    "add q nan": (lambda lk: lk.add_joint("x", "revolute", None, "d", q=[NAN]), r"'x'.*finite"),
    "frame nan": (lambda lk: lk.set_frames("ja", T_parent_mob=NAN_POSE), r"'ja'.*T_parent_mob.*finite"),
    "frame inf": (lambda lk: lk.set_frames("jb", T_child_frame=INF_POSE), r"'jb'.*T_child_frame.*finite"),
    "world frame nan": (lambda lk: lk.add_joint("x", "revolute", None, "d", world_frame=NAN_POSE),
                        r"'x'.*world_frame"),
    "add frame inf": (lambda lk: lk.add_joint("x", "revolute", None, "d", T_child_frame=INF_POSE),
                      r"'x'.*T_child_frame"),
    "link pose nan": (lambda lk: lk.add_link("x", pose=NAN_POSE), r"'x'.*pose.*finite"),
    "set_link_pose inf": (lambda lk: lk.set_link_pose("d", INF_POSE), r"'d'.*pose.*finite"),
    "target nan": (lambda lk: lk.set_target("ja", [NAN]), r"'ja'.*target.*finite"),
    "target inf": (lambda lk: lk.set_target("jb", [0, 0, INF]), r"'jb'.*target.*finite"),
    "link target nan": (lambda lk: lk.set_link_target("b", NAN_POSE), r"'b'.*target"),
    "lock nan": (lambda lk: lk.lock_joint("ja", [NAN]), r"'ja'.*lock.*finite"),
    "lock link inf": (lambda lk: lk.lock_link("b", INF_POSE), r"'b'.*lock"),
    "posture inf": (lambda lk: lk.set_posture("ja", [INF]), r"'ja'.*posture.*finite"),
    "stiffness nan": (lambda lk: lk.set_stiffness("ja", NAN), r"'ja'.*stiffness.*finite"),
    "stiffness negative": (lambda lk: lk.set_stiffness("ja", -1.0), r"'ja'.*stiffness.*>= 0"),
    "rest inf": (lambda lk: lk.set_stiffness("ja", 1.0, rest=[INF]), r"'ja'.*rest.*finite"),
    "mass nan": (lambda lk: lk.set_mass("a", NAN), r"'a'.*mass.*finite"),
    "mass inf": (lambda lk: lk.set_mass("a", INF), r"'a'.*mass.*finite"),
    "mass negative": (lambda lk: lk.set_mass("a", -2.0), r"'a'.*mass.*>= 0"),
    "com nan": (lambda lk: lk.set_mass("a", 1.0, com=[0, NAN, 0]), r"'a'.*com.*finite"),
    "add link mass nan": (lambda lk: lk.add_link("x", mass=NAN), r"'x'.*mass"),
    "gravity nan": (lambda lk: lk.set_gravity([0, NAN, -9.81]), r"gravity.*finite"),
    "gravity inf": (lambda lk: lk.set_gravity([0, 0, -INF]), r"gravity.*finite"),
    "pitch nan": (lambda lk: lk.add_joint("x", "helical", None, "d", pitch=NAN), r"'x'.*pitch"),
    "mimic multiplier inf": (lambda lk: lk.set_mimic("jc", "ja", INF), r"'jc'.*multiplier"),
    # names that do not exist
    "remove missing link": (lambda lk: lk.remove_link("nope"), r"link 'nope' does not exist"),
    "remove missing joint": (lambda lk: lk.remove_joint("nope"), r"joint 'nope' does not exist"),
    "type of missing joint": (lambda lk: lk.set_joint_type("nope", "revolute"), r"'nope'"),
    "frames of missing joint": (lambda lk: lk.set_frames("nope", np.eye(4)), r"'nope'"),
    "set_parent missing joint": (lambda lk: lk.set_parent("nope", "a"), r"'nope'"),
    "set_parent missing link": (lambda lk: lk.set_parent("jb", "nope"), r"'nope'"),
    "set_child missing link": (lambda lk: lk.set_child("jb", "nope"), r"'nope'"),
    "add_joint missing parent": (lambda lk: lk.add_joint("x", "revolute", "nope", "d"), r"'nope'"),
    "add_joint missing child": (lambda lk: lk.add_joint("x", "revolute", "a", "nope"), r"'nope'"),
    "make_tree missing": (lambda lk: lk.make_tree("nope"), r"'nope'"),
    "make_closure missing": (lambda lk: lk.make_closure("nope"), r"'nope'"),
    "make_root_tree missing": (lambda lk: lk.make_root_tree("nope"), r"'nope'"),
    "make_ground_link missing": (lambda lk: lk.make_ground_link("nope"), r"'nope'"),
    "invert missing": (lambda lk: lk.invert_joint("nope"), r"'nope'"),
    "merge missing": (lambda lk: lk.merge_joint("nope"), r"'nope'"),
    "split missing link": (lambda lk: lk.split_link("nope", "x"), r"'nope'"),
    "split missing joint": (lambda lk: lk.split_link("a", "x", ["jb", "nope"]), r"'nope'"),
    "split foreign joint": (lambda lk: lk.split_link("a", "x", ["jc"]), r"'jc'.*not attached.*'a'"),
    "set_mass missing": (lambda lk: lk.set_mass("nope", 1.0), r"'nope'"),
    "lock missing joint": (lambda lk: lk.lock_joint("nope"), r"'nope'"),
    "lock missing link": (lambda lk: lk.lock_link("nope"), r"'nope'"),
    "unlock missing joint": (lambda lk: lk.unlock_joint("nope"), r"'nope'"),
    "unlock missing link": (lambda lk: lk.unlock_link("nope"), r"'nope'"),
    "target missing joint": (lambda lk: lk.set_target("nope", [0]), r"'nope'"),
    "target missing link": (lambda lk: lk.set_link_target("nope", np.eye(4)), r"'nope'"),
    "clear target missing": (lambda lk: lk.clear_target("nope"), r"'nope'"),
    "clear link target missing": (lambda lk: lk.clear_link_target("nope"), r"'nope'"),
    "posture missing": (lambda lk: lk.set_posture("nope"), r"'nope'"),
    "clear posture missing": (lambda lk: lk.clear_posture("nope"), r"'nope'"),
    "limits missing": (lambda lk: lk.set_limits("nope", [0], [1]), r"'nope'"),
    "stiffness missing": (lambda lk: lk.set_stiffness("nope", 1.0), r"'nope'"),
    "set_q missing": (lambda lk: lk.set_q("nope", [0]), r"'nope'"),
    "set_link_pose missing": (lambda lk: lk.set_link_pose("nope", np.eye(4)), r"'nope'"),
    "mimic missing leader": (lambda lk: lk.set_mimic("ja", "nope"), r"'nope'"),
    "clear mimic missing": (lambda lk: lk.clear_mimic("nope"), r"'nope'"),
    "pose of missing link": (lambda lk: lk.pose("nope"), r"'nope'"),
    # duplicate names
    "duplicate link": (lambda lk: lk.add_link("b"), r"link 'b' already exists"),
    "duplicate joint": (lambda lk: lk.add_joint("jb", "revolute", None, "d"), r"joint 'jb' already exists"),
    "split into existing link": (lambda lk: lk.split_link("a", "c"), r"link 'c' already exists"),
    "split with existing joint name": (lambda lk: lk.split_link("a", "x", joint_name="jc"),
                                       r"joint 'jc' already exists"),
    # non-rigid frames
    "skewed frame": (lambda lk: lk.set_frames("ja", T_parent_mob=SKEW), r"'ja'.*not a rigid"),
    "scaled frame": (lambda lk: lk.add_joint("x", "revolute", None, "d", T_parent_mob=SCALED),
                     r"'x'.*not a rigid"),
    "mirrored frame": (lambda lk: lk.set_frames("jb", T_child_frame=MIRROR), r"'jb'.*not a rigid"),
    "bad last row": (lambda lk: lk.add_joint("x", "revolute", None, "d", world_frame=BAD_ROW),
                     r"'x'.*not a rigid"),
    "3x3 frame": (lambda lk: lk.set_frames("ja", T_parent_mob=np.eye(3)), r"'ja'.*4x4"),
    "mirrored link pose": (lambda lk: lk.add_link("x", pose=MIRROR), r"'x'.*not a rigid"),
    "scaled target": (lambda lk: lk.set_link_target("b", SCALED), r"'b'.*not a rigid"),
    "string frame": (lambda lk: lk.set_frames("ja", T_parent_mob="identity"), r"'ja'.*4x4"),
    # wrong vector sizes
    "q size": (lambda lk: lk.set_q("jb", [0.1, 0.2]), r"'jb'.*3 values, got 2"),
    "add q size": (lambda lk: lk.add_joint("x", "cylindrical", None, "d", q=[1]), r"'x'.*2 values"),
    "target size": (lambda lk: lk.set_target("ja", [0.1, 0.2]), r"'ja'.*1 values, got 2"),
    "link target vector": (lambda lk: lk.set_link_target("b", [1, 2, 3]), r"'b'.*4x4"),
    "mask size": (lambda lk: lk.set_target("jb", [0, 0, 0], mask=[True, False]), r"'jb'.*mask.*3"),
    "link mask size": (lambda lk: lk.set_link_target("b", np.eye(4), mask=[1, 1, 1]), r"'b'.*mask.*6"),
    "lock size": (lambda lk: lk.lock_joint("jb", [0.0]), r"'jb'.*lock.*3"),
    "posture size": (lambda lk: lk.set_posture("ja", []), r"'ja'.*posture.*1"),
    "rest size": (lambda lk: lk.set_stiffness("ja", 1.0, rest=[0, 1]), r"'ja'.*rest.*1"),
    "gravity size": (lambda lk: lk.set_gravity([0, -9.81]), r"gravity.*3"),
    "com size": (lambda lk: lk.set_mass("a", 1.0, com=[0, 0]), r"'a'.*com.*3"),
    "lower size": (lambda lk: lk.add_joint("x", "planar", None, "d", lower=[0, 0]), r"'x'.*lower.*3"),
    "q not numbers": (lambda lk: lk.set_q("ja", ["abc"]), r"'ja'.*number"),
    # target mask all false
    "mask all false": (lambda lk: lk.set_target("jb", [0, 0, 0], mask=[False] * 3),
                       r"'jb'.*mask selects no"),
    "link mask all false": (lambda lk: lk.set_link_target("b", np.eye(4), mask=[0] * 6),
                            r"'b'.*mask selects no"),
    # other refusals
    "empty link name": (lambda lk: lk.add_link(""), r"link name"),
    "link name not str": (lambda lk: lk.add_link(7), r"link name.*7"),
    "joint name none": (lambda lk: lk.add_joint(None, "revolute", None, "d"), r"joint name"),
    "both frame styles": (lambda lk: lk.add_joint("x", "revolute", None, "d", world_frame=np.eye(4),
                                                  T_parent_mob=np.eye(4)), r"'x'.*not both"),
    "q on a closure": (lambda lk: lk.add_joint("x", "revolute", None, "d", q=[0.1], tree=False),
                       r"'x'.*tree joint"),
    "set_q on a closure": (lambda lk: lk.set_q("close", [0.1]), r"'close'.*closure"),
    "set_link_pose on a carried link": (lambda lk: lk.set_link_pose("b", np.eye(4)), r"'b'.*'jb'"),
    "spring on a 3-dof joint": (lambda lk: lk.set_stiffness("jb", 1.0), r"'jb'.*1-DoF"),
    "mimic itself": (lambda lk: lk.set_mimic("ja", "ja"), r"'ja'.*itself"),
    "mimic cycle": (lambda lk: lk.set_mimic("ja", "jc"), r"'ja'.*cycle"),
    "mimic multi dof": (lambda lk: lk.set_mimic("jb", "ja"), r"'jb'.*3"),
    "mimic leader becomes multi dof": (lambda lk: lk.set_joint_type("ja", "spherical"),
                                       r"'ja'.*mimic"),
    "mimic follower becomes multi dof": (lambda lk: lk.set_joint_type("jc", "planar"), r"'jc'.*mimic"),
    "invert ground joint": (lambda lk: lk.invert_joint("ja"), r"'ja'.*ground"),
    "invert non-invertible": (lambda lk: lk.invert_joint("ps"), r"'ps'.*cannot be inverted"),
    "invert mimic joint": (lambda lk: lk.invert_joint("jc"), r"'jc'.*mimic"),
    "merge mimic joint": (lambda lk: lk.merge_joint("jc"), r"'jc'.*mimic"),
    "merge into ground with a child joint": (lambda lk: lk.merge_joint("close"),
                                             r"'(jc|close)'.*ground"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_raises_a_clear_error_and_changes_nothing(vh, case):
    fn, pattern = CASES[case]
    lk = build()
    snap = vh.snapshot(lk)
    with pytest.raises(VartError, match=pattern):
        fn(lk)
    assert vh.snapshot(lk) == snap
    vh.check_tree(lk)
    # The linkage still solves.
    Solver(lk, Settings(max_iterations=20)).solve()
    for T in lk.poses().values():
        assert np.isfinite(T).all()


def test_vart_error_is_a_value_error():
    assert issubclass(VartError, ValueError)


def test_the_solver_never_writes_nan():
    """Degenerate but valid input: zero-length links, coincident frames, a target exactly on
    a singular configuration, gravity with all masses zero."""
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b")
    lk.add_joint("j1", "revolute", None, "a")
    lk.add_joint("j2", "revolute", "a", "b")  # zero-length link, axes aligned
    lk.add_joint("j3", "spherical", None, "b", tree=False)
    lk.set_link_target("b", P(0, 0, math.pi))
    lk.set_link_target("a", P(1, 1), mask=[1, 1, 0, 0, 0, 0])  # unreachable: a cannot translate
    lk.set_gravity([0, 0, -9.81])
    st = Solver(lk).solve()
    for j in lk.joints.values():
        assert np.isfinite(j.q).all()
    for T in lk.poses().values():
        assert np.isfinite(T).all()
    assert "target of root joint of link 'a'" in st.unmet


# ---- every edit method, every name-like argument of the wrong type -----------------------------
def _edit_calls():
    import inspect

    from vart_addon.solver.editing import LinkageEditing
    from vart_addon.solver.goals_edit import GoalsEditing
    from vart_addon.solver.tree_edit import TreeEditing
    good = {"name": "j", "link": "a", "jtype": "revolute", "parent": None, "child": "a",
            "new_link": "c", "leader": "k", "q": [0.1], "pose": np.eye(4), "mass": 1.0,
            "gravity": [0, 0, -9.8], "lower": [-1], "upper": [1], "stiffness": 1.0}
    for mixin in (LinkageEditing, TreeEditing, GoalsEditing):
        for fname in [n for n in vars(mixin) if not n.startswith("_")]:
            params = [p for p in list(inspect.signature(getattr(mixin, fname)).parameters.values())[1:]
                      if p.default is inspect.Parameter.empty
                      and p.kind == p.POSITIONAL_OR_KEYWORD]
            for i, p in enumerate(params):
                args = [good.get(q.name, "j") for q in params]
                yield fname, p.name, i, args


@pytest.mark.parametrize("fname, param, i, args", list(_edit_calls()),
                         ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("bad", [["x"], {"x": 1}, None, 3, 2.5, "", ("a",)],
                         ids=["list", "dict", "None", "int", "float", "empty", "tuple"])
def test_a_wrong_typed_argument_is_a_vart_error_never_a_bare_type_error(fname, param, i, args,
                                                                         bad):
    """Fixed defect (issue 19): names that are lists or dicts raised ``TypeError: unhashable``
    from the API instead of VartError."""
    from vart_addon.solver import VartError
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b", pose=se3.make_pose(None, [1, 0, 0]))
    lk.add_joint("j", "revolute", None, "a")
    lk.add_joint("k", "revolute", "a", "b", world_frame=se3.make_pose(None, [1, 0, 0]))
    args = list(args)
    args[i] = bad
    try:
        getattr(lk, fname)(*args)
    except VartError:
        pass
