"""Import a MuJoCo MJCF robot into a Blender scene (*File > Import > MuJoCo MJCF*).

MuJoCo compiles the file and :mod:`vart_addon.formats.mjcf` maps it (bodies, joints,
equality constraints, geoms: see there); this module makes what the scene gets, as the URDF
import does (:mod:`.robot_objects`):

- a new collection named after the file; one Empty per link at its reference pose (MuJoCo's
  ``qpos0``), carrying the link's vart properties (mass and centre of mass from MuJoCo);
- one real vart joint per MJCF joint, closure joints for ``connect`` / ``weld`` equalities,
  mimic couplings and locks for ``joint`` equalities;
- each geom as a mesh object, child of its link's Empty, with its colour (a material and the
  object colour), shared by nothing: a geom is one object.

Everything or nothing: a file MuJoCo cannot compile, or that names a file outside its folder
and the search paths, raises :class:`~.errors.IoError` (with MuJoCo's message, or the
element and file refused) before anything is added; without the ``mujoco`` package the
message says how to install it. A joint whose range excludes its ``qpos0`` starts clamped
into the range (a warning says so).
"""
from __future__ import annotations

import os

import bpy
import numpy as np
from mathutils import Matrix

from ..formats import mjcf
from . import robot_objects as RO
from .errors import IoError
from .mesh_data import new_material

__all__ = ["import_mjcf", "ImportedMjcf"]


class ImportedMjcf(dict):
    """What :func:`import_mjcf` returns: a dict link name -> its link object (an Empty), with
    ``collection``, ``joints`` (MJCF joint name -> scene joint name), ``visuals`` (link name
    -> its geom objects) and ``warnings`` (what was left out, for the user)."""

    collection: object
    joints: dict
    visuals: dict
    warnings: list


def import_mjcf(path, *, context=None, scene=None, search_paths=()) -> ImportedMjcf:
    """Import MJCF file ``path`` into ``scene`` (default: the scene of ``context``, or the
    current one). The files it names must lie in its folder or ``search_paths``
    (:mod:`vart_addon.formats.mjcf_files`). Raises :class:`IoError` with nothing added for a
    file that cannot be read, that MuJoCo cannot compile, or that vart refuses."""
    ctx = context if context is not None else bpy.context
    scene = scene if scene is not None else ctx.scene
    path = os.path.abspath(os.fspath(path))
    try:
        robot = mjcf.read_mjcf(path, search_paths)
    except OSError as e:
        raise IoError(f"cannot read MJCF '{path}': {e.strerror or e}") from None
    except mjcf.MjcfError as e:
        raise IoError(str(e)) from None
    with RO.building(ctx, scene, path):
        return _build(scene, robot)


def _axes_size(lk, poses) -> float:
    """A third of the median distance between jointed links (2 cm to 25 cm)."""
    d = [float(np.linalg.norm(poses[j.child][:3, 3] - poses[j.parent][:3, 3]))
         for j in lk.joints.values() if j.parent is not None]
    d = [x for x in d if x > 1e-9]
    return float(min(0.25, max(0.02, float(np.median(d)) / 3.0))) if d else 0.1


def _geom_object(coll, link_ob, vis) -> bpy.types.Object:
    """A mesh object for one geom, child of its link, vertices already in the link frame."""
    mesh = bpy.data.meshes.new(vis.name)
    mesh.from_pydata(vis.vertices.tolist(), [], vis.faces.tolist())
    mesh.validate()
    mesh.update()
    ob = bpy.data.objects.new(vis.name, mesh)
    coll.objects.link(ob)
    ob.parent = link_ob
    ob.matrix_parent_inverse = Matrix.Identity(4)
    ob.matrix_basis = Matrix.Identity(4)
    ob.color = vis.rgba
    mesh.materials.append(new_material(f"{vis.name}_color", vis.rgba))
    return ob


def _build(scene, robot: mjcf.MjcfRobot) -> ImportedMjcf:
    lk = robot.linkage
    poses = lk.poses()
    names = RO.object_names(lk.links)
    joint_name = RO.joint_names(scene, lk.joints)
    coll = bpy.data.collections.new(robot.name)
    scene.collection.children.link(coll)
    obs = ImportedMjcf(RO.link_empties(coll, names, poses, _axes_size(lk, poses)))
    obs.visuals = {link: [_geom_object(coll, obs[link], v) for v in vs]
                   for link, vs in robot.visuals.items()}
    RO.write_records(lk, obs, joint_name, poses)
    obs.collection = coll
    obs.joints = {jn: joint_name[jn] for jn in robot.joints}
    obs.warnings = list(robot.warnings)
    return obs
