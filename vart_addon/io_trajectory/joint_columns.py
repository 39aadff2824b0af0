"""The joint columns of a scene, the shape of its trajectories, and what sampling, export and
import (:mod:`vart_addon.io_trajectory`) share: :class:`TrajectoryError`, the file formats
and the scene's link objects.

**Columns.** Every joint with a value (not ``fixed``) gives one column per DoF. A 1-DoF joint's
column is named like the joint; a multi-DoF joint's columns are ``joint/tx``, ``joint/rz``,
``joint/wx``... (the DoF names of :mod:`~vart_addon.solver.joint_types`, and MoveIt's
``joint/x`` convention for planar and floating joints). Columns are sorted by joint name, DoF
in order. Per column, from the stored joint (:mod:`.bridge.schema`): its kind (rad or m,
``JointType.is_angular``), position limits, virtual flag, and *continuous* for a rotation about
z (revolute, cylindrical, pin-slider, planar; not helical, whose rotation carries a
translation) without limits: exports unwrap those, never wrapping to +-pi. Velocity limits come
from the URDF the robot was imported from (the text its collection keeps, see
:mod:`.io_urdf.importer`): a 1-DoF joint of the collection named like a URDF joint (or like
it with Blender's ``.001`` suffix, as an import renames clashing joints) gets that joint's
``<limit velocity>`` when it is positive.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..bridge import BridgeError
from ..bridge import schema as S
from ..formats.trajectory import files as TIO
from ..solver.joint_types import CATALOG

__all__ = ["TrajectoryError", "Column", "columns", "velocity_limits", "format_of"]

#: Rotations about z that are periodic (a helical joint's carries its translation).
_PERIODIC = frozenset(("revolute", "cylindrical", "pin-slider", "planar"))


class TrajectoryError(BridgeError):
    """A trajectory export or import that cannot be done; nothing was written or changed."""


def format_of(path) -> TIO.TrajectoryFormat:
    """The trajectory format of ``path``'s extension; :class:`TrajectoryError` if none."""
    try:
        return TIO.format_of(path)
    except ValueError as e:
        raise TrajectoryError(str(e)) from None


# ---- columns ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    """One DoF of a scene joint as a trajectory column."""

    name: str
    joint: str
    index: int
    child: str          # the joint's child object (where its q is stored)
    kind: str           # "angular" | "linear"
    continuous: bool
    lower: float
    upper: float
    velocity: float | None
    virtual: bool
    jtype: str


def column_names(joint: str, jtype: str) -> list[str]:
    """The column names of a joint: its name for one DoF, ``joint/<dof>`` for more."""
    jt = CATALOG[jtype]
    return [joint] if jt.dof == 1 else [f"{joint}/{n}" for n in jt.layout]


def _link_objects(scene) -> dict:
    return {ob.name: ob for ob in scene.objects if S.is_link(ob)}


def _base_name(name: str) -> str:
    return re.sub(r"\.\d{3}$", "", name)


def velocity_limits(scene, data=None, notes=None) -> dict:
    """Joint name -> velocity limit (rad/s or m/s) from the URDFs the scene's robots were
    imported from, or their ``joint_limits.yaml`` where it gives one (see the module doc).
    ``notes`` (a list) receives a line per URDF that could not be read again."""
    return _scene_limits(scene, data, notes)[0]


def acceleration_limits(scene, data=None) -> dict:
    """Joint name -> acceleration limit (rad/s^2 or m/s^2) from the ``joint_limits.yaml`` the
    scene's robots were imported with."""
    return _scene_limits(scene, data, None, urdf_too=False)[1]


def _scene_limits(scene, data, notes, urdf_too: bool = True) -> tuple[dict, dict]:
    """``(velocities, accelerations)`` by scene joint name (1-DoF joints) from each imported
    robot's URDF (velocities, when ``urdf_too``) and its joint_limits.yaml (both, winning)."""
    from ..formats.urdf import files as urdf
    from ..io_urdf.importer import SOURCE_KEY, read_source
    obs = _link_objects(scene)
    data = data if data is not None else S.read_scene(obs.values())
    vel_out: dict = {}
    acc_out: dict = {}
    for coll in scene.collection.children_recursive:
        src = coll.get(SOURCE_KEY)
        if src is None:
            continue
        vel: dict = {}
        if urdf_too:
            try:
                robot = read_source(src)
                vel = {j.name: j.limit.velocity for j in robot.joints
                       if j.limit is not None and j.limit.velocity > 0
                       and j.type in ("revolute", "continuous", "prismatic")}
            except (OSError, urdf.UrdfError) as e:
                if notes is not None:
                    notes.append(f"velocity limits of {coll.name!r} unknown: its URDF cannot "
                                 f"be read again ({e})")
        listed = src.get("joint_limits") or {}
        yaml_joints = {str(n): dict(v) for n, v in dict(listed.get("joints", {})).items()}
        vel.update({n: v["velocity"] for n, v in yaml_joints.items() if "velocity" in v})
        acc = {n: v["acceleration"] for n, v in yaml_joints.items() if "acceleration" in v}
        if not vel and not acc:
            continue
        members = {ob.name for ob in coll.all_objects}
        for jn, j in data.joints.items():
            if j.child not in members or j.dof != 1:
                continue
            for table, out in ((vel, vel_out), (acc, acc_out)):
                v = table.get(jn, table.get(_base_name(jn)))
                if v is not None and jn not in out:
                    out[jn] = float(v)
    return vel_out, acc_out


def columns(scene, data=None, *, velocities: bool = True, notes=None) -> list[Column]:
    """The scene's trajectory columns (every joint with a value, sorted by name)."""
    obs = _link_objects(scene)
    data = data if data is not None else S.read_scene(obs.values())
    vel = velocity_limits(scene, data, notes) if velocities else {}
    out = []
    for jn, j in data.joints.items():  # sorted by name
        jt = CATALOG[j.type]
        if not jt.dof:
            continue
        ang = jt.is_angular()
        for i, name in enumerate(column_names(jn, j.type)):
            lo, hi = float(j.lower[i]), float(j.upper[i])
            cont = bool(jt.layout[i] == "rz" and j.type in _PERIODIC
                        and math.isinf(lo) and math.isinf(hi))
            out.append(Column(name, jn, i, j.child, "angular" if ang[i] else "linear", cont,
                              lo, hi, vel.get(jn) if jt.dof == 1 else None, bool(j.virtual),
                              j.type))
    return out

