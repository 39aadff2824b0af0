"""The inputs of a bake: what the user animated, found in the link objects' F-curves.

*Inputs* are the F-curves on link objects that are not in the :data:`.bake.BAKE_GROUP` channel
group (curves there are the output of an earlier bake):

- a tree joint's q (any DoF): a target on that joint at the animated value, those DoF
  only (it replaces the joint's stored target for the bake). A closure joint's q is
  output only (as stored, :mod:`.bridge.schema`): animate its target instead (Operate
  Joint sets targets);
- a link's location and/or the rotation channel of its rotation mode: a target on the
  link's root joint at its animated world pose (position and/or rotation);
- a tool's waypoints (:mod:`vart_addon.bridge.tools`): its pose or its arm's joints at each
  frame, as :mod:`.waypoint_goals` says (the tool's own transform curves are then not an
  input);
- any other ``["vart"]`` property (targets, locks, postures, springs...) or a driver on a
  link: the bridge re-reads the scene every frame (``SceneBridge.sync``) so the stored
  goals follow the animation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..bridge import animation as A
from ..bridge import schema as S
from ..bridge import tools as TL
from ..solver.goal_kinds import KIND
from .keying import rotation_path

#: The kind of goal an animated value becomes.
TARGET = KIND["target"]


# ---- inputs -----------------------------------------------------------------------------------
@dataclass
class Inputs:
    """What the user animated (see the module doc)."""

    joints: dict = field(default_factory=dict)   # joint -> (child object name, DoF mask)
    links: dict = field(default_factory=dict)    # link -> mask (x, y, z, wx, wy, wz)
    curves: dict = field(default_factory=dict)   # (object, data_path, index) -> goal name
    sync: bool = False                           # other vart properties or drivers animated
    sync_objects: set = field(default_factory=set)  # ... on these link objects
    tools: dict = field(default_factory=dict)    # tool link -> its Waypoints
    described: list = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.joints or self.links or self.sync or self.tools)


def find_inputs(obs: dict, data, linkage) -> Inputs:
    """Scan the link objects' F-curves (and drivers) for what the user animated.

    A link's transform curves are an input only if its pose is not already fixed by animated
    joint values: a link whose every tree joint down to the ground (in the bridge's spanning
    tree) has all its DoF animated is *joint-driven*, and its transform curves (keyed with
    it by Key Pose or auto-keying) are output like any other. Interpolating such a link's
    Euler angles would fight the joints (and near gimbal lock, swing wildly)."""
    inp = Inputs()
    qpaths: dict[str, dict[str, str]] = {}
    for jn, j in data.joints.items():
        qpaths.setdefault(j.child, {})[S.q_data_path(jn)] = jn
    link_curves = []
    for n, ob in sorted(obs.items()):
        wp = TL.read_waypoints(ob)
        if wp is not None:
            inp.tools[n] = wp
        rot = rotation_path(ob)
        for (path, idx), fc in sorted(A.fcurve_map(ob).items()):
            if A.group_of(fc) == A.BAKE_GROUP or fc.mute or not len(fc.keyframe_points):
                continue
            if path == "location" or path == rot:
                link_curves.append((n, path, idx))
            elif path in qpaths.get(n, {}):
                jn = qpaths[n][path]
                dof = data.joints[jn].dof
                if idx >= dof or not linkage.joints[jn].is_tree:
                    continue  # a closure's q is output only: it is driven by its target
                _, mask = inp.joints.setdefault(jn, (n, np.zeros(dof, bool)))
                mask[idx] = True
                inp.curves[(n, path, idx)] = TARGET.goal_id(linkage.joints[jn])
            elif path.startswith(f'["{S.KEY}"]'):
                inp.sync = True
                inp.sync_objects.add(n)
        ad = ob.animation_data
        if ad is not None and any(d.data_path.startswith(f'["{S.KEY}"]') and not d.mute
                                  for d in ad.drivers):
            inp.sync = True
            inp.sync_objects.add(n)
    for n, path, idx in link_curves:
        if n in inp.tools or joint_driven(linkage, n, inp.joints):
            continue
        mask = inp.links.setdefault(n, np.zeros(6, bool))
        if path == "location":
            mask[:3] = True
        else:
            mask[3:] = True
        inp.curves[(n, path, idx)] = TARGET.goal_id(linkage.roots[n])
    inp.described = ([f"q of joint {jn!r}" for jn in inp.joints]
                     + [f"transform of link {ln!r}" for ln in inp.links]
                     + (["other vart properties"] if inp.sync else [])
                     + [f"waypoints of tool {t!r} ({len(w)})" for t, w in inp.tools.items()])
    return inp


def last_key(obs: dict, inp: Inputs) -> float | None:
    """The last keyed frame of the input curves (``obs``: link name -> object); None when it
    is not known: no input curves, other animated vart properties or drivers, or a curve
    with modifiers (a Cycles modifier repeats the keys for ever)."""
    if inp.sync or not (inp.curves or inp.tools):
        return None
    tools = [float(w.frames[-1]) for w in inp.tools.values()]
    end = max(tools) if tools else None
    for (n, path, idx) in inp.curves:
        fc = A.fcurve_map(obs[n]).get((path, idx))
        if fc is None or len(fc.modifiers):
            return None
        end = max(float(fc.range()[1]), end if end is not None else -np.inf)
    return end


def joint_driven(linkage, link: str, animated: dict) -> bool:
    """True if every tree joint with DoF from ``link`` down to the ground has all its DoF
    in ``animated`` (joint -> (object, DoF mask)); False if the link (or one below it)
    hangs from its root joint (its pose is then its own)."""
    while link is not None:
        e = linkage.tree_edge[link]
        if e.is_root:
            return False
        if e.dof and (e.name not in animated or not animated[e.name][1].all()):
            return False
        link = linkage.tree_parent(link)
    return True
