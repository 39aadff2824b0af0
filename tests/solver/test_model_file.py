"""The model file (issue 23, item 2): a linkage with every kind of goal written and read back
is the same linkage (its file is a fixed point, its solve gives the same poses); bad files
are refused naming the field, with nothing built."""
from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3
from vart_addon.solver import model_file as MF
from vart_addon.solver import validate as V


def at(x, y, angle=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, 0.0])


def rich_linkage() -> Linkage:
    """A four-bar with an inverted tree joint, a spring, limits, a mimic, a posture, a locked
    link, a target with a mask, gravity and a free link with a pin."""
    lk = Linkage()
    lk.add_link("crank", pose=at(0, 0, np.pi / 2), mass=1.0)
    lk.add_link("coupler", pose=at(0, 1), mass=2.0, com=[1.5, 0, 0])
    lk.add_link("rocker", pose=at(3, 0, np.pi / 2), mass=0.5)
    lk.add_link("block", pose=at(5, 0), mass=1.0, virtual=True)
    lk.add_link("tag", pose=at(6, 0))
    lk.add_joint("A", "revolute", None, "crank", world_frame=at(0, 0))
    lk.add_joint("B", "revolute", "crank", "coupler", world_frame=at(0, 1))
    lk.add_joint("D", "revolute", None, "rocker", world_frame=at(3, 0), lower=[-1], upper=[2])
    lk.add_joint("C", "revolute", "coupler", "rocker", world_frame=at(3, 1), lower=[-3],
                 upper=[3])
    lk.add_joint("P", "cartesian-2", None, "block", world_frame=at(5, 0), virtual=True)
    lk.add_joint("pin", "spherical", None, "tag", world_frame=at(6, 0))
    lk.invert_joint("B")
    lk.set_stiffness("A", 10.0, [0.2])
    lk.set_posture("P", [0.1, 0.0])
    lk.set_target("P", [0.3, -0.2], mask=[True, False])
    lk.lock_link("tag")
    lk.set_gravity([0, -9.81, 0])
    return lk


def test_write_read_is_the_same_linkage_and_solve():
    lk = rich_linkage()
    settings = Settings(max_iterations=321, lambda_max=0.07, max_ms=None)
    text = MF.dumps(lk, settings)
    lk2, s2 = MF.loads(text)
    assert s2 == settings
    assert MF.dumps(lk2, s2) == text  # a fixed point: every field read back exactly
    assert [j.tree_dir for j in lk2.joints.values()] == [j.tree_dir for j in lk.joints.values()]
    Solver(lk, settings).solve()
    Solver(lk2, s2).solve()
    p1, p2 = lk.poses(), lk2.poses()
    assert max(np.abs(p1[n] - p2[n]).max() for n in p1) < 1e-12


def test_mimic_round_trip():
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b")
    lk.add_joint("ja", "revolute", None, "a")
    lk.add_joint("jb", "revolute", None, "b")
    lk.set_mimic("jb", "ja", 2.0, 0.1)
    lk2, _ = MF.loads(MF.dumps(lk))
    assert lk2.joint("jb").mimic == ("ja", 2.0, 0.1)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1), solved=st.booleans())
def test_random_mechanisms_read_back_to_the_same_bits(vh, seed, solved):
    """Fixed defect (issue 35): 7 of 250 random mechanisms read back with frames a few units
    in the last place apart (up to 2.9e-15): the reader re-orthonormalized frames that were
    orthonormal to rounding, which moved their last bits. The file is a fixed point, and the
    read linkage solves to the same poses, bit for bit."""
    rng = np.random.default_rng(seed)
    try:
        lk = vh.random_tree(rng, closures=int(rng.integers(0, 3)))
        for name, j in lk.joints.items():
            if j.dof and rng.random() < 0.4:
                lk.set_target(name, j.q + rng.uniform(-0.5, 0.5, j.dof))
    except VartError:
        return
    if solved:
        Solver(lk, Settings(max_iterations=20)).solve()
    text = MF.dumps(lk)
    lk2, _ = MF.loads(text)
    assert MF.dumps(lk2) == text
    for a in (lk, lk2):
        Solver(a, Settings(max_iterations=20)).solve()
    p1, p2 = lk.poses(), lk2.poses()
    assert all(np.array_equal(p1[n], p2[n]) for n in p1)


def test_a_pose_validated_twice_is_the_same_and_float32_is_still_mended():
    rng = np.random.default_rng(3)
    for _ in range(200):
        T = se3.make_pose(se3.so3_exp(rng.normal(size=3)), rng.normal(size=3))
        once = V.pose(T, "T")
        assert np.array_equal(V.pose(once, "T"), once)
    T32 = T.astype(np.float32).astype(float)  # a Blender matrix: ~1e-7 from orthonormal
    R = V.pose(T32, "T")[:3, :3]
    assert np.abs(R.T @ R - np.eye(3)).max() < 1e-15


def doc():
    return json.loads(MF.dumps(rich_linkage()))


