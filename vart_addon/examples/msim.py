"""MSim's two analysis examples as *Add Example* entries, each with its study set up in the
sidebar's Study panel (``scene.vart.study``): press *Run Study*.

- ``step_probe``: the compliant mini-humanoid (ROBOTIS OP3) on its left foot probing a step
  of unknown height with its right heel (:func:`.msim_models.step_probe`);
- ``truss_gripper``: OP3's torso and arms closed on a truss bar whose sideways position is
  uncertain, a Monte Carlo study (:func:`.msim_models.truss_gripper`).

The linkage is built without Blender (:mod:`.msim_models`) and written into the scene as it
is: one Empty per link at its pose, the links' and joints' vart properties (goals, springs,
limits) through the bridge's schema; the step and the bar get a box to show them. Gravity is
turned on (the model's). Names that clash with the scene's get ``.001``..., and the study
follows them.
"""
from __future__ import annotations

import bpy
from mathutils import Matrix

from ..bridge import edits as E
from ..io_urdf.robot_objects import link_empties, write_records
from ..properties import set_study
from . import msim_models as MM
from .common import Built, _material, _scene_joint_names


def _write(context, key: str, lk, boxes: dict) -> tuple[Built, dict]:
    """Write linkage ``lk`` into a new collection ``key`` (see the module doc); ``boxes``:
    link -> (size xyz, offset in the link's frame, colour) of a box shown under it. Returns
    what was built and the joint names as written (model name -> scene name)."""
    scene = context.scene
    coll = bpy.data.collections.new(key)
    scene.collection.children.link(coll)
    poses = lk.poses()
    names = {n: E.unique_object_name(n) for n in lk.links}
    obs = link_empties(coll, names, poses, 0.02)
    existing = set(_scene_joint_names(scene))
    jnames = {}
    for jn in lk.joints:
        jnames[jn] = E.unique_joint_name(jn, existing)
        existing.add(jnames[jn])
    write_records(lk, obs, jnames, poses)  # then read back valid (cross-object checks)
    for link, (size, offset, rgba) in boxes.items():
        _box(coll, obs[link], f"{link}_box", size, offset, rgba)
    scene.vart.gravity_enabled = True
    scene.vart.gravity = tuple(float(g) for g in lk.gravity)
    context.view_layer.update()
    return Built(key, coll, obs, list(jnames.values())), jnames


def _box(coll, parent, name, size, offset, rgba):
    """A box mesh (``size`` m, centred at ``offset`` in ``parent``'s frame) under ``parent``."""
    sx, sy, sz = (0.5 * float(v) for v in size)
    v = [(x, y, z) for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)]
    f = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(v, [], f)
    mesh.materials.append(_material(name, rgba))
    ob = bpy.data.objects.new(E.unique_object_name(name), mesh)
    coll.objects.link(ob)
    ob.parent = parent
    ob.matrix_parent_inverse = Matrix.Identity(4)
    ob.matrix_basis = Matrix.Translation(tuple(float(x) for x in offset))


def _contacts(study: dict, jnames: dict) -> list:
    return [(jnames[c["joint"]], c["when"] == "at_limit") for c in study.get("contacts", [])]


def build_step_probe(context) -> Built:
    """The step probe (see the module doc): the robot, the step (a 0.3 x 0.2 m box whose top
    is the step's), and the study: the step's height from 0 to :data:`.msim_models.STEP_MAX`
    in :data:`.msim_models.STEP_SAMPLES` samples, the left sole's corners and the right heel
    (at its limit) as contacts."""
    lk, study = MM.step_probe()
    box = {"step": ((0.2, 0.3, 0.1), (0.06, 0.0, -0.05), (0.55, 0.45, 0.35, 1.0))}
    built, jnames = _write(context, "step_probe", lk, box)
    grid = study["variables"][0]["grid"]
    set_study(context.scene, jnames["step"], start=grid["start"], stop=grid["stop"],
              samples=grid["count"], contacts=_contacts(study, jnames), chunk=study["chunk"])
    return built


def build_truss_gripper(context) -> Built:
    """The truss gripper (see the module doc): the robot, the bar (a 20 mm square box, 0.3 m
    long) and the Monte Carlo study of the bar's offset."""
    lk, study = MM.truss_gripper()
    w = MM.BAR_WIDTH
    box = {"bar": ((0.3, w, w), (0.0, 0.0, 0.0), (0.6, 0.62, 0.66, 1.0))}
    built, jnames = _write(context, "truss_gripper", lk, box)
    p = study["variables"][0]["truncnormal"]
    set_study(context.scene, jnames["bar"], sampling="TRUNCNORMAL", mean=p["mean"],
              std=p["std"], start=p["low"], stop=p["high"], samples=study["samples"],
              seed=study["seed"], chunk=study["chunk"])
    return built


#: The joint each example's study varies, as the model names it.
STUDY_JOINT = {"step_probe": "step", "truss_gripper": "bar"}
__all__ = ["STUDY_JOINT", "build_step_probe", "build_truss_gripper"]
