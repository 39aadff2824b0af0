"""The objects every robot import makes (URDF, MJCF): a collection, one Empty per link at its
world pose, the links' and joints' vart properties straight from the linkage, and the rule
that an import adds the whole robot or nothing.

- :func:`building`: a context for the build: on any error everything added to ``bpy.data``
  is removed again, the selection and active object are put back, and a linkage or scene
  error becomes an :class:`~.errors.IoError` naming the file.
- :func:`object_names` / :func:`joint_names`: names that clash with nothing in the file or
  the scene (``name.001``...).
- :func:`link_empties` and :func:`write_records`;
- :func:`place_on_ground`: the lowest point of a robot's geometry on z = 0
  (:func:`lowest_point`).
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import bpy
import numpy as np
from mathutils import Matrix

from ..bridge import edits as E
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..solver import VartError
from .errors import IoError
from .mesh_data import _Added


@contextmanager
def building(ctx, scene, path):
    """Run an import's build (see the module doc); ``path``: the file, for messages."""
    added = _Added()
    vl = ctx.view_layer if ctx.view_layer is not None else scene.view_layers[0]
    selected = [ob for ob in vl.objects if ob is not None and ob.select_get()]
    active = vl.objects.active
    try:
        yield
    except BaseException as e:
        added.remove()
        _restore_selection(vl, selected, active)
        if isinstance(e, (BridgeError, VartError)):
            raise IoError(f"{os.path.basename(path)}: {e}") from None
        raise
    _restore_selection(vl, selected, active)


def _restore_selection(vl, selected, active):
    try:
        for ob in vl.objects:  # (None: the base of an object just removed, until resynced)
            if ob is not None:
                ob.select_set(ob in selected)
        vl.objects.active = active
    except (ReferenceError, RuntimeError):
        pass


class _TakenNames:
    """Object names in bpy.data or already chosen (a container for unique_joint_name)."""

    def __init__(self, chosen):
        self.chosen = chosen

    def __contains__(self, name):
        return name in self.chosen or bpy.data.objects.get(name) is not None


def object_names(links) -> dict:
    """Link name -> a name for its object that no object has (``name.001``...)."""
    taken: set[str] = set()
    out = {}
    for n in links:
        out[n] = E.unique_joint_name(n, _TakenNames(taken))
        taken.add(out[n])
    return out


def _scene_joint_names(scene):
    for ob in scene.objects:
        try:
            joints = ob[S.KEY]["joints"]
            yield from joints.keys()
        except (KeyError, TypeError, AttributeError):
            continue


def joint_names(scene, joints) -> dict:
    """Joint name -> a name no joint of ``scene`` has (``name.001``...)."""
    used = set(_scene_joint_names(scene))
    out = {}
    for jn in joints:
        out[jn] = E.unique_joint_name(jn, used)
        used.add(out[jn])
    return out


def link_empties(coll, names: dict, poses: dict, size: float) -> dict:
    """One Empty (axes, ``size`` m) per link in ``names`` (link -> object name) at its world
    pose ``poses[link]`` (4x4), in collection ``coll``. Returns link name -> object."""
    obs = {}
    for link, obname in names.items():
        ob = bpy.data.objects.new(obname, None)
        ob.empty_display_type = 'ARROWS'
        ob.empty_display_size = size
        coll.objects.link(ob)
        ob.matrix_world = Matrix(poses[link].tolist())
        obs[link] = ob
        if ob.name != obname:
            raise IoError(f"link {link!r}: the object got the name {ob.name!r}")
    return obs


def lowest_point(obs, depsgraph) -> float | None:
    """The lowest world height (m) of the evaluated geometry of the objects ``obs`` and
    everything below them in Blender, or None when they have none."""
    low = None
    seen: set = set()
    stack = list(obs)
    while stack:
        ob = stack.pop()
        if ob.name in seen:
            continue
        seen.add(ob.name)
        stack.extend(ob.children)
        if ob.type not in ('MESH', 'CURVE', 'SURFACE', 'FONT', 'META'):
            continue
        ev = ob.evaluated_get(depsgraph)
        try:
            me = ev.to_mesh()
        except RuntimeError:
            continue
        try:
            v = np.empty(len(me.vertices) * 3)
            me.vertices.foreach_get("co", v)
        finally:
            ev.to_mesh_clear()
        if len(v):
            M = np.array(ev.matrix_world, dtype=float)
            z = float((v.reshape(-1, 3) @ M[2, :3]).min() + M[2, 3])
            low = z if low is None else min(low, z)
    return low


