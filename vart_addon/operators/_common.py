"""Shared helpers of the operators: finding the active joint and link, the 3D cursor's pose,
display units, and turning bridge errors into reports.

Poll helpers read the stored properties without validating them (a poll must be cheap and must
never raise); the operators themselves go through the bridge, which validates everything.

Display units of per-DoF values (``vart.operate_joint``'s ``value``, ``vart.set_limits``'s
``lower``/``upper``): an angle is in degrees when the scene's rotation unit is degrees (the
default), else radians; a length is in the scene's length unit (metres times the unit scale),
or Blender units when the unit system is None. Internally joints use metres and radians.
"""
from __future__ import annotations

import math

import numpy as np

from ..bridge import BridgeError
from ..bridge import schema as S
from ..solver import VartError, se3
from ..solver.joint_types import CATALOG

#: What the operators report instead of raising (SchemaError is a BridgeError).
ERRORS = (BridgeError, VartError)

#: Enum items of the joint types: the catalog's 12 types and "fixed".
JOINT_TYPE_ITEMS = [(t.name, "-".join(w.title() for w in t.name.split("-")),
                     f"{t.description[0].upper()}{t.description[1:]} ({t.dof} DoF)", i)
                    for i, t in enumerate(CATALOG.values())]

#: Largest magnitude a finite limit may have in an operator field; beyond it means "none".
NO_LIMIT = 1e30


# ---- reading the scene cheaply (polls) --------------------------------------------------------
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
    a joint exists, else the single joint of the active link; None otherwise."""
    scene = context.scene
    names = joint_names(scene)
    name = scene.vart.active_joint
    if name in names:
        return names[name], name
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


def object_mode(cls, context) -> bool:
    if context.mode != 'OBJECT':
        cls.poll_message_set("Switch to Object Mode")
        return False
    return True


def poll_joint(cls, context) -> bool:
    """Poll of operators acting on the active joint (sets the message)."""
    if not object_mode(cls, context):
        return False
    if active_joint(context) is None:
        cls.poll_message_set("No active joint: pick one in the Vart joint list, or make "
                             "active a link that has exactly one joint")
        return False
    return True


def poll_link(cls, context) -> bool:
    """Poll of operators acting on the active link (sets the message)."""
    if not object_mode(cls, context):
        return False
    if active_link(context) is None:
        cls.poll_message_set("The active object is not a link (Vart > Make Links)")
        return False
    return True


# ---- geometry and units -----------------------------------------------------------------------
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


def _factors(jtype: str, scene) -> np.ndarray:
    """Display value = internal value * factor, per DoF of ``jtype``."""
    units = scene.unit_settings
    angle = math.degrees(1.0) if units.system_rotation == 'DEGREES' else 1.0
    length = units.scale_length if units.system != 'NONE' else 1.0
    return np.where(CATALOG[jtype].is_angular(), angle, length)


def to_internal(values, jtype: str, scene) -> list[float]:
    """Per-DoF display values (at least dof of them; extra ones are ignored) -> m and rad."""
    n = CATALOG[jtype].dof
    v = np.asarray(list(values)[:n], dtype=float)
    return (v / _factors(jtype, scene)).tolist()


def to_display(q, jtype: str, scene) -> list[float]:
    """Per-DoF internal values (m, rad) -> display values."""
    return (np.asarray(q, dtype=float) * _factors(jtype, scene)).tolist()


def same32(a, b) -> bool:
    """True if two numbers are the same single-precision value (operator fields are float32,
    so a dialog confirmed unchanged gives back the stored value rounded)."""
    try:
        return bool(np.float32(a) == np.float32(b))
    except (TypeError, ValueError, OverflowError):
        return False


def keep_stored(internal, display, stored, to_disp=None) -> list[float]:
    """``internal`` values, except entries whose ``display`` field equals (in float32) the
    display of the ``stored`` value: those keep the stored value exactly. ``to_disp`` maps
    stored values to display values (default: the identity)."""
    out = list(internal)
    try:
        cur = list(stored)
        shown = cur if to_disp is None else list(to_disp(cur))
    except (TypeError, ValueError):
        return out
    for i in range(min(len(out), len(cur), len(shown))):
        if same32(display[i], shown[i]) and isinstance(cur[i], float):
            out[i] = cur[i]
    return out


def pad6(values, fill: float = 0.0) -> list[float]:
    """Values padded to the 6 entries of an operator's vector field."""
    v = list(values)[:6]
    return v + [fill] * (6 - len(v))


def joint_type_of(context, joint: str) -> str | None:
    """The stored type of ``joint`` (unvalidated; None if unknown)."""
    names = joint_names(context.scene)
    t = stored(names[joint], joint, "type") if joint in names else None
    return t if t in CATALOG else None


# ---- running an edit --------------------------------------------------------------------------
#: One cached scene bridge (for the scene with this session_uid): between user actions the
#: bridge re-reads and validates the scene and patches its linkage instead of rebuilding it
#: (Blender stays the source of truth; undo and file loads are seen as changes). Cleared on
#: unregister; an edit that fails drops its cached linkage.
_bridge_cache: dict = {}


def bridge_for(scene):
    """The cached :class:`~vart_addon.bridge.SceneBridge` of ``scene`` (a new one for another
    scene, replacing the old)."""
    from ..bridge import SceneBridge, scene_key
    # a wrong hit (an address key of older Blenders) costs nothing: the bridge re-reads and
    # validates the scene anyway
    uid = scene_key(scene)
    bridge = _bridge_cache.get(uid)
    if bridge is None:
        _bridge_cache.clear()
        bridge = _bridge_cache[uid] = SceneBridge(scene)
    bridge.scene = scene  # the live reference (an older one may be stale after an undo)
    return bridge


def clear_bridge_cache() -> None:
    _bridge_cache.clear()


def run(op, fn):
    """Call ``fn()`` (which returns the operator's result set); a bridge or solver error
    becomes an error report and CANCELLED (the edit changed nothing)."""
    try:
        return fn()
    except ERRORS as e:
        op.report({'ERROR'}, str(e))
        return {'CANCELLED'}


def report_status(op, scene, status) -> None:
    """Store a solve's status in ``scene.vart`` and report it (a warning if goals are unmet)."""
    from ..properties import store_status
    store_status(scene, status)
    text = scene.vart.status_summary
    op.report({'WARNING'} if status.unmet or status.stuck else {'INFO'}, text)


def solve_kw(scene) -> dict:
    """Keyword arguments of :func:`vart_addon.bridge.edits.edit` for a solve with the scene's
    settings and gravity."""
    from ..properties import gravity_of, solver_settings
    return {"settings": solver_settings(scene), "gravity": gravity_of(scene)}


def apply(op, context, mutate, *, solve: bool = False, quiet: bool = True):
    """Run ``edits.edit(mutate)`` on the context's scene with its solver settings and return
    ``(result set, EditResult or None)``. If a solve ran (asked, or the edit moved a link),
    its status is stored; it is reported when goals are unmet, or always unless ``quiet``.
    Errors become an error report and CANCELLED."""
    from ..bridge import edits
    scene = context.scene
    try:
        res = edits.edit(mutate, scene, solve=solve, bridge=bridge_for(scene),
                         **solve_kw(scene))
    except ERRORS as e:
        op.report({'ERROR'}, str(e))
        return {'CANCELLED'}, None
    if res.status is not None:
        if quiet and not (res.status.unmet or res.status.stuck):
            from ..properties import store_status
            store_status(scene, res.status)
        else:
            report_status(op, scene, res.status)
    return {'FINISHED'}, res
