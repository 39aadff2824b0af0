"""Bad input to the operators (real bpy): wrong selections (poll says why), a joint to itself,
deleted parents, hand-corrupted properties, NaN in fields. Each is refused with a clear
message and leaves the scene exactly as it was.

An operator called from Python that reports an error raises RuntimeError("Error: ...") (after
returning CANCELLED); a failing poll raises RuntimeError with the poll message."""
from __future__ import annotations

import bpy
import pytest

from vart_addon.bridge import BridgeError


def refused(opkit, call, *patterns):
    """``call()`` raises RuntimeError matching every pattern; the scene is unchanged."""
    before = opkit.snapshot()
    with pytest.raises(RuntimeError) as e:
        call()
    for p in patterns:
        assert p in str(e.value), str(e.value)
    assert opkit.snapshot() == before
    return str(e.value)


# ---- wrong selections: poll is false and says why -------------------------------------------
def test_polls_explain_wrong_selections(op_fourbar, opkit):
    fb = op_fourbar
    crank, coupler, rocker = fb.obs["crank"], fb.obs["coupler"], fb.obs["rocker"]
    plain = opkit.cube("Plain")
    opkit.select()
    refused(opkit, bpy.ops.vart.make_links, "Select the objects to make links")
    refused(opkit, bpy.ops.vart.add_joint, "Make the child link active")
    opkit.select(crank, coupler, rocker)
    assert not bpy.ops.vart.add_joint.poll()
    refused(opkit, bpy.ops.vart.add_joint, "Select at most two links")
    opkit.select(plain, rocker, active=rocker)
    refused(opkit, bpy.ops.vart.add_joint, "'Plain' is not a link")
    opkit.select(plain)
    for op in ("set_mass", "make_ground_link", "split_link"):
        refused(opkit, getattr(bpy.ops.vart, op), "The active object is not a link")
    bpy.context.scene.vart.active_joint = ""
    for op in ("remove_joint", "invert_joint", "set_target", "operate_joint", "set_limits",
               "change_joint_type", "merge_joint", "set_joint_frame_from_cursor"):
        refused(opkit, getattr(bpy.ops.vart, op), "No active joint")
    refused(opkit, bpy.ops.vart.lock, "Needs an active joint")
    opkit.select(crank)  # the crank has A and B: no single joint to fall back to
    refused(opkit, bpy.ops.vart.remove_joint, "No active joint")
    bpy.context.scene.vart.active_joint = "A"
    refused(opkit, bpy.ops.vart.make_tree_joint, "'A' is already a tree joint")
    bpy.context.scene.vart.active_joint = "C"
    refused(opkit, bpy.ops.vart.make_closure_joint, "'C' is already a closure joint")
    bpy.context.scene.vart.active_joint = "no such joint"
    refused(opkit, bpy.ops.vart.set_target, "No active joint")


def test_edit_mode_is_refused(op_fourbar, opkit):
    opkit.select(op_fourbar.obs["coupler"])
    bpy.ops.object.mode_set(mode='EDIT')
    try:
        assert bpy.context.mode == 'EDIT_MESH'
        refused(opkit, bpy.ops.vart.solve, "Switch to Object Mode")
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')


# ---- structurally wrong requests -------------------------------------------------------------
def test_a_joint_to_itself_is_refused(op_fourbar, opkit):
    coupler = op_fourbar.obs["coupler"]
    opkit.select(coupler)
    refused(opkit, lambda: bpy.ops.vart.add_joint(parent="coupler"),
            "Error: joint 'coupler-coupler': parent and child are the same link 'coupler'")
    refused(opkit, lambda: bpy.ops.vart.add_joint(parent="nope"), "no object named 'nope'")
    refused(opkit, lambda: bpy.ops.vart.add_joint(name="A"), "joint 'A' already exists")
    refused(opkit, lambda: bpy.ops.vart.add_joint(name="x" * 64), "longer than 63 characters")


def test_refused_edits_of_the_solver(op_fourbar, opkit):
    fb = op_fourbar
    bpy.context.scene.vart.active_joint = "C"
    assert bpy.ops.vart.change_joint_type(joint_type="point-slider") == {'FINISHED'}
    refused(opkit, bpy.ops.vart.invert_joint, "a point-slider joint cannot be inverted")
    opkit.select(fb.obs["crank"])
    bpy.context.scene.vart.active_joint = "D"
    refused(opkit, lambda: bpy.ops.vart.split_link(take_active_joint=True),
            "the active joint is not attached to link 'crank'")


def test_mirrored_objects_cannot_become_links(opkit):
    a, b = opkit.cube("Good"), opkit.cube("Mirror", (1.0, -1.0, 1.0))
    bpy.context.view_layer.update()
    opkit.select(a, b)
    refused(opkit, bpy.ops.vart.make_links, "object 'Mirror': negative (mirrored) scale")
    assert "vart" not in a.keys()  # all or nothing


