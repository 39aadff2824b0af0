"""Virtual articulation presets: the set-up added to a robot, saved as JSON, applied elsewhere.

A preset holds what a person added to a robot to express intent, keyed by link and joint
names, so that it applies to another scene holding the same robot (e.g. imported from the
same URDF):

- every **virtual link** (mass, centre of mass, lock) with its pose relative to an *anchor*:
  the nearest real link it is connected to through the preset's joints (else the world);
- every **virtual joint**, and every real joint attached to a virtual link: type, ends (link
  names; ``null`` = the world), both frames, q, limits, pitch, tree flag, lock, target,
  posture, spring and mimic;
- on **real joints**: locks, targets, postures, springs, and the tree flag where the set-up
  made a real joint a closure;
- on **real links**: locks.

What is posed in the world is stored relative to the robot, so that the set-up follows the
robot to wherever it stands in the other scene and nothing jumps when it is applied: the
world-side frame of a joint to the world (``T_parent_mob`` when ``parent`` is ``null``) is
stored in the frame of the joint's child link, and a lock pose in the frame of its link (as
the links were when the preset was saved).

File layout (``format`` and ``version`` checked on load; an infinite limit is ``null``)::

    {"format": "vart-preset", "version": 1,
     "robot": {"links": [names the preset needs], "joints": [names the preset needs]},
     "virtual_links": {"Probe": {"anchor": "deck", "T_anchor_link": [16], "mass": 0.0,
                                 "com": [3], "root_tree": true, "locked": false,
                                 "lock_pose": [16, in the frame of "Probe"]}},
     "joints": {"tilt": {"type": "revolute", "parent": null, "child": "deck",
                         "T_parent_mob": [16, in the frame of "deck"], ...}},
     "real_joints": {"knee": {"locked": true, "lock_q": [1], ...}},
     "real_links": {"foot": {"locked": true, "lock_pose": [16, in the frame of "foot"]}}}

The goal keys of joints and links are those the scene stores (:mod:`vart_addon.bridge.
goal_fields`); a link goal's world-frame values (poses, points) are stored in its link's frame.

Loading refuses (:class:`IoError`, nothing changed) a file that is not a preset, a scene that
lacks a link or joint the preset names, and a joint name the scene already has (the preset was
probably applied already). A virtual link whose name is taken by another object gets a
``.001`` name. Everything is written through :mod:`vart_addon.bridge.schema` and validated by
a bridge sync; on any failure every change is undone.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..bridge import edits as E
from ..bridge import goal_fields as GF
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..bridge.scene import SceneBridge
from ..formats.atomic import write_atomic
from ..solver import VartError, se3
from ..solver.goal_values import Value
from ..solver.text import json_error
from .errors import IoError

__all__ = ["FORMAT", "VERSION", "preset_data", "save_preset", "load_preset", "PresetResult"]

FORMAT = "vart-preset"
VERSION = 1



@dataclass
class PresetResult:
    """What :func:`load_preset` did: ``links`` maps the preset's virtual link names to the
    created objects; ``joints`` lists the joints written; ``real_joints`` and ``real_links``
    the real ones whose goals were set; ``status`` is the solve status (or None)."""

    links: dict = field(default_factory=dict)
    joints: list = field(default_factory=list)
    real_joints: list = field(default_factory=list)
    real_links: list = field(default_factory=list)
    status: object = None


# ---- encoding ---------------------------------------------------------------------------------
def _floats(v) -> list:
    return [float(x) for x in v]


def _limits(v) -> list:
    return [float(x) if math.isfinite(x) else None for x in v]


def _unlimits(v, sign: float, what: str) -> list:
    if not isinstance(v, list):
        raise IoError(f"{what}: expected a list")
    return [sign * math.inf if x is None else x for x in v]


def _joint_entry(j) -> dict:
    d = {"type": j.type, "parent": j.parent, "child": j.child,
         "T_parent_mob": _floats(j.T_parent_mob), "T_child_frame": _floats(j.T_child_frame),
         "q": _floats(j.q), "lower": _limits(j.lower), "upper": _limits(j.upper),
         "pitch": float(j.pitch), "virtual": bool(j.virtual), "tree": bool(j.tree)}
    d.update(GF.stored(j))
    if j.mimic is not None:
        d["mimic"] = {"leader": j.mimic.leader, "multiplier": float(j.mimic.multiplier),
                      "offset": float(j.mimic.offset)}
    return d


_POSE = Value("pose", "pose")


def _moved(v, x, T) -> list:
    """A goal value ``x`` of :class:`~vart_addon.solver.goal_values.Value` ``v`` moved by the
    rigid transform ``T``: a pose (16 floats) premultiplied, a vector (a point) transformed."""
    if v.kind == "pose":
        return _floats((T @ np.array(x, dtype=float).reshape(4, 4)).reshape(16))
    return _floats(T[:3, :3] @ np.array(x, dtype=float).reshape(3) + T[:3, 3])


def _link_goals(link, T_link) -> dict:
    """A link's stored goal keys, its world-frame values in the frame of the link (at world
    pose ``T_link``): those of the goals it has on (and its lock's, on or off, as the first
    presets held)."""
    d = GF.stored(link, "link")
    T_inv = se3.inverse(T_link)
    for g in GF.link_goals():
        if g is not GF.LINK_LOCK and not g.is_on(link):
            for k in g.all_keys:
                del d[k]
            continue
        for v, k in zip(g.values, g.keys):
            if v.frame == "world":
                d[k] = _moved(v, d[k], T_inv)
    return d


def _world_goals(d: dict, T_link, what: str) -> dict:
    """The stored goal keys of a preset's link entry ``d``, its link-frame values back in the
    world (the link at ``T_link``); an entry without a key leaves it at its default."""
    out = {}
    for g in GF.link_goals():
        for k in g.all_keys:
            if k in d:
                out[k] = d[k]
        for v, k in zip(g.values, g.keys):
            if v.frame == "world" and k in d:
                if v.kind == "pose":
                    _pose(d[k], f"{what}: {k}")
                elif not (isinstance(d[k], list) and len(d[k]) == v.size):
                    raise IoError(f"{what}: {k}: expected {v.size} numbers")
                out[k] = _moved(v, d[k], T_link)
    return out


# ---- saving -----------------------------------------------------------------------------------
def preset_data(scene=None, *, bridge: SceneBridge | None = None) -> dict:
    """The preset of ``scene`` (default: the current scene) as a JSON-ready dict."""
    bridge = bridge or SceneBridge(scene if scene is not None else bpy.context.scene)
    try:
        bridge.sync()
    except BridgeError as e:
        raise IoError(f"cannot read the scene: {e}") from None
    data, lk = bridge.data, bridge.linkage
    assert data is not None and lk is not None  # synced
    poses = lk.poses()
    virtual = {n for n, link in data.links.items() if link.virtual}
    setup = {n: j for n, j in data.joints.items()
             if j.virtual or j.child in virtual or j.parent in virtual}
    need_links: set[str] = set()
    need_joints: set[str] = set()
    out_joints = {}
    for n, j in setup.items():
        out_joints[n] = _joint_entry(j)
        if j.parent is None:  # the world frame, relative to the child link
            out_joints[n]["T_parent_mob"] = _moved(_POSE, j.T_parent_mob,
                                                   se3.inverse(poses[j.child]))
        need_links.update(e for e in (j.parent, j.child) if e is not None and e not in virtual)
        if j.mimic is not None and j.mimic.leader not in setup:
            need_joints.add(j.mimic.leader)
    # anchors: breadth first from each virtual link over the preset's joints
    adj: dict = {}
    for j in setup.values():
        if j.parent is not None:
            adj.setdefault(j.parent, []).append(j.child)
            adj.setdefault(j.child, []).append(j.parent)
    vlinks = {}
    for n in sorted(virtual):
        anchor, seen, queue = None, {n}, [n]
        while queue and anchor is None:
            cur = queue.pop(0)
            for other in sorted(adj.get(cur, ())):
                if other in seen:
                    continue
                if other not in virtual:
                    anchor = other
                    break
                seen.add(other)
                queue.append(other)
        T = poses[n] if anchor is None else se3.inverse(poses[anchor]) @ poses[n]
        link = data.links[n]
        if anchor is not None:
            need_links.add(anchor)
        vlinks[n] = {"anchor": anchor, "T_anchor_link": _floats(np.asarray(T).reshape(16)),
                     "mass": float(link.mass), "com": _floats(link.com),
                     "root_tree": bool(link.root_tree), **_link_goals(link, poses[n])}
    real_joints = {}
    for n, j in data.joints.items():
        if n in setup:
            continue
        if GF.any_on(j) or not j.tree:
            real_joints[n] = {**GF.stored(j), "tree": bool(j.tree)}
            need_joints.add(n)
    real_links = {}
    for n, link in data.links.items():
        if n not in virtual and GF.any_on(link, "link"):
            real_links[n] = _link_goals(link, poses[n])
            need_links.add(n)
    return {"format": FORMAT, "version": VERSION,
            "robot": {"links": sorted(need_links), "joints": sorted(need_joints)},
            "virtual_links": vlinks, "joints": out_joints, "real_joints": real_joints,
            "real_links": real_links}


def save_preset(path, *, scene=None, context=None, bridge: SceneBridge | None = None) -> dict:
    """Write the preset of the scene to ``path`` (JSON, atomically); returns its data."""
    if scene is None:
        scene = (context if context is not None else bpy.context).scene
    d = preset_data(scene, bridge=bridge)
    text = json.dumps(d, indent=1, allow_nan=False) + "\n"
    try:
        write_atomic(os.fspath(path), text.encode("utf-8"), "preset")
    except OSError as e:
        raise IoError(str(e)) from None
    return d


# ---- loading ----------------------------------------------------------------------------------
def _read(path_or_data) -> dict:
    if isinstance(path_or_data, dict):
        d, name = path_or_data, "preset"
    else:
        name = os.path.basename(os.fspath(path_or_data))
        try:
            with open(path_or_data, "rb") as f:
                d = json.loads(f.read().decode("utf-8"))
        except OSError as e:
            raise IoError(f"cannot read preset '{path_or_data}': {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise IoError(f"{name}: not a vart preset (not UTF-8 text: {e})") from None
        except json.JSONDecodeError as e:
            line, column, msg = json_error(e)
            raise IoError(f"{name}: not a vart preset (not JSON: {msg}: line {line} "
                          f"column {column})") from None
        except RecursionError:
            raise IoError(f"{name}: not a vart preset (nested too deeply)") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise IoError(f"{name}: not a vart preset (no \"format\": \"{FORMAT}\")")
    v = d.get("version")
    if not isinstance(v, int) or v > VERSION:
        raise IoError(f"{name}: preset version {v!r} is newer than this vart reads ({VERSION})")
    for key in ("robot", "virtual_links", "joints", "real_joints", "real_links"):
        if not isinstance(d.get(key, {}), dict):
            raise IoError(f"{name}: \"{key}\" must be an object")
    return d


def load_preset(path_or_data, *, scene=None, context=None, solve: bool = False,
                bridge: SceneBridge | None = None, collection=None) -> PresetResult:
    """Apply a preset (a path, or the dict of :func:`preset_data`) to ``scene``. New virtual
    links go into ``collection`` (default: that of their anchor link, else the scene's).
    ``solve``: solve afterwards (else the goals wait for the next solve; tree-carried virtual
    links are placed by their joints either way). Raises :class:`IoError` with the scene
    unchanged."""
    if scene is None:
        scene = (context if context is not None else bpy.context).scene
    d = _read(path_or_data)
    bridge = bridge or SceneBridge(scene)
    try:
        bridge.sync()
    except BridgeError as e:
        raise IoError(f"cannot read the scene: {e}") from None
    data, obs = bridge.data, bridge.objects()
    assert data is not None and bridge.linkage is not None  # synced
    robot = d.get("robot", {})
    vl_in, joints_in = d.get("virtual_links", {}), d.get("joints", {})
    rj_in, rl_in = d.get("real_joints", {}), d.get("real_links", {})
    need_links = set(robot.get("links", [])) | set(rl_in)
    for j in joints_in.values():
        if isinstance(j, dict):
            need_links.update(e for e in (j.get("parent"), j.get("child"))
                              if e is not None and e not in vl_in)
    for v in vl_in.values():
        if isinstance(v, dict) and v.get("anchor") is not None:
            need_links.add(v["anchor"])
    missing = sorted(n for n in need_links if n not in data.links)
    if missing:
        raise IoError(f"the scene's robot lacks link{'s' if len(missing) > 1 else ''} "
                      f"{', '.join(map(repr, missing))} that the preset needs; nothing changed")
    need_joints = set(robot.get("joints", [])) | set(rj_in)
    missing = sorted(n for n in need_joints if n not in data.joints)
    if missing:
        raise IoError(f"the scene's robot lacks joint{'s' if len(missing) > 1 else ''} "
                      f"{', '.join(map(repr, missing))} that the preset needs; nothing changed")
    clash = sorted(n for n in joints_in if n in data.joints)
    if clash:
        raise IoError(f"the scene already has joint{'s' if len(clash) > 1 else ''} "
                      f"{', '.join(map(repr, clash))} (is the preset applied already?); "
                      "nothing changed")

    poses = bridge.linkage.poses()
    saved = {}
    created = []
    result = PresetResult()
    try:
        names, new_pose = {}, dict(poses)
        for n, v in vl_in.items():
            if not isinstance(v, dict):
                raise IoError(f"virtual link {n!r}: expected an object")
            anchor = v.get("anchor")
            T = _pose(v.get("T_anchor_link"), f"virtual link {n!r}: T_anchor_link")
            if anchor is not None:
                T = poses[anchor] @ T
            coll = collection or (obs[anchor].users_collection[0] if anchor is not None
                                  and obs[anchor].users_collection else scene.collection)
            ob = E.new_empty(E.unique_object_name(n), T, coll)
            created.append(ob)
            names[n] = ob
            new_pose[n] = T
            S.write_link(ob, mass=v.get("mass", 0.0), com=v.get("com", (0.0, 0.0, 0.0)),
                         virtual=True, root_tree=v.get("root_tree", True),
                         **_world_goals(v, T, f"virtual link {n!r}"))
            result.links[n] = ob

        def link_ob(name):
            return None if name is None else names.get(name) or obs[name]

        for n, j in joints_in.items():
            if not isinstance(j, dict) or "type" not in j or "child" not in j:
                raise IoError(f"joint {n!r}: expected an object with \"type\" and \"child\"")
            child = link_ob(j["child"])
            if child.name not in saved and child not in created:
                saved[child.name] = (child, _props(child))
            mimic = j.get("mimic")
            Tpm = j.get("T_parent_mob")
            if j.get("parent") is None and Tpm is not None:  # stored in the child's frame
                Tpm = new_pose[j["child"]] @ _pose(Tpm, f"joint {n!r}: T_parent_mob")
            S.write_joint(
                child, n, j["type"], link_ob(j.get("parent")),
                T_parent_mob=Tpm, T_child_frame=j.get("T_child_frame"),
                q=j.get("q"), lower=_unlimits(j.get("lower", []), -1.0, f"joint {n!r}: lower")
                if "lower" in j else None,
                upper=_unlimits(j.get("upper", []), 1.0, f"joint {n!r}: upper")
                if "upper" in j else None,
                pitch=j.get("pitch", 0.0), virtual=j.get("virtual", True),
                tree=j.get("tree", True), **{k: j[k] for k in GF.keys() if k in j},
                mimic=None if mimic is None else (mimic.get("leader"),
                                                  mimic.get("multiplier", 1.0),
                                                  mimic.get("offset", 0.0)))
            result.joints.append(n)
        for n, g in rj_in.items():
            if not isinstance(g, dict):
                raise IoError(f"real joint {n!r}: expected an object")
            ob = obs[data.joints[n].child]
            if ob.name not in saved:
                saved[ob.name] = (ob, _props(ob))
            changes = {k: (tuple(g[k]) if isinstance(g[k], list) else g[k])
                       for k in GF.keys() + ("tree",) if k in g}
            S.update_joint(ob, n, **changes)
            result.real_joints.append(n)
        for n, g in rl_in.items():
            if not isinstance(g, dict):
                raise IoError(f"real link {n!r}: expected an object")
            ob = obs[n]
            if ob.name not in saved:
                saved[ob.name] = (ob, _props(ob))
            S.update_link(ob, **_world_goals(g, poses[n], f"real link {n!r}"))
            result.real_links.append(n)
        bridge.sync()
        if solve:
            result.status = bridge.solve()
        bridge.write_back()
    except (BridgeError, VartError, IoError, KeyError, TypeError, ValueError,
            AttributeError) as e:
        bridge.invalidate()
        S.touched()
        for ob, props in saved.values():
            ob[S.KEY] = props
        for ob in created:
            bpy.data.objects.remove(ob)
        if isinstance(e, IoError):
            raise
        raise IoError(f"the preset cannot be applied: {e}; nothing changed") from None
    return result


def _props(ob):
    raw = ob.get(S.KEY)
    return raw.to_dict() if hasattr(raw, "to_dict") else raw


def _pose(v, what) -> np.ndarray:
    try:
        T = np.array(v, dtype=float).reshape(4, 4)
    except (TypeError, ValueError):
        raise IoError(f"{what}: expected 16 numbers") from None
    if not np.isfinite(T).all():
        raise IoError(f"{what}: not finite")
    return T
