"""What the user picked and what the scene stores, read cheaply and without validation.

Poll functions and dialog defaults read the stored properties directly (a poll must be cheap
and must never raise); operators go through the bridge, which validates everything.
"""
from __future__ import annotations

import numpy as np

from ..bridge import schema as S
from ..solver import se3
from ..solver.joint_types import CATALOG
from . import units


def _joints_group(ob):
    try:
        g = ob.get(S.KEY)
        joints = g.get("joints") if g is not None and hasattr(g, "get") else None
        return joints if joints is not None and hasattr(joints, "keys") else None
    except (TypeError, AttributeError, KeyError):
        return None


def joint_names(scene) -> dict:
    """Joint name -> its child object, over the scene's objects (unvalidated)."""
    out = {}
    for ob in scene.objects:
        g = _joints_group(ob)
        if g is not None:
            for name in g.keys():
                out[name] = ob
    return out


def joints_of_link(scene, ob) -> list[str]:
    """Names of the joints attached to link ``ob``: stored on it, or having it as parent."""
    out = []
    for other in scene.objects:
        g = _joints_group(other)
        if g is None:
            continue
        for name in g.keys():
            jd = g[name]
            parent = jd.get("parent") if hasattr(jd, "get") else None
            if other == ob or parent == ob:
                out.append(name)
    return sorted(out)


def active_link(context):
    """The active object if it is a link, else None."""
    ob = getattr(context, "active_object", None)
    return ob if S.is_link(ob) else None


def active_joint(context):
    """``(child object, joint name)`` of the active joint: ``scene.vart.active_joint`` if such
    a joint exists; when none is named, the single joint of the active link; None otherwise
    (a named joint that does not exist is never replaced by another)."""
    scene = context.scene
    names = joint_names(scene)
    name = scene.vart.active_joint
    if name in names:
        return names[name], name
    if name:
        return None
    link = active_link(context)
    if link is not None:
        attached = joints_of_link(scene, link)
        if len(attached) == 1:
            return names[attached[0]], attached[0]
    return None


def stored(ob, joint: str, key: str, default=None):
    """An unvalidated stored joint field (for polls and dialog defaults)."""
    try:
        return ob[S.KEY]["joints"][joint].get(key, default)
    except (TypeError, KeyError, AttributeError):
        return default


def stored_values(ob, joint: str, key: str) -> list[float] | None:
    """A stored joint field of numbers (``q``, ``lower``...) as a list, a plain number as one
    value (as the schema reads it); None if missing or not numbers (for dialog defaults)."""
    v = stored(ob, joint, key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [float(v)]
    try:
        return [float(x) for x in v]
    except (TypeError, ValueError):
        return None


def dialog_q(ob, joint: str, jtype: str | None, scene) -> list[float] | None:
    """Joint ``joint``'s stored value in display units, padded to an operator's 6-entry
    vector (a dialog's default); None if it is missing or does not fit ``jtype``."""
    q = stored_values(ob, joint, "q")
    if jtype is None or q is None:
        return None
    try:
        return units.pad6(units.to_display(q, jtype, scene))
    except ValueError:  # not the type's size: the operator refuses it, naming the field
        return None


def joint_type_of(context, joint: str) -> str | None:
    """The stored type of ``joint`` (unvalidated; None if unknown)."""
    names = joint_names(context.scene)
    t = stored(names[joint], joint, "type") if joint in names else None
    return t if t in CATALOG else None


def cursor_pose(scene) -> np.ndarray:
    """The 3D cursor's location and rotation as a rigid 4x4 pose (world, metres)."""
    M = np.array(scene.cursor.matrix, dtype=float)
    U, _, Vt = np.linalg.svd(M[:3, :3])
    R = U @ Vt
    if np.linalg.det(R) < 0:
        U[:, -1] *= -1
        R = U @ Vt
    T = np.eye(4)
    # float32 axes a hair off the world axes would jam planar loops: make them exact
    T[:3, :3], T[:3, 3] = se3.snap_axes(R), M[:3, 3]
    return T
