"""Sublinkages in the model file (version 2): nested driving, driven and simultaneous
sublinkages with their links and joints (a joint assigned on its own, also to the top) are
written and read back as the same hierarchy, so the read linkage solves in the same order to
the same poses and reports the same unreached goals; version 1 files (no sublinkages) still
read; a bad section is refused naming its field, with nothing built."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, se3
from vart_addon.solver import model_file as MF
from vart_addon.solver.sublinkages import solve_order

TIGHT = Settings(tol=1e-12, max_iterations=200)


def at(x, y, angle=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, 0.0])


def fourbars() -> Linkage:
    """Two four-bars side by side: the first's crank a driving sublinkage whose target
    conflicts with a wish of the top (C's target); the second's coupler and rocker a driven
    sublinkage holding a simultaneous one (the rocker, its closing joint C2 assigned to the
    top on its own), the second's crank joint assigned to the driven one."""
    lk = Linkage()
    for k, x in ((1, 0.0), (2, 10.0)):
        s = "" if k == 1 else "2"
        lk.add_link(f"crank{s}", pose=at(x, 0, np.pi / 2), mass=1.0)
        lk.add_link(f"coupler{s}", pose=at(x, 1), mass=1.0, com=[1.5, 0, 0])
        lk.add_link(f"rocker{s}", pose=at(x + 3, 0, np.pi / 2), mass=1.0)
        lk.add_joint(f"A{s}", "revolute", None, f"crank{s}", world_frame=at(x, 0))
        lk.add_joint(f"B{s}", "revolute", f"crank{s}", f"coupler{s}", world_frame=at(x, 1))
        lk.add_joint(f"D{s}", "revolute", None, f"rocker{s}", world_frame=at(x + 3, 0))
        lk.add_joint(f"C{s}", "revolute", f"coupler{s}", f"rocker{s}",
                     world_frame=at(x + 3, 1))
    lk.add_sublinkage("crank", None, "driving", links=["crank"])
    lk.add_sublinkage("loop2", None, "driven", links=["coupler2"], joints=["A2"])
    lk.add_sublinkage("rocker2", "loop2", "simultaneous", links=["rocker2"])
    lk.assign_joint("C2", None)
    lk.set_target("A", [-0.6])
    lk.set_target("C", [0.4])
    lk.set_target("A2", [0.3])
    lk.set_gravity([0, -9.81, 0])
    return lk


def test_the_hierarchy_reads_back_and_solves_alike():
    lk = fourbars()
    text = MF.dumps(lk, TIGHT)
    doc = json.loads(text)
    assert doc["version"] == 2
    assert doc["sublinkages"]["tree"][2] == {"name": "rocker2", "parent": "loop2",
                                             "disposition": "simultaneous"}
    assert doc["sublinkages"]["joints"] == {"A2": "loop2", "C2": None}
    lk2, s2 = MF.loads(text)
    assert MF.dumps(lk2, s2) == text  # a fixed point
    assert {n: (s.parent, s.disposition) for n, s in lk2.sublinkages.items()} == \
        {n: (s.parent, s.disposition) for n, s in lk.sublinkages.items()}
    assert lk2.joint_home == lk.joint_home
    assert solve_order(lk2) == solve_order(lk)
    st, st2 = Solver(lk, TIGHT).solve(), Solver(lk2, TIGHT).solve()
    assert st.unreached == st2.unreached and st.unreached  # the conflict is reported alike
    p1, p2 = lk.poses(), lk2.poses()
    assert max(np.abs(p1[n] - p2[n]).max() for n in p1) < 1e-12


def test_a_version_1_file_still_reads():
    lk = fourbars()
    for name in list(lk.sublinkages):
        lk.remove_sublinkage(name)
    lk.unassign_joint("C2")
    lk.unassign_joint("A2")  # (dissolving loop2 left it assigned to the top on its own)
    doc = json.loads(MF.dumps(lk, TIGHT))
    assert doc["sublinkages"] == {"tree": [], "links": {}, "joints": {}}
    old = copy.deepcopy(doc)
    old["version"] = 1
    del old["sublinkages"]
    lk2, _ = MF.from_dict(old)
    assert not lk2.sublinkages and MF.model_dict(lk2, TIGHT) == doc
    Solver(lk, TIGHT).solve()
    Solver(lk2, TIGHT).solve()
    p1, p2 = lk.poses(), lk2.poses()
    assert max(np.abs(p1[n] - p2[n]).max() for n in p1) < 1e-12


def broken(edit):
    d = json.loads(MF.dumps(fourbars()))
    edit(d)
    return d


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["sublinkages"]["tree"][2].update(parent="nowhere"),
     "sublinkages.tree[2].parent"),
    (lambda d: d["sublinkages"]["tree"][1].update(parent="rocker2"),
     "lies inside it"),  # loop2 inside rocker2 inside loop2: a cycle
    (lambda d: d["sublinkages"]["tree"][0].update(disposition="first"), "sublinkages.tree[0]"),
    (lambda d: d["sublinkages"]["tree"].append({"name": "crank", "parent": None,
                                                "disposition": "driven"}),
     "sublinkages.tree[3]"),
    (lambda d: d["sublinkages"]["tree"][0].pop("disposition"),
     "sublinkages.tree[0]: missing field 'disposition'"),
    (lambda d: d["sublinkages"]["links"].update(nope="crank"), "sublinkages.links.nope"),
    (lambda d: d["sublinkages"]["links"].update(crank="nowhere"), "sublinkages.links.crank"),
    (lambda d: d["sublinkages"]["links"].update(crank=None), "sublinkages.links: expected"),
    (lambda d: d["sublinkages"]["joints"].update(A=7), "sublinkages.joints: expected"),
    (lambda d: d["sublinkages"].update(joints=[]), "sublinkages.joints: expected an object"),
    (lambda d: d["sublinkages"].update(extra={}), "sublinkages: unknown field 'extra'"),
])
def test_a_bad_section_names_its_field(edit, message):
    with pytest.raises(MF.ModelFileError) as e:
        MF.from_dict(broken(edit))
    assert message in str(e.value)
