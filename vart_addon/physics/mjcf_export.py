"""MJCF files of a robot: the MuJoCo model of :mod:`.model`, posed, written through ``MjSpec``.

:func:`posed_spec` builds the model of :func:`.model.build_spec` *at a configuration* ``q``
(URDF joint name -> value, rad or m), so the file opens in MuJoCo where the robot stands:

- each child body's frame is its URDF joint frame moved by the joint's motion at ``q``
  (``T_parent_child = origin @ motion(q)``), and the joint's ``ref`` is ``q``: MuJoCo's
  ``qpos`` stays the URDF joint value (limits, actuator targets and the trajectory files'
  values mean the same), and ``qpos0`` is ``q``; a planar joint's three MuJoCo joints likewise
  (:func:`.model.planar_values` of its motion);
- the root link, if free, starts at ``base`` (``T_world_root``, 4x4); a floating joint's
  child (a free body of the world, :mod:`.model`) where ``q``'s motion (4x4 ``T_joint_child``)
  puts it, so its free joint's ``qpos0`` is that world pose;
- a mimic's joint equality is written against the reference pose, as MuJoCo reads it
  (``q1 - ref1 = a0 + a1 (q2 - ref2)``): ``a0 = offset + multiplier ref2 - ref1``;
- closures are equalities (``connect`` for a spherical joint, ``weld`` for a fixed one, two
  ``connect`` on the axis for a revolute one), which hold at ``q`` when the links are posed
  by it;
- a keyframe named :data:`KEY` holds ``q`` and, as the position servos' targets (``ctrl``),
  the same values, so ``mj_resetDataKeyframe`` gives servos that hold the pose.

:func:`write_mjcf` writes ``spec.to_xml()`` atomically, each mesh first as a binary STL file in
the folder ``<stem>_meshes`` beside the XML (the XML's ``<compiler meshdir>``; vertices in the
link frame, m, single precision as STL is). Numbers in the XML have 17 significant digits
(:func:`full_precision`), so the file's kinematics are the model's to the last bit.
"""
from __future__ import annotations

import ctypes
import dataclasses
import glob
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..formats.atomic import write_atomic
from ..formats.stl import stl_bytes
from ..formats.urdf import files as urdf
from ..formats.urdf.kinematics import joint_motion
from .model import Built, PhysicsError, build_spec, compile_spec, mujoco_module

__all__ = ["KEY", "MjcfFile", "posed_robot", "posed_spec", "write_mjcf"]

#: The keyframe holding the exported configuration and the servos' targets.
KEY = "scene"
_ONE_DOF = ("revolute", "continuous", "prismatic")


@dataclass
class MjcfFile:
    """What :func:`write_mjcf` wrote: the XML ``path``, the ``mesh_files`` (absolute paths)
    and the XML's size in bytes."""

    path: str
    mesh_files: list
    xml_bytes: int


def _value(q: dict, j: urdf.Joint):
    """Joint ``j``'s value in ``q``: a float for a 1-DoF joint (missing: 0), a 4x4 motion
    for a floating or planar one (missing: identity); PhysicsError if not finite."""
    v = q.get(j.name)
    if j.type in _ONE_DOF:
        v = float(np.ravel(v)[0]) if v is not None and np.size(v) else 0.0
    elif v is None:
        return np.eye(4)
    elif np.shape(v) != (4, 4):
        raise PhysicsError(f"joint {j.name!r}: a {j.type} joint's value is a 4x4 motion, "
                           f"got shape {np.shape(v)}")
    if not np.isfinite(v).all():
        raise PhysicsError(f"joint {j.name!r}: value {v!r} is not finite")
    return v


def posed_robot(robot: urdf.Robot, q: dict) -> urdf.Robot:
    """``robot`` with each moving joint's origin moved by its motion at ``q`` (joint name ->
    value, rad or m, or a 4x4 motion for floating and planar joints; a missing joint: at
    rest), so its rest pose is the pose at ``q``."""
    joints = []
    for j in robot.joints:
        if j.type != "fixed":
            T = j.origin.matrix() @ joint_motion(j, _value(q, j))
            j = dataclasses.replace(j, origin=urdf.Origin.from_matrix(T))
        joints.append(j)
    return dataclasses.replace(robot, joints=tuple(joints))