# ---- a deleted parent --------------------------------------------------------------------------
OPS = [("solve", None, {}), ("operate_joint", "D", {"value": (10.0, 0, 0, 0, 0, 0)}),
       ("lock", "D", {}), ("set_target", "D", {}), ("invert_joint", "C", {}),
       ("remove_joint", "D", {}), ("set_limits", "D", {})]


def _call(name, joint, kw):
    if joint is not None:
        bpy.context.scene.vart.active_joint = joint
    return getattr(bpy.ops.vart, name)(**kw)


@pytest.mark.parametrize("how,message", [
    ("remove", "the parent object 'crank' no longer exists"),
    ("delete", "the parent object 'crank' is not in this scene")])
def test_a_deleted_parent_refuses_every_edit(op_fourbar, opkit, how, message):
    fb = op_fourbar
    if how == "remove":
        bpy.data.objects.remove(fb.obs["crank"])
    else:
        opkit.select(fb.obs["crank"])
        bpy.ops.object.delete()
    for name, joint, kw in OPS:
        refused(opkit, lambda: _call(name, joint, kw), "object 'coupler'",  # noqa: B023
                '["vart"]["joints"]["B"]["parent"]', message)
    opkit.select(fb.obs["rocker"], fb.obs["coupler"], active=fb.obs["rocker"])
    refused(opkit, lambda: bpy.ops.vart.add_joint(joint_type="prismatic"), message)


# ---- hand-corrupted properties and NaN ---------------------------------------------------------
def _set(obj, joint, key, value):
    def f(obs):
        obs[obj]["vart"]["joints"][joint][key] = value
    return f


def _nan_frame(obs):
    m = list(obs["coupler"]["vart"]["joints"]["B"]["T_parent_mob"])
    m[3] = float("nan")
    obs["coupler"]["vart"]["joints"]["B"]["T_parent_mob"] = m


CORRUPT = [
    ("q string", _set("rocker", "D", "q", "abc"), "object 'rocker'", '["D"]["q"]',
     "expected 1 float, got the string 'abc'"),
    ("q size", _set("crank", "A", "q", [0.1, 0.2]), "object 'crank'", '["A"]["q"]',
     "expected 1 float, got 2"),
    ("nan frame", _nan_frame, "object 'coupler'", '["B"]["T_parent_mob"]',
     "entry 3: must be finite, got nan"),
    ("nan q", _set("crank", "A", "q", [float("nan")]), "object 'crank'", '["A"]["q"]',
     "must be finite"),
    ("unknown type", _set("rocker", "C", "type", "hinge"), "object 'rocker'", '["C"]["type"]',
     "unknown joint type 'hinge'"),
    ("mass string", lambda obs: obs["crank"]["vart"]["link"].__setitem__("mass", "heavy"),
     "object 'crank'", '["link"]["mass"]', "expected a float"),
    ("self parent", _set("coupler", "B", "parent", None), "", "", ""),  # replaced below
]
CORRUPT[-1] = ("self parent", lambda obs: _set("coupler", "B", "parent", obs["coupler"])(obs),
               "object 'coupler'", '["B"]["parent"]', "cannot connect a link to itself")


@pytest.mark.parametrize("corrupt,obj,key,problem", [c[1:] for c in CORRUPT],
                         ids=[c[0] for c in CORRUPT])
def test_corrupted_properties_refuse_every_edit(op_fourbar, opkit, corrupt, obj, key, problem):
    fb = op_fourbar
    corrupt(fb.obs)
    for name, joint, kw in OPS:
        refused(opkit, lambda: _call(name, joint, kw), obj, key, problem)  # noqa: B023  (called at once)
    opkit.select(fb.obs["coupler"])
    refused(opkit, bpy.ops.vart.make_ground_link, obj, key, problem)
    refused(opkit, lambda: bpy.ops.vart.set_mass(mass=1.0), obj, key, problem)


def test_a_corrupt_link_cannot_be_made_a_link_again(op_fourbar, opkit):
    fb = op_fourbar
    fb.obs["crank"]["vart"]["link"]["com"] = "x"
    opkit.select(fb.obs["crank"])
    refused(opkit, bpy.ops.vart.make_links, "object 'crank'", '["link"]["com"]')


@pytest.mark.parametrize("op,joint,kw,problem", [
    ("operate_joint", "A", {"value": (float("nan"),) + (0.0,) * 5}, "must be finite"),
    ("set_limits", "A", {"lower": (float("nan"),) + (0.0,) * 5}, "NaN"),
    ("set_stiffness", "A", {"stiffness": float("nan")}, "finite"),
    ("set_mass", None, {"mass": float("nan")}, "must be finite"),
    ("set_mass", None, {"com": (0.0, float("nan"), 0.0)}, "must be finite"),
    ("set_limits", "A", {"lower": (20.0,) + (0.0,) * 5, "upper": (10.0,) + (0.0,) * 5},
     "lower limit"),
    ("operate_joint", "nope", {}, "No active joint"),
])
def test_nan_and_inconsistent_operator_fields_are_refused(op_fourbar, opkit, op, joint, kw,
                                                          problem):
    opkit.select(op_fourbar.obs["crank"])
    bpy.context.scene.vart.active_joint = joint or "A"
    refused(opkit, lambda: getattr(bpy.ops.vart, op)(**kw), problem)


