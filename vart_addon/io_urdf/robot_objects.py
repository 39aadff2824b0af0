"""The objects every robot import makes (URDF, MJCF): a collection, one Empty per link at its
world pose, the links' and joints' vart properties straight from the linkage, and the rule
that an import adds the whole robot or nothing.

- :func:`building`: a context for the build: on any error everything added to ``bpy.data``
  is removed again, the selection and active object are put back, and a linkage or scene
  error becomes an :class:`~.errors.IoError` naming the file.
- :func:`object_names` / :func:`joint_names`: names that clash with nothing in the file or
  the scene (``name.001``...).
- :func:`link_empties` and :func:`write_records`.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import bpy
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