def posed_spec(robot: urdf.Robot, q: dict, **build_kw) -> Built:
    """The MuJoCo model of ``robot`` posed at ``q`` (see the module doc); ``build_kw`` go to
    :func:`.model.build_spec` (``meshes``, ``base``, ``closures``, ``ground``, ...).
    Raises :class:`.model.PhysicsError`."""
    planar = {j.name: _value(q, j) for j in robot.joints if j.type == "planar"}
    built = build_spec(posed_robot(robot, q), planar_ref=planar, **build_kw)
    spec = built.spec
    ref = {}
    for j in robot.joints:
        mj_joint = spec.joint(j.name) if j.type in _ONE_DOF else None
        if mj_joint is not None:
            ref[j.name] = mj_joint.ref = _value(q, j)
    for names in built.planar.values():
        ref.update((n, spec.joint(n).ref) for n in names)
    for j in robot.joints:
        mimic = j.mimic
        eq = spec.equality(f"{j.name}__mimic") if mimic is not None else None
        if mimic is not None and eq is not None:
            eq.data[0] = (mimic.offset + mimic.multiplier * ref.get(mimic.joint, 0.0)
                          - ref.get(j.name, 0.0))
    ctrl = [ref.get(a.target, 0.0) for a in spec.actuators]
    spec.add_key(name=KEY, ctrl=ctrl)
    model = compile_spec(spec, f"robot {robot.name or 'robot'!r}")
    spec.keys[-1].qpos = model.qpos0.tolist()
    return built


@contextmanager
def full_precision(mj):
    """Numbers in MuJoCo's saved XML with 17 significant digits (doubles exactly) instead of
    its default 6, within the ``with``: MuJoCo's ``_mjPRIVATE__set_xml_precision`` in its
    shared library (what its own tests use). Yields whether it was set (False: a MuJoCo
    without it; the file then has 6 digits)."""
    setter = getter = None
    folder = os.path.dirname(getattr(mj, "__file__", "") or "")
    for lib in sorted(glob.glob(os.path.join(folder, "*mujoco*.*"))):
        if lib.endswith((".so", ".dylib", ".dll")) or ".so." in lib:
            try:
                handle = ctypes.CDLL(lib)
                setter = handle._mjPRIVATE__set_xml_precision
                getter = handle._mjPRIVATE__get_xml_precision
                break
            except (OSError, AttributeError):
                continue
    if setter is None or getter is None:
        yield False
        return
    before = int(getter())
    setter(ctypes.c_int(17))
    try:
        yield True
    finally:
        setter(ctypes.c_int(before))


def _file_name(mesh: str, taken: set) -> str:
    """A file name for mesh ``mesh``: its name with what file systems refuse replaced by
    ``_``, unique in ``taken`` (case-insensitively, for Windows and macOS), ``.stl``."""
    stem = re.sub(r"[^\w.+-]", "_", mesh).strip(".") or "mesh"
    out, k = stem, 1
    while out.lower() in taken:
        out, k = f"{stem}_{k}", k + 1
    taken.add(out.lower())
    return out + ".stl"


def write_mjcf(path, built: Built) -> MjcfFile:
    """Write ``built``'s spec as MJCF at ``path`` (meshes as STL files beside it; see the
    module doc). Every file is written atomically; the XML last. The spec's meshes then name
their files (its inline vertices are gone). Raises
    :class:`.model.PhysicsError` (MuJoCo cannot write the model) or OSError naming the file."""
    mj = mujoco_module()
    path = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(path)
    mesh_dir = os.path.splitext(os.path.basename(path))[0] + "_meshes"
    spec = built.spec
    files = []
    inline = [m for m in spec.meshes if len(m.uservert)]
    if inline:
        os.makedirs(os.path.join(folder, mesh_dir), exist_ok=True)
        spec.meshdir = mesh_dir
    taken: set = set()
    for mesh in inline:
        name = _file_name(mesh.name, taken)
        target = os.path.join(folder, mesh_dir, name)
        data = stl_bytes(np.asarray(mesh.uservert, float).reshape(-1, 3),
                         np.asarray(mesh.userface, int).reshape(-1, 3), name=mesh.name)
        write_atomic(target, data, "MJCF mesh")
        mesh.file, mesh.uservert, mesh.userface = name, [], []
        files.append(target)
    spec.modelfiledir = folder
    try:
        with full_precision(mj):
            xml = spec.to_xml()
    except ValueError as e:
        raise PhysicsError(f"MuJoCo cannot write the model as MJCF: {e}") from None
    data = xml.encode("utf-8")
    write_atomic(path, data, "MJCF")
    return MjcfFile(path, files, len(data))