def place_on_ground(obs, depsgraph_of) -> float:
    """Move the robot of link objects ``obs`` up or down so that the lowest point of its
    geometry lies on z = 0: every link object not Blender-parented to another of ``obs`` is
    moved (those that are follow it). ``depsgraph_of()`` gives an evaluated depsgraph.
    Returns the height moved (m; 0 when the robot has no geometry)."""
    obs = list(obs)
    low = lowest_point(obs, depsgraph_of())
    if low is None:
        return 0.0
    inside = {ob.name for ob in obs}
    for ob in obs:
        if ob.parent is None or ob.parent.name not in inside:
            M = ob.matrix_world.copy()
            M.translation.z -= low
            ob.matrix_world = M
    return -low


def write_records(lk, obs: dict, joint_name: dict, poses: dict) -> None:
    """The vart properties of every link and joint of ``lk`` on its objects ``obs`` (link ->
    object; joints under ``joint_name``), then read back through the schema's validation."""
    for n, ob in obs.items():
        lrec = E.link_record(lk, n, None)
        S.write_link(ob, mass=lrec.mass, com=lrec.com, virtual=lrec.virtual,
                     root_tree=lrec.root_tree)
    for jn, j in lk.joints.items():
        rec = E.joint_record(lk, j, poses, None)
        mimic = None
        if rec.mimic is not None:
            mimic = (joint_name[rec.mimic.leader], rec.mimic.multiplier, rec.mimic.offset)
        S.write_joint(obs[rec.child], joint_name[jn], rec.type,
                      None if rec.parent is None else obs[rec.parent],
                      T_parent_mob=rec.T_parent_mob, T_child_frame=rec.T_child_frame,
                      q=rec.q, lower=rec.lower, upper=rec.upper, pitch=rec.pitch,
                      virtual=rec.virtual, tree=rec.tree, mimic=mimic,
                      locked=rec.locked, lock_q=rec.lock_q if rec.locked else None,
                      stiffness=rec.stiffness, rest_q=rec.rest_q)
    S.read_scene(obs.values())


def add_ignored(scene, a, b, reason: str) -> bool:
    """Add the pair of link objects ``a``, ``b`` to the clearance check's ignored pairs of
    ``scene`` (``scene.vart.clearance_ignored``) unless it is there; whether it was added."""
    rows = scene.vart.clearance_ignored
    if a == b or any({r.a, r.b} == {a, b} for r in rows):
        return False
    row = rows.add()
    row.a, row.b, row.reason = a, b, reason
    return True


def store_ignored(scene, obs: dict, srdf, warnings: list) -> int:
    """The ``disable_collisions`` pairs of ``srdf`` (read, or None) between links of ``obs``
    (link name -> object) as ignored pairs of ``scene``'s clearance check; how many were
    added. Without vart registered (no ``scene.vart``) a warning says none were."""
    if srdf is None or not srdf.disabled:
        return 0
    if getattr(scene, "vart", None) is None:
        warnings.append(f"the SRDF's {len(srdf.disabled)} disable_collisions pairs were not "
                        "stored: vart is not registered")
        return 0
    added, absent = 0, set[str]()
    for a, b, reason in srdf.disabled:
        if a in obs and b in obs:
            added += add_ignored(scene, obs[a], obs[b], f"SRDF: {reason}" if reason else "SRDF")
        else:
            absent.update(n for n in (a, b) if n not in obs)
    if absent:
        warnings.append(f"{os.path.basename(srdf.path)}: disable_collisions names links the "
                        f"robot lacks, passed over: {', '.join(sorted(absent)[:6])}"
                        + (" ..." if len(absent) > 6 else ""))
    return added
