"""vart's operators called as a user would call them (:class:`Steps`): the stories are built
with these, with the selection, active object and 3D cursor a user would set up."""
from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from .common import ExampleError


class Steps:
    """vart's operators called with the selection, active object and 3D cursor a user would
    set up. A refused step raises :class:`ExampleError` naming it. The 3D cursor, selection
    and active object are put back by :meth:`close`."""

    def __init__(self, context):
        self.context = context
        self.scene = context.scene
        self.vl = context.view_layer
        self.cursor0 = self.scene.cursor.matrix.copy()
        # building is not interactive: solves may take what they need (restored by close)
        self.budget0 = self.scene.vart.time_budget_ms
        self.scene.vart.time_budget_ms = 0.0

    def close(self, select=(), active=None):
        self.scene.cursor.matrix = self.cursor0
        self.scene.vart.time_budget_ms = self.budget0
        self.select(*select, active=active)

    def select(self, *obs, active=None):
        for ob in self.vl.objects:
            if ob.select_get():
                ob.select_set(False)
        for ob in obs:
            ob.select_set(True)
        self.vl.objects.active = active if active is not None else (obs[-1] if obs else None)

    def cursor(self, T):
        self.scene.cursor.matrix = Matrix(np.asarray(T, float).tolist())

    def op(self, idname: str, **kw):
        fn = getattr(bpy.ops.vart, idname)  # type: ignore[attr-defined]  # the add-on's ops
        try:
            result = fn(**kw)
        except RuntimeError as e:
            raise ExampleError(f"vart.{idname}: {str(e).strip()}") from None
        if 'FINISHED' not in result:
            raise ExampleError(f"vart.{idname} did not finish ({', '.join(result)})")

    def joint_name(self, base: str) -> str:
        from ..bridge.edits import unique_joint_name
        from ..shared.selection import joint_names
        return unique_joint_name(base, joint_names(self.scene))

    def add_joint(self, jtype: str, child, parent=None, *, at, name: str,
                  virtual: bool = True) -> str:
        """Add a joint with its frame at world pose ``at`` (the 3D cursor): ``child`` active,
        ``parent`` selected too (None: the world)."""
        name = self.joint_name(name)
        self.cursor(at)
        self.select(*([parent] if parent is not None else []), child, active=child)
        self.op("add_joint", joint_type=jtype, virtual=virtual, name=name)
        return name

    def add_virtual_link(self, name: str, at):
        from ..bridge.edits import unique_object_name
        name = unique_object_name(name)
        self.cursor(at)
        self.op("add_virtual_link", name=name)
        return self.vl.objects.active

    def make_links(self, *obs):
        self.select(*obs)
        self.op("make_links")

    def use_joint(self, name: str):
        self.scene.vart.active_joint = name

    def lock_joint(self, name: str):
        self.use_joint(name)
        self.op("lock", target='JOINT')

    def lock_link(self, ob):
        self.select(ob)
        self.op("lock", target='LINK')

    def operate(self, name: str, values):
        """Operate joint ``name`` to ``values`` (display units: degrees, scene lengths)."""
        self.use_joint(name)
        v = list(values)[:6]
        self.op("operate_joint", value=v + [0.0] * (6 - len(v)))

    def set_target(self, name: str):
        self.use_joint(name)
        self.op("set_target")
