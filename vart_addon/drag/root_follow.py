"""Moving, rotating or keying a robot's root link by hand moves the whole robot at once.

Link objects are not Blender-parented to each other (see :mod:`vart_addon.io_urdf.importer`),
so a transform of the root link alone (G, R, a typed value, a script, or its own keys played
back) would leave the robot torn apart until the next solve. Handlers after each depsgraph
update and frame change watch each *root link*: a link of a robot (links joined by real joints) that is the
child of no real tree joint, where no joint holds the robot to the world (a fixed base is
not moved by hand). When a root's world matrix changed while none of its direct children
(the links its real tree joints carry) moved or changed its joint value since the last
update, the root was moved by hand: every other link of its robot that has no transform
animation of its own (baked links follow their keys) is moved by the same rigid motion,
so each joint keeps its value. When the children moved too, vart wrote the pose (a drag, a
solve, live mode, a bake's keys): nothing is done.

The robots are read again only when vart data may have changed
(:func:`vart_addon.shared.edit_count.edit_count`); each update reads the roots' and their
children's matrices and joint values only. Drags, bakes and live mode write poses as before.
"""
from __future__ import annotations

import bpy
from bpy.app.handlers import persistent
from mathutils import Matrix

from ..bridge import animation as A
from ..bridge import poses as P
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..shared import handlers as H
from ..shared.edit_count import edit_count

#: Transform channels whose F-curves make a link follow its own keys, not its root.
_TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
                    "scale", "delta_location", "delta_rotation_euler",
                    "delta_rotation_quaternion")


class _Robots:
    """The scene's root links, their direct children (link, joint) and the rest of their
    robot (object names), read again when the edit count changes."""

    def __init__(self):
        self.forget()

    def forget(self) -> None:
        """Nothing known: read again at the next update."""
        self.count: tuple | None = None
        self.scene: str | None = None
        self.roots: dict = {}  # root -> (children [(link, joint)], other links [names])
        self.memory: dict = {}  # root -> what it and its children were at the last update
        self.busy = False

    def refresh(self, scene) -> None:
        count = edit_count()
        if count == self.count and scene.name == self.scene:
            return
        self.count, self.scene, self.roots = count, scene.name, {}
        try:
            data = S.read_scene(scene.objects)
        except BridgeError:
            return  # a corrupt scene: vart's operators say what is wrong
        up = {n: n for n in data.links}

        def find(x):
            while up[x] != x:
                up[x] = up[up[x]]
                x = up[x]
            return x

        real = {name: j for name, j in data.joints.items()
                if not j.virtual and j.parent is not None}
        for j in real.values():
            up[find(j.parent)] = find(j.child)
        held = {find(j.child) for j in data.joints.values() if j.parent is None}
        carried = {j.child for j in real.values() if j.tree}
        kids: dict = {}
        for name, j in real.items():
            if j.tree:
                kids.setdefault(j.parent, []).append((j.child, name))
        members: dict = {}
        for m in data.links:
            members.setdefault(find(m), []).append(m)
        for n in data.links:
            if n in carried or find(n) in held:
                continue
            rest = [m for m in members[find(n)] if m != n]
            if rest:
                self.roots[n] = (kids.get(n, []), rest)
        self.memory = {r: m for r, m in self.memory.items() if r in self.roots}


_robots = _Robots()


def _snapshot(scene, root: str, kids) -> tuple | None:
    ob = scene.objects.get(root)
    if ob is None:
        return None
    out = []
    for child, joint in kids:
        c = scene.objects.get(child)
        try:
            q = tuple(c[S.KEY]["joints"][joint]["q"]) if c is not None else ()
        except (KeyError, TypeError):
            q = ()
        out.append((P.observe(c) if c is not None else None, q))
    return P.observe(ob), tuple(out)


def _animated(ob) -> bool:
    return ob.animation_data is not None and any(
        fc.data_path in _TRANSFORM_PATHS for fc in A.fcurves_of(ob))


def follow(scene) -> int:
    """Move the robots whose root was moved by hand since the last call (see the module doc);
    returns how many links were moved."""
    if _robots.busy:
        return 0
    _robots.refresh(scene)
    moved = 0
    for root, (kids, rest) in _robots.roots.items():
        now = _snapshot(scene, root, kids)
        before = _robots.memory.get(root)
        _robots.memory[root] = now
        if now is None or before is None or now[0] == before[0] or now[1] != before[1]:
            continue
        delta = Matrix([now[0][0:4], now[0][4:8], now[0][8:12], now[0][12:16]]) @ \
            Matrix([before[0][0:4], before[0][4:8], before[0][8:12], before[0][12:16]]) \
            .inverted()
        _robots.busy = True
        try:
            for name in rest:
                ob = scene.objects.get(name)
                if ob is not None and not _animated(ob):
                    ob.matrix_world = delta @ ob.matrix_world
                    moved += 1
        finally:
            _robots.busy = False
        _robots.memory[root] = _snapshot(scene, root, kids)
    return moved


@persistent
def on_depsgraph_update(scene, depsgraph=None):
    follow(scene)


@persistent
def on_frame_change(scene, depsgraph=None):
    follow(scene)


def register() -> None:
    H.add(bpy.app.handlers.depsgraph_update_post, on_depsgraph_update)
    H.add(bpy.app.handlers.frame_change_post, on_frame_change)


def unregister() -> None:
    H.remove(bpy.app.handlers.frame_change_post, on_frame_change)
    H.remove(bpy.app.handlers.depsgraph_update_post, on_depsgraph_update)
    _robots.forget()
