"""The drag tests' scene and checks (``tests/blender/drag``): the benchmark hexapod (feet pinned
to the ground by spherical closures) solved and written, an exact state of every object, and
the pins' check. Needs bpy and ../shared/bench."""
from __future__ import annotations

import types

import bpy
import numpy as np

import blender_scenes as BS
from vart_addon.bridge import SceneBridge
from vart_addon.solver import Settings

#: Drags in the tests: no time budget (answers must not depend on the machine's load).
SETTINGS = Settings(max_ms=None)


def _plain(v):
    if hasattr(v, "to_dict"):
        v = v.to_dict()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if hasattr(v, "to_list"):
        return v.to_list()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, bpy.types.ID):
        return ("ID", v.name)
    return v


def state() -> dict:
    """Every object, exactly: transform channels in all rotation modes, matrices, vart."""
    out = {}
    for ob in bpy.data.objects:
        out[ob.name] = (ob.rotation_mode, tuple(ob.location), tuple(ob.rotation_euler),
                        tuple(ob.rotation_quaternion), tuple(ob.rotation_axis_angle),
                        tuple(ob.scale), tuple(tuple(r) for r in ob.matrix_basis),
                        tuple(tuple(r) for r in ob.matrix_world), repr(_plain(ob.get("vart"))))
    return out


def hexapod_scene() -> types.SimpleNamespace:
    """A factory-fresh empty scene holding the benchmark hexapod, solved and written, auto-keying
    off: ``prob`` (the BenchProblem), ``obs`` (objects by link name), ``bridge``."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    prob, obs = BS.hexapod_scene()
    bridge = SceneBridge(bpy.context.scene)
    bridge.solve(SETTINGS)
    bridge.write_back()
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = False
    return types.SimpleNamespace(prob=prob, obs=obs, bridge=bridge)


def pins(prob) -> dict:
    """Foot link -> where its pin holds it (world, m)."""
    return {h["frame"]: np.array(h["world"], float) for h in prob.hard}


def assert_feet_pinned(hx):
    """Every foot at its pin: within 1e-6 in the bridge's float64 poses, 1e-5 in the objects'
    float32 matrices."""
    lk = hx.bridge.linkage
    for foot, w in pins(hx.prob).items():
        assert np.linalg.norm(lk.pose(foot)[:3, 3] - w) < 1e-6, foot
        p = np.array(hx.obs[foot].matrix_world, float)[:3, 3]
        assert np.abs(p - w).max() < 1e-5, foot


def deck_path(hx, n):
    """``n`` poses of the benchmark's drag path (4x4 T_world_deck)."""
    return [hx.prob.target_pose(f) for f in range(0, 3 * n, 3)]
