"""Dragging: a plain class that holds one drag (no window needed); the event mapping of the
modal operators is :mod:`.events`.

:class:`DragSession` drives the scene bridge::

    session = DragSession(bridge, settings)         # settings: Settings(max_ms=...) per update
    T0 = session.begin_link("deck")                 # a target on the link's root joint
    status = session.update(T)                      # solve warm-started, write changed links
    session.confirm()  /  session.cancel()

or ``begin_joint("tilt")`` and ``update(value)`` (the DoF chosen at begin, or every DoF).
Each update runs :meth:`SceneBridge.solve` with ``sync=False`` (only the drag's own target
changed) within the settings' time budget and writes back only the links and joint values that
changed. :meth:`DragSession.cancel` puts back every touched object's transform channels
(location, rotation in every mode, scale: so ``matrix_basis`` and ``matrix_world`` too) and its
whole ``["vart"]`` group exactly as they were (a snapshot taken at begin), and the bridge's
cache with them (:meth:`SceneBridge.checkpoint`). :meth:`DragSession.confirm` keeps the pose;
with the scene's auto-keying on it keys the changed links' transforms and joints' values at
the current frame (:func:`vart_addon.animation.keying.key_pose`).

A link drag's target is dropped when the drag ends. A joint drag is Operate Joint made
continuous: confirming stores the target at the final value in the joint's properties, as
``vart.operate_joint`` does (``keep_target=False`` drops it instead); auto-keying then also
keys a closure joint's ``target_q`` (a closure's q is output only: the bake follows its
target).
"""
from __future__ import annotations

import time

import bpy
import numpy as np

from ..animation.keying import KeyResult, key_pose
from ..bridge import BridgeError
from ..bridge import schema as S
from ..solver import Settings, SolveStatus

#: Transform channels a write of ``matrix_world`` can change (rotation_mode first: setting it
#: converts the rotation, so it is restored before the values).
CHANNELS = ("rotation_mode", "location", "rotation_euler", "rotation_quaternion",
            "rotation_axis_angle", "scale")


# ---- snapshots ------------------------------------------------------------------------------
def _plain(v):
    """An ID property value as plain Python (groups -> dicts, arrays -> lists)."""
    if hasattr(v, "to_dict"):
        return v.to_dict()
    if hasattr(v, "to_list"):
        return v.to_list()
    return v


def _channels(ob) -> dict:
    out = {}
    for k in CHANNELS:
        v = getattr(ob, k)
        out[k] = v if isinstance(v, str) else tuple(v)
    return out


class ObjectState:
    """One object's transform channels and ``["vart"]`` group, exactly."""

    __slots__ = ("channels", "vart")

    def __init__(self, ob):
        self.channels = _channels(ob)
        self.vart = _plain(ob.get(S.KEY))

    def same_transform(self, ob) -> bool:
        return _channels(ob) == self.channels

    def same_vart(self, ob) -> bool:
        return repr(_plain(ob.get(S.KEY))) == repr(self.vart)

    def restore(self, ob) -> None:
        for k in CHANNELS:
            cur = getattr(ob, k)
            v = self.channels[k]
            if (cur if isinstance(cur, str) else tuple(cur)) != v:
                setattr(ob, k, v)
        S.touched()
        if self.vart is None:
            if S.KEY in ob.keys():
                del ob[S.KEY]
        elif S.KEY not in ob.keys() or not hasattr(ob[S.KEY], "keys"):
            ob[S.KEY] = self.vart
        else:
            _restore_group(ob[S.KEY], self.vart)


def _restore_group(group, saved: dict) -> None:
    """Make ID property group ``group`` equal to ``saved`` (plain), rewriting only what
    differs (so UI data of untouched properties stays)."""
    for k in list(group.keys()):
        if k not in saved:
            del group[k]
    for k, v in saved.items():
        cur = group.get(k)
        if isinstance(v, dict) and cur is not None and hasattr(cur, "keys"):
            _restore_group(cur, v)
        elif cur is None or repr(_plain(cur)) != repr(v):
            group[k] = v