def broken(edit):
    d = doc()
    edit(d)
    return d


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(version=3), "version: 3 is newer than this vart reads"),
    (lambda d: d.update(format="other"), "format: expected 'vart-model'"),
    (lambda d: d.pop("gravity"), "missing field 'gravity'"),
    (lambda d: d.update(version=1), "unknown field 'sublinkages'"),
    (lambda d: d.pop("sublinkages"), "missing field 'sublinkages'"),
    (lambda d: d["joints"][2].update(lower="low"), "joints[2].lower: expected a list"),
    (lambda d: d["joints"][2].pop("pitch"), "joints[2]: missing field 'pitch'"),
    (lambda d: d["joints"][4].update(lock=[0.1] * 7), "joints[4].lock: expected a list of"),
    (lambda d: d["joints"][4]["target"].update(mask=[1, 0]), "joints[4].target.mask"),
    (lambda d: d["joints"][0].update(type="hinge"), "joints[0]"),
    (lambda d: d["joints"][0].update(T_parent_mob=[1, 0, 0]), "joints[0].T_parent_mob"),
    (lambda d: d["links"][1].update(mass=-1), "links[1]"),
    (lambda d: d["links"][0]["root"].update(tree="yes"), "links[0].root.tree"),
    (lambda d: d["settings"].update(max_iterations=0), "settings.max_iterations"),
    (lambda d: d["joints"][3].update(tree=1, q=[0.0]), "joints[3].tree"),
    (lambda d: d["joints"][0]["spring"].update(stiffness=-2), "joints[0].spring"),
    (lambda d: d["joints"][4]["target"].update(mask=[False, False]), "joints[4].target"),
])
def test_bad_file_names_the_field(edit, message):
    with pytest.raises(MF.ModelFileError) as e:
        MF.from_dict(broken(edit))
    assert message in str(e.value)


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Settings)])
def test_a_setting_the_file_lacks_takes_its_default(field):
    """Issue 34, item 4: a file written before a setting existed still loads; the setting
    takes its default and every other one keeps the file's value."""
    written = Settings(max_iterations=321, max_ms=12.5, tol=1e-8, stall_tol=1e-11,
                       max_step=0.3, sigma0=2e-3, lambda_max=0.07, max_halvings=7,
                       max_corrections=4, simplified_newton=False, predict_bend=False)
    d = json.loads(MF.dumps(rich_linkage(), written))
    del d["settings"][field]
    _, read = MF.from_dict(d)
    assert getattr(read, field) == getattr(Settings(), field)
    assert dataclasses.replace(read, **{field: getattr(written, field)}) == written
    d["settings"]["no_such_setting"] = 1.0  # an unknown one is still refused
    with pytest.raises(MF.ModelFileError, match="settings: unknown field 'no_such_setting'"):
        MF.from_dict(d)


def test_not_json_and_missing_file(tmp_path):
    with pytest.raises(MF.ModelFileError, match="not JSON"):
        MF.loads("{")
    with pytest.raises(MF.ModelFileError, match="model file"):
        MF.read(tmp_path / "none.json")


def test_a_file_nested_too_deeply_is_refused_with_the_place():
    """Fixed defect (issue 35): JSON nested 100,000 deep raised RecursionError out of
    ``loads`` (the study command then exited 1 with a traceback), and a value nested 900 deep,
    which Python's JSON reader still takes, raised it while the message showed the value."""
    with pytest.raises(MF.ModelFileError, match=r"not JSON: arrays and objects nested more "
                       r"than 500 deep \(line 1, column 501\)"):
        MF.loads("[" * 100_000 + "]" * 100_000)
    text = MF.dumps(rich_linkage())
    deep = text.replace('"lower": [', '"lower": ' + "[" * 100_000 + "]" * 100_000 + ", \"x\": [",
                        1)
    with pytest.raises(MF.ModelFileError, match=r"nested more than 500 deep \(line \d+"):
        MF.loads(deep)
    d = doc()
    d["joints"][2]["lower"] = json.loads("[" * 900 + "]" * 900)
    with pytest.raises(MF.ModelFileError, match=r"joints\[2\].lower: .*\[\[\[\[\[\[\[\[\.\.\.\]"):
        MF.from_dict(d)


def test_the_document_is_not_changed_by_reading():
    d = doc()
    before = copy.deepcopy(d)
    MF.from_dict(d)
    assert d == before


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["links"][1].update(mass=1e308), "links[1]: link 'coupler': mass: 1e+308 kg is beyond"),
    (lambda d: d["joints"][0]["spring"].update(stiffness=1e300), "stiffness: 1e+300"),
])
def test_a_mass_or_stiffness_no_machine_has_is_refused_naming_it(edit, message):
    """Fixed defect (issue 35's fuzzing): a link of 1e308 kg overflowed the solver's scaling
    into ZeroDivisionError; masses and stiffnesses are bounded (validate.MAX_MASS, ...)."""
    with pytest.raises(MF.ModelFileError) as e:
        MF.from_dict(broken(edit))
    assert message in str(e.value)