# ---- an edit that fails half-way is undone completely ------------------------------------------
def test_a_failure_while_writing_restores_everything(op_fourbar, opkit, monkeypatch):
    """Fault injection into the bridge's own write function (not a mock of Blender): a joint
    write fails after the link properties were written; they must be rolled back."""
    from vart_addon.bridge import schema
    fb = op_fourbar
    real = schema.update_joint
    calls = []

    def failing(*a, **kw):
        calls.append(a[1])
        raise BridgeError("injected failure")
        return real(*a, **kw)

    monkeypatch.setattr(schema, "update_joint", failing)
    opkit.select(fb.obs["coupler"])
    refused(opkit, bpy.ops.vart.make_ground_link, "injected failure")
    assert calls == ["A"]
    monkeypatch.setattr(schema, "update_joint", real)
    bpy.context.scene.vart.active_joint = "C"
    opkit.cursor(fb.planar(*fb.p["C"]))
    monkeypatch.setattr(schema, "write_joint", lambda *a, **kw: (_ for _ in ()).throw(
        BridgeError("injected failure")))
    n = len(bpy.data.objects)
    refused(opkit, lambda: bpy.ops.vart.split_link(take_active_joint=True), "injected failure")
    assert len(bpy.data.objects) == n  # the new empty was removed again


# ---- what every edit refuses, Key Joint and Export Trajectory refuse too ------------------------
def _zero_scale(obs):
    obs["rocker"].scale = (0.0, 0.0, 0.0)
    bpy.context.view_layer.update()


def _mimic_cycle(obs):
    obs["crank"]["vart"]["joints"]["A"]["mimic"] = {"leader": "D", "multiplier": 1.0,
                                                   "offset": 0.0}
    obs["rocker"]["vart"]["joints"]["D"]["mimic"] = {"leader": "A", "multiplier": 1.0,
                                                    "offset": 0.0}


@pytest.mark.parametrize("corrupt, problem", [
    (_zero_scale, "object 'rocker'"),
    (_set("crank", "A", "lower", [2.0]), "outside the joint's limits"),
    (_mimic_cycle, "mimic cycle"),
], ids=["zero scale", "q outside limits", "mimic cycle"])
def test_key_joint_and_export_refuse_what_every_edit_refuses(op_fourbar, opkit, tmp_path,
                                                              corrupt, problem):
    """Fixed defect (issue 19): Export Trajectory and Key Joint finished on scenes every
    other operator refuses; now they refuse them too, keying and writing nothing."""
    fb = op_fourbar
    if problem == "outside the joint's limits":
        fb.obs["crank"]["vart"]["joints"]["A"]["upper"] = [3.0]
    corrupt(fb.obs)
    bpy.context.scene.vart.active_joint = "A"
    refused(opkit, bpy.ops.vart.solve, problem)
    refused(opkit, bpy.ops.vart.key_joint, problem)
    out = tmp_path / "motion.csv"
    refused(opkit, lambda: bpy.ops.vart.export_trajectory(filepath=str(out)), problem)
    assert not out.exists()


def test_a_named_joint_that_does_not_exist_is_never_replaced_by_the_links_joint(op_fourbar,
                                                                                 opkit):
    """Fixed defect (issue 19): with the active joint's name stale, Operate Joint acted on the
    active link's single joint."""
    bpy.context.scene.vart.active_joint = "C"
    assert bpy.ops.vart.remove_joint() == {'FINISHED'}  # the rocker keeps one joint: D
    opkit.select(op_fourbar.obs["rocker"])
    bpy.context.scene.vart.active_joint = "gone"
    refused(opkit, lambda: bpy.ops.vart.operate_joint(value=(10.0, 0, 0, 0, 0, 0)),
            "the active joint 'gone' does not exist")
    bpy.context.scene.vart.active_joint = ""  # none named: the link's single joint
    assert bpy.ops.vart.operate_joint(value=(10.0, 0, 0, 0, 0, 0)) == {'FINISHED'}


def test_operate_joint_on_a_corrupt_type_names_the_object_and_key(op_fourbar, opkit):
    op_fourbar.obs["rocker"]["vart"]["joints"]["D"]["type"] = "hinge"
    bpy.context.scene.vart.active_joint = "D"
    refused(opkit, lambda: bpy.ops.vart.operate_joint(value=(10.0, 0, 0, 0, 0, 0)),
            "object 'rocker'", '["D"]["type"]', "unknown joint type 'hinge'")