# ---- the session ------------------------------------------------------------------------------
class DragSession:
    """One drag of a link or a joint through ``bridge`` (a :class:`SceneBridge`), each update
    solved with ``settings`` (default: the bridge's; ``max_ms`` is the time budget of an
    update). See the module doc.

    After an update: ``status`` (the last SolveStatus), ``times`` (ms per update, solve and
    write), ``value`` (the last target: a 4x4 pose or a q vector). After confirm: ``keyed``
    (what auto-keying keyed, or None)."""

    def __init__(self, bridge, settings: Settings | None = None, gravity=None):
        self.bridge = bridge
        self.scene = bridge.scene
        self.settings = settings
        self.gravity = gravity    # m/s^2 (world) or None: as the scene's settings say
        self.kind: str | None = None     # "link" or "joint" while active
        self.name: str | None = None
        self.index: int | None = None
        self.start: np.ndarray | None = None  # the start pose (link) or q (joint)
        self.value: np.ndarray | None = None
        self.status: SolveStatus | None = None
        self.times: list[float] = []
        self.keyed: KeyResult | None = None
        self._saved: dict = {}
        self._checkpoint: tuple | None = None
        self._held: tuple | None = None
        self._mask: np.ndarray | None = None

    @property
    def active(self) -> bool:
        return self.kind is not None

    # ---- begin ----------------------------------------------------------------------------
    def _begin(self):
        if self.active:
            raise BridgeError("a drag is already in progress")
        self.bridge.sync()  # validates the scene; nothing is changed if it refuses
        lk = self.bridge.linkage
        lk.set_gravity(self.gravity)
        self._saved = {n: ObjectState(ob) for n, ob in self.bridge.objects().items()}
        self._checkpoint = self.bridge.checkpoint()
        self.status, self.times, self.keyed = None, [], None

    def begin_link(self, link: str, mask=None) -> np.ndarray:
        """Start dragging link ``link``: a target on its root joint at its current pose
        (``mask`` over x, y, z, wx, wy, wz: the target's DoF, default all). Returns the start
        pose (4x4 T_world_link)."""
        self._begin()
        lk = self.bridge.linkage
        if link not in lk.links:
            raise BridgeError(f"{link!r} is not a link of this scene")
        T0 = lk.pose(link)
        self.bridge.set_link_target(link, T0, mask)
        self.kind, self.name, self.start, self.value, self._mask = "link", link, T0, T0, mask
        return T0.copy()

    def begin_joint(self, joint: str, index: int | None = None) -> np.ndarray:
        """Start operating joint ``joint``: a target on all its DoF at its current value;
        :meth:`update` with a number moves DoF ``index`` (default 0), with a vector all of
        them. Returns the start q."""
        self._begin()
        lk = self.bridge.linkage
        j = lk.joints.get(joint)
        if j is None:
            raise BridgeError(f"no joint named {joint!r} in this scene")
        if not j.dof:
            raise BridgeError(f"joint {joint!r} is {j.jtype.name}: it has no value to operate")
        index = 0 if index is None else int(index)
        if not 0 <= index < j.dof:
            raise BridgeError(f"joint {joint!r} has {j.dof} DoF; there is no DoF {index}")
        q0 = lk.joint_q(j)
        self._held = (None if j.target_q is None else j.target_q.copy(),
                      None if j.target_mask is None else j.target_mask.copy())
        self._mask = np.ones(j.dof, bool)
        lk.set_target(joint, q0, self._mask)
        self.kind, self.name, self.index, self.start, self.value = "joint", joint, index, q0, q0
        return q0.copy()

    # ---- update ---------------------------------------------------------------------------
    def update(self, value):
        """Move the target (a 4x4 pose for a link; a number or a q vector for a joint), solve
        warm-started within the time budget, write what changed. Returns the SolveStatus."""
        if not self.active:
            raise BridgeError("no drag in progress")
        lk = self.bridge.linkage
        if lk is None:
            raise BridgeError("the scene changed during the drag; cancel it")
        if self.kind == "link":
            T = np.asarray(value, float)
            if T.shape != (4, 4) or not np.isfinite(T).all():
                raise BridgeError("a link drag needs a finite 4x4 pose")
            self.bridge.set_link_target(self.name, T, self._mask)
            self.value = T.copy()
        else:
            q = self.value.copy()
            v = np.asarray(value, float)
            if v.ndim == 0:
                q[self.index] = float(v)
            elif v.shape == q.shape:
                q = v.copy()
            else:
                raise BridgeError(f"joint {self.name!r} needs {len(q)} values, got {v.size}")
            if not np.isfinite(q).all():
                raise BridgeError(f"joint {self.name!r}: the value must be finite")
            lk.set_target(self.name, q, self._mask)
            self.value = q
        t0 = time.perf_counter()
        self.status = self.bridge.solve(self.settings, sync=False)
        # the viewport's redraw evaluates the scene; closure joints' q follow at confirm
        self.bridge.write_back(evaluate=False, values=False)
        self.times.append((time.perf_counter() - t0) * 1e3)
        return self.status

    @property
    def ms(self) -> float | None:
        """Median milliseconds per update so far."""
        return float(np.median(self.times)) if self.times else None

    # ---- end ------------------------------------------------------------------------------
    def changed(self) -> tuple[list, list]:
        """``(links whose transform changed, joints whose stored q changed)`` since begin."""
        obs = self.bridge.objects()
        links = sorted(n for n, st in self._saved.items()
                       if n in obs and not st.same_transform(obs[n]))
        joints = []
        for n, st in self._saved.items():
            if n not in obs or st.vart is None:
                continue
            g = obs[n].get(S.KEY)
            cur = g.get("joints", {}) if g is not None else {}
            for jn, jd in st.vart.get("joints", {}).items():
                if jn in cur and repr(_plain(cur[jn].get("q"))) != repr(jd.get("q")):
                    joints.append(jn)
        return links, sorted(joints)

    def _evaluate(self):
        """Let Blender evaluate the scene (world matrices of written and restored objects)."""
        vl = bpy.context.view_layer
        if vl is None or bpy.context.scene != self.scene:
            vl = self.scene.view_layers[0]
        vl.update()

    def _release(self):
        """Drop the drag's own goal from the linkage (the stored goals are untouched)."""
        br = self.bridge
        if self.kind == "link":
            br.clear_link_target(self.name)
        elif br.linkage is not None and self.name in br.linkage.joints:
            q, mask = self._held
            if q is None:
                br.linkage.clear_target(self.name)
            else:
                br.linkage.set_target(self.name, q, mask)

    def _end(self):
        self.kind = self.name = self.index = None
        self._saved, self._checkpoint, self._held = {}, None, None

    def confirm(self, keep_target: bool = True, auto_key: bool | None = None):
        """Keep the pose. A joint drag stores its target at the final value (unless
        ``keep_target`` is False). Auto-keying (``auto_key``; default: the scene's
        ``tool_settings.use_keyframe_insert_auto``) keys the changed links' transforms and
        joints' q at the current frame. Returns ``(links, joints)`` that changed."""
        if not self.active:
            raise BridgeError("no drag in progress")
        if self.times:  # the updates skipped the closure joints' q: write them now
            self.bridge.write_back(evaluate=False)
        self._evaluate()
        links, joints = self.changed()
        target_of = None  # a closure joint whose stored target was set: keyed with the rest
        if self.kind == "joint" and keep_target:
            # set by begin_joint for an active joint drag
            assert self.name is not None and self.value is not None and self._mask is not None
            ob = self.bridge.objects()[self.bridge.data.joints[self.name].child]
            S.update_joint(ob, self.name, target_q=tuple(self.value),
                           target_mask=tuple(bool(b) for b in self._mask))
            if not self.bridge.linkage.joints[self.name].is_tree:
                target_of = self.name
        else:
            self._release()
        ts = self.scene.tool_settings
        if auto_key is None:
            auto_key = bool(ts.use_keyframe_insert_auto)
        if auto_key and (links or joints or target_of):
            replace = getattr(ts, "auto_keying_mode", "") == "REPLACE_KEYS"
            self.keyed = key_pose(self.scene, links=links, joints=joints,
                                  targets=[target_of] if target_of else [],
                                  options={"INSERTKEY_REPLACE"} if replace else set())
        self._end()
        return links, joints

    def cancel(self) -> None:
        """Put back the exact pre-drag state of every touched object and of the bridge."""
        if not self.active:
            return
        self._release()
        obs = {ob.name: ob for ob in self.scene.objects}
        for n, st in self._saved.items():
            ob = obs.get(n)
            if ob is None:
                continue
            if not st.same_transform(ob) or not st.same_vart(ob):
                st.restore(ob)
        self._evaluate()
        self.bridge.rollback(self._checkpoint)
        self._end()
