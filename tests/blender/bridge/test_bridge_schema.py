"""The property layout (real bpy): what is stored with which type, what reads back, what is
refused (and that a refused write changes nothing)."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from vart_addon.bridge import (
    JointData,
    LinkData,
    MimicData,
    SchemaError,
    is_link,
    q_data_path,
    read_object,
    read_scene,
    remove_joint,
    update_joint,
    update_link,
    write_joint,
    write_link,
)
from vart_addon.solver import se3

INF = float("inf")


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def new(name: str):
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def stored(ob):
    raw = ob.get("vart")
    return None if raw is None else repr(raw.to_dict())


def test_write_link_stores_floats_and_real_bools():
    ob = new("Deck")
    link = write_link(ob, mass=2, com=(0, 0, 1), virtual=True, locked=True,
                      lock_pose=se3.make_pose(se3.rot_z(0.5), [1, 2, 3]))
    g = ob["vart"]["link"]
    assert isinstance(g["mass"], float) and g["mass"] == 2.0  # an int argument stored as float
    assert g["com"].typecode == "d" and list(g["com"]) == [0.0, 0.0, 1.0]
    assert g["virtual"] is True and g["locked"] is True and g["root_tree"] is True
    assert g["lock_pose"].typecode == "d" and len(g["lock_pose"]) == 16
    assert ob["vart"]["version"] == 1
    assert read_object(ob) == (link, [])
    assert link == LinkData("Deck", 2.0, (0.0, 0.0, 1.0), True, True, True,
                            tuple(se3.make_pose(se3.rot_z(0.5), [1, 2, 3]).reshape(16)))


def test_write_joint_layout_types_and_round_trip():
    parent, child = new("Thigh"), new("Shin")
    write_link(parent)
    write_link(child)
    Tpm = se3.make_pose(se3.rot_z(0.1), [0, 0, 1])
    j = write_joint(child, "knee", "revolute", parent, T_parent_mob=Tpm, q=[1],
                    lower=[-2], target_q=[0.5], posture_q=[0.25], stiffness=3, rest_q=[0.1],
                    virtual=True)
    g = child["vart"]["joints"]["knee"]
    from vart_addon.bridge import goal_fields as GF
    assert set(g.keys()) == {"type", "parent", "parent_name", "T_parent_mob", "T_child_frame",
                             "q", "lower", "upper", "pitch", "virtual", "tree", "locked",
                             "lock_q", "target_mask", "target_q", "has_posture", "posture_q",
                             "stiffness", "rest_q"} | set(GF.keys("joint"))  # + later kinds'
    assert {"torque_limit", "torque_limit_effort"} <= set(g.keys())
    assert g["parent"] == parent and g["parent_name"] == "Thigh"  # an ID pointer in a group
    for key in ("T_parent_mob", "T_child_frame", "q", "lower", "upper", "lock_q", "target_q",
                "posture_q", "rest_q"):
        assert g[key].typecode == "d", key  # doubles: keyframes interpolate, never step
    assert g["target_mask"].typecode == "b" and list(g["target_mask"]) == [True]
    assert list(g["upper"]) == [INF] and list(g["lower"]) == [-2.0]  # inf is stored as is
    assert isinstance(g["pitch"], float) and isinstance(g["stiffness"], float)
    assert g["virtual"] is True and g["tree"] is True and g["has_posture"] is True
    assert j == JointData(name="knee", child="Shin", type="revolute", parent="Thigh",
                          T_parent_mob=tuple(Tpm.reshape(16)),
                          T_child_frame=tuple(np.eye(4).reshape(16)), q=(1.0,), lower=(-2.0,),
                          upper=(INF,), pitch=0.0, virtual=True, tree=True, locked=False,
                          lock_q=(1.0,), target_mask=(True,), target_q=(0.5,),
                          has_posture=True, posture_q=(0.25,), stiffness=3.0, rest_q=(0.1,),
                          mimic=None, parent_name="Thigh")
    assert read_object(child)[1] == [j]
    assert j.has_target and j.dof == 1


def test_every_catalog_type_round_trips_including_the_zero_dof_fixed():
    from vart_addon.solver import CATALOG
    base = new("Base")
    write_link(base)
    for i, (name, jt) in enumerate(CATALOG.items()):
        ob = new(f"L{i}")
        write_link(ob)
        q = np.linspace(0.1, 0.5, jt.dof)
        j = write_joint(ob, f"j_{name}", name, base, q=q, pitch=0.2 if jt.helical else 0.0)
        assert j.q == tuple(q) and len(ob["vart"]["joints"][f"j_{name}"]["q"]) == jt.dof
    data = read_scene(bpy.context.scene.objects)
    assert len(data.joints) == len(CATALOG) and data.joints["j_fixed"].q == ()


def test_a_minimal_hand_written_joint_gets_defaults_and_ints_read_as_floats():
    a, b = new("A"), new("B")
    a["vart"] = {}
    b["vart"] = {"joints": {"hinge": {"type": "revolute", "parent": a,
                                      "T_parent_mob": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0,
                                                       0, 0, 0, 1],
                                      "T_child_frame": list(np.eye(4).reshape(16)),
                                      "q": 1, "tree": 1}}}
    data = read_scene([a, b])
    j = data.joints["hinge"]
    assert j.q == (1.0,) and isinstance(j.q[0], float) and j.tree is True
    assert j.lower == (-INF,) and j.upper == (INF,) and not j.has_target and j.parent == "A"
    assert data.links["A"] == LinkData("A")


def test_update_joint_changes_only_what_is_asked():
    a, b = new("A"), new("B")
    write_link(a)
    write_link(b)
    write_joint(b, "hinge", "revolute", a, q=[0.3])
    update_joint(b, "hinge", target_q=(0.7,), target_mask=(True,))
    j = update_joint(b, "hinge", locked=True, lock_q=(0.2,))
    assert j.target_q == (0.7,) and j.locked and j.lock_q == (0.2,) and j.q == (0.3,)
    j = update_joint(b, "hinge", parent=None)
    assert j.parent is None and b["vart"]["joints"]["hinge"]["parent_name"] == ""
    write_joint(a, "lead", "prismatic", None)
    j = update_joint(b, "hinge", mimic=("lead", 2.0, 0.1))
    assert j.mimic == MimicData("lead", 2.0, 0.1)
    assert read_scene([a, b]).joints["hinge"].mimic == MimicData("lead", 2.0, 0.1)
    j = update_joint(b, "hinge", mimic=None)
    assert "mimic" not in b["vart"]["joints"]["hinge"] and j.mimic is None
    link = update_link(a, mass=4.0)
    assert link.mass == 4.0 and read_object(a)[1][0].name == "lead"  # joints kept


def test_q_data_path_escapes_joint_names():
    ob = new("A")
    write_link(ob)
    write_joint(ob, 'tilt "x"\\y', "revolute")
    path = q_data_path('tilt "x"\\y')
    assert path == '["vart"]["joints"]["tilt \\"x\\"\\\\y"]["q"]'
    assert ob.path_resolve(path)[0] == 0.0


@pytest.mark.parametrize("kwargs,key,problem", [
    (dict(jtype="hinge"), '["type"]', "unknown joint type 'hinge'"),
    (dict(q=[1.0, 2.0]), '["q"]', "expected 1 float, got 2"),
    (dict(q=[float("nan")]), '["q"]', "must be finite"),
    (dict(q="abc"), '["q"]', "expected 1 float, got the string 'abc'"),
    (dict(T_parent_mob=np.eye(3)), '["T_parent_mob"]', "expected 16 floats, got 9"),
    (dict(T_child_frame=2 * np.eye(4)), '["T_child_frame"]', "not a rigid transform"),
    (dict(lower=[1.0], upper=[0.0]), '["lower"]', "must be below upper"),
    (dict(lower=[float("nan")]), '["lower"]', "must be finite"),
    (dict(pitch=float("inf")), '["pitch"]', "must be finite"),
    (dict(stiffness=-1.0), '["stiffness"]', "must be >= 0"),
    (dict(jtype="spherical", q=[0, 0, 0], stiffness=1.0), '["stiffness"]', "1-DoF joints"),
    (dict(target_q=[1.0], target_mask=[1.5]), '["target_mask"][0]', "expected a bool"),
    (dict(parent="self"), '["parent"]', "cannot connect a link to itself"),
    (dict(parent="plain"), '["parent"]', "is not a link"),
    (dict(name="x" * 64), '["x', "1 to 63 characters"),
    (dict(name=""), '[""]', "1 to 63 characters"),
])
def test_write_joint_refuses_bad_values_and_writes_nothing(kwargs, key, problem):
    parent, child, plain = new("P"), new("C"), new("Plain")
    write_link(parent)
    kw = dict(name="j", jtype="revolute", parent=parent)
    kw.update(kwargs)
    kw["parent"] = {"self": child, "plain": plain}.get(kw["parent"], kw["parent"])
    before = [stored(o) for o in (parent, child, plain)]
    with pytest.raises(SchemaError) as e:
        write_joint(child, kw.pop("name"), kw.pop("jtype"), kw.pop("parent"), **kw)
    assert key in str(e.value) and problem in str(e.value), str(e.value)
    assert [stored(o) for o in (parent, child, plain)] == before
    assert not is_link(child)  # not even made a link


def test_write_link_refuses_bad_values_and_writes_nothing():
    ob = new("L")
    write_link(ob, mass=1.0)
    before = stored(ob)
    for kw, problem in [(dict(mass=-1), "must be >= 0"), (dict(com=(0, 0)), "expected 3"),
                        (dict(mass=float("nan")), "must be finite"),
                        (dict(lock_pose=np.diag([1, 1, -1, 1])), "reflection")]:
        with pytest.raises(SchemaError, match=problem):
            write_link(ob, **kw)
        assert stored(ob) == before


def test_writing_into_garbage_or_newer_data_is_refused():
    ob = new("L")
    ob["vart"] = [1.0, 2.0]
    with pytest.raises(SchemaError, match="expected a group"):
        write_link(ob)
    ob["vart"] = {"version": 2}
    with pytest.raises(SchemaError, match="newer vart"):
        write_joint(ob, "j", "revolute")
    assert ob["vart"].to_dict() == {"version": 2}


def test_read_scene_skips_plain_objects_sorts_and_checks_across_objects():
    a, b, c = new("b_link"), new("a_link"), new("c_link")
    new("plain")  # an object without vart data: not a link
    for ob in (a, b, c):
        write_link(ob)
    write_joint(a, "z", "revolute", b)
    write_joint(c, "y", "prismatic", a)
    data = read_scene(bpy.context.scene.objects)
    assert list(data.links) == ["a_link", "b_link", "c_link"] and list(data.joints) == ["y", "z"]
    write_joint(b, "z", "revolute", c)  # the same joint name on another object
    with pytest.raises(SchemaError, match="duplicate joint name: object 'a_link'"):
        read_scene(bpy.context.scene.objects)
    remove_joint(b, "z")
    assert "z" not in b["vart"]["joints"]
    # a parent outside the given objects
    with pytest.raises(SchemaError,
                       match="object 'b_link': .*parent object 'a_link' is not in this scene"):
        read_scene([a, c])


def test_bools_from_old_files_or_hand_edits_as_ints_are_accepted():
    ob = new("L")
    write_link(ob)
    ob["vart"]["link"]["virtual"] = 1
    ob["vart"]["link"]["locked"] = 0
    link, _ = read_object(ob)
    assert link.virtual is True and link.locked is False
    ob["vart"]["link"]["virtual"] = 2
    with pytest.raises(SchemaError, match=r'\["virtual"\]: expected a bool, got a number'):
        read_object(ob)


def test_id_pointer_follows_a_rename_and_write_back_refreshes_the_name():
    from vart_addon.bridge import SceneBridge
    a, b = new("A"), new("B")
    write_link(a)
    write_link(b, root_tree=False)
    write_joint(b, "hinge", "revolute", a, T_parent_mob=se3.make_pose(None, [1, 0, 0]))
    a.name = "Renamed"
    data = read_scene(bpy.context.scene.objects)
    assert data.joints["hinge"].parent == "Renamed"
    assert data.joints["hinge"].parent_name == "A"  # stale until written back
    bridge = SceneBridge()
    bridge.solve()
    bridge.write_back()
    assert b["vart"]["joints"]["hinge"]["parent_name"] == "Renamed"
    assert math.isfinite(bridge.linkage.joint("hinge").q[0])


def test_the_stored_goals_are_derived_from_the_solver_kinds_and_match_the_records():
    """Issue 34, item 1: every goal kind a user sets has its stored keys (a joint's or a
    link's), known to the schema; the first kinds' keys are the record's explicit fields
    (structure aside), any later kind's live in ``goals``; the link's lock is its root
    joint's lock kind."""
    from dataclasses import fields as dc_fields

    from vart_addon.bridge import goal_fields as GF
    from vart_addon.bridge import schema as S
    from vart_addon.bridge.records import JointData, LinkData
    from vart_addon.solver import goal_kinds as GK
    structure = {"name", "child", "type", "parent", "parent_name", "T_parent_mob",
                 "T_child_frame", "q", "lower", "upper", "pitch", "virtual", "tree", "mimic",
                 "goals"}
    record = {f.name for f in dc_fields(JointData)} - structure
    assert record == {k for g in GF.joint_goals() if (g.owner, g.name) in GF._LEGACY
                      for k in g.all_keys}
    assert [g.kind for g in GF.joint_goals()] == list(GK.settable("joint"))
    assert [g.kind for g in GF.link_goals()] == [GK.KIND["lock"], *GK.settable("link")]
    assert set(GF.keys("joint")) <= set(S._JOINT_KEYS)
    assert set(GF.keys("link")) <= set(S._LINK_KEYS)
    assert {f.name for f in dc_fields(LinkData)} - {"name", "mass", "com", "virtual",
                                                     "root_tree", "goals"} == \
        {"locked", "lock_pose"}
    for g in GF.joint_goals() + GF.link_goals():
        assert len(g.keys) == len(g.values) and len(set(g.all_keys)) == len(g.all_keys)
        assert g.switch or any(v.kind in ("mask", "scalar") for v in g.values), g.name


@pytest.mark.parametrize("key, index, value", [
    ("T_parent_mob", 3, 1e39), ("T_parent_mob", 7, 1e300), ("T_parent_mob", 11, -1e39),
    ("T_child_frame", 3, 1e39), ("T_child_frame", 11, 1e300), ("q", 0, 1e39),
    ("q", 0, -1e300), ("lock_q", 0, 1e39), ("target_q", 0, 1e39),
])
def test_magnitudes_no_scene_can_hold_are_refused_naming_object_and_key(key, index, value):
    """Fixed defect (issue 19, defect 2): a stored translation or prismatic value of 1e39 or
    1e300 passed validation (finite), the solve said "Converged" and ``matrix_world`` got
    inf. Now the stored joint is refused and nothing is solved or written."""
    from vart_addon.bridge import SceneBridge
    base, slider = new("Base"), new("Slider")
    write_link(base)
    write_link(slider)
    write_joint(slider, "slide", "prismatic", base)
    group = slider["vart"]["joints"]["slide"]
    values = list(group[key])
    values[index] = value
    group[key] = values
    before = [np.array(ob.matrix_world) for ob in (base, slider)]
    with pytest.raises(SchemaError, match=rf"object 'Slider'.*{key}.*beyond the 1e\+06"):
        SceneBridge().solve()
    assert all(np.array_equal(np.array(ob.matrix_world), M)
               for ob, M in zip((base, slider), before))


def test_the_solver_api_refuses_the_same_magnitudes():
    from vart_addon.solver import Linkage, VartError
    lk = Linkage()
    lk.add_link("a")
    with pytest.raises(VartError, match=r"world_frame: translation: 1e\+39 is beyond the 1e\+06"):
        lk.add_joint("j", "prismatic", None, "a", world_frame=se3.make_pose(None, [1e39, 0, 0]))
    lk.add_joint("j", "prismatic", None, "a")
    with pytest.raises(VartError, match=r"beyond the 1e\+06 \(m, rad\) a scene can hold"):
        lk.set_q("j", [1e39])
    assert lk.joint("j").q.tolist() == [0.0]


# ---- issue 19, item 15: scene validation no test checked -----------------------------------
@pytest.mark.parametrize("leader, problem", [
    ("ball", "joint 'ball' cannot be a leader here (it must be another 1-DoF joint)"),
    ("slide", "joint 'slide' cannot be a leader here (it must be another 1-DoF joint)"),
    ("nobody", "no joint named 'nobody'"),
])
def test_a_mimic_leader_of_several_dof_itself_or_missing_is_refused(leader, problem):
    base, a, b = new("Base"), new("A"), new("B")
    for ob in (base, a, b):
        write_link(ob)
    write_joint(a, "slide", "prismatic", base)
    write_joint(b, "ball", "spherical", base)
    a["vart"]["joints"]["slide"]["mimic"] = {"leader": leader, "multiplier": 1.0,
                                             "offset": 0.0}
    with pytest.raises(SchemaError) as e:
        read_scene([base, a, b])
    assert str(e.value).startswith("object 'A': ")
    assert '["slide"]["mimic"]["leader"]' in str(e.value) and problem in str(e.value)


@pytest.mark.parametrize("value", [3.0, "deck", [1, 2]])
def test_a_link_entry_that_is_not_a_group_is_refused_naming_it(value):
    ob = new("Deck")
    write_link(ob)
    ob["vart"]["link"] = value
    with pytest.raises(SchemaError, match=r"^object 'Deck': \[\"vart\"\]\[\"link\"\]"):
        read_object(ob)


def test_a_kept_read_follows_every_change_of_the_data_and_of_parent_names():
    """read_scene keeps each object's validated read while its data is unchanged (a bake
    with animated goal fields reads the scene every frame): a changed value, a parent's new
    name and a bad value written straight into the property are all seen at the next read."""
    a, b = new("A"), new("B")
    write_link(a)
    write_link(b, root_tree=False)
    write_joint(b, "hinge", "revolute", a, T_parent_mob=se3.make_pose(None, [1, 0, 0]))
    write_joint(b, "slide", "prismatic", a, tree=False)
    first = read_scene(bpy.context.scene.objects)
    assert read_scene(bpy.context.scene.objects).joints["hinge"] is first.joints["hinge"]
    b["vart"]["joints"]["hinge"]["q"] = [0.25]
    again = read_scene(bpy.context.scene.objects)
    assert again.joints["hinge"].q == (0.25,)
    assert again.joints["slide"] is first.joints["slide"]  # its own dict did not change
    a.name = "Renamed"
    assert read_scene(bpy.context.scene.objects).joints["hinge"].parent == "Renamed"
    b["vart"]["joints"]["hinge"]["q"] = [float("nan")]
    with pytest.raises(SchemaError, match="hinge"):
        read_scene(bpy.context.scene.objects)
    with pytest.raises(SchemaError, match="hinge"):  # refused again, not remembered
        read_scene(bpy.context.scene.objects)
