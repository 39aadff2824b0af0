"""Physics replay of a baked range in MuJoCo, from a Blender scene.

:func:`replay_scene_steps`:

1. the robot: the scene's real links and joints as the URDF export makes them
   (:func:`vart_addon.formats.urdf.from_linkage.urdf_from_linkage`, with the inertia tensors
   and effort limits of the URDF the robot was imported from), each link's collision
   geometry its evaluated meshes (as the clearance check reads them), and the scene's real
   closure joints as equality constraints; built by :func:`vart_addon.physics.model.build_spec`
   posed at the first frame (:func:`vart_addon.physics.mjcf_export.posed_spec`)
   with a ground plane at z = 0, the root link free and where it is at the first frame;
2. the trajectory: at every frame, the URDF joint values that put the links where their
   baked keys put them (:func:`~vart_addon.formats.urdf.from_linkage.urdf_joint_values`,
   angles unwrapped), at the scene's frame rate;
3. the replay (:func:`vart_addon.physics.replay.replay_steps`): the values as position
   targets, nothing else imposed.

MuJoCo (PyPI ``mujoco-core``) is imported only here, when a replay runs.
"""
from __future__ import annotations

import os

import bpy
import numpy as np

from ..bridge import SceneBridge
from ..bridge import poses as P
from ..formats.urdf.from_linkage import urdf_from_linkage, urdf_joint_values
from ..io_urdf.exporter import depsgraph_of, source_template
from ..physics.mjcf_export import posed_spec
from ..physics.model import Closure, PhysicsError
from ..physics.replay import replay_steps
from ..shared.frames import kept_frame
from .clearance import link_meshes


def scene_robot(scene, bridge: SceneBridge):
    """``(robot, meshes, closures, warnings)`` of the scene's real robot at the current
    frame (see the module doc)."""
    bridge.sync()
    lk, obs = bridge.linkage, bridge.objects()
    assert lk is not None  # synced
    real = [n for n, link in lk.links.items() if not link.virtual]
    if not real:
        raise PhysicsError("nothing to replay: the scene has no real links")
    warnings: list[str] = []
    template = source_template(obs, real, os.getcwd(), warnings)
    robot, more = urdf_from_linkage(lk, template.name if template is not None else "robot",
                                    template=template)
    warnings += more
    meshes = {n: [(m.v, m.t)] for n, m in
              link_meshes({n: obs[n] for n in real}, depsgraph_of(bpy.context, scene)).items()}
    real_set = set(real)
    closures = [Closure(j.name, j.jtype.name, j.parent, j.child, j.T_parent_mob,
                        j.T_child_frame)
                for j in lk.joints.values()
                if not j.virtual and not j.is_tree and j.child in real_set
                and (j.parent is None or j.parent in real_set)]
    return robot, meshes, closures, warnings


def baked_trajectory(scene, robot, obs, frames):
    """``(T_world_root at the first frame, joint -> values per frame)`` from the baked keys
    (revolute and continuous values unwrapped)."""
    values: dict = {}
    base = None
    with kept_frame(scene):
        for f in frames:
            scene.frame_set(f)
            poses = {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}
            if base is None:
                base = poses.get(robot.root_link, np.eye(4))
            for j, v in urdf_joint_values(robot, poses).items():
                values.setdefault(j, []).append(float(np.ravel(v)[0]) if np.size(v) else 0.0)
    out = {}
    for j in robot.joints:
        if j.name in values:
            v = np.array(values[j.name])
            out[j.name] = np.unwrap(v) if j.type in ("revolute", "continuous") else v
    return base, out


def replay_scene_steps(scene=None, frame_start=None, frame_end=None, *,
                       bridge: SceneBridge | None = None, **build_kw):
    """Replay frames ``frame_start``..``frame_end`` (default the scene's range) of the baked
    scene in MuJoCo: a generator yielding ``(done, total)`` frames and returning
    ``(ReplayResult, warnings)``. ``build_kw`` go to :func:`posed_spec`. Raises
    :class:`PhysicsError` (MuJoCo missing, nothing to replay) or a BridgeError."""
    scene = scene or bpy.context.scene
    start = int(scene.frame_start if frame_start is None else frame_start)
    end = int(scene.frame_end if frame_end is None else frame_end)
    if end <= start:
        raise PhysicsError(f"a replay needs two or more frames, got {start}-{end}")
    bridge = bridge or SceneBridge(scene)
    with kept_frame(scene):
        scene.frame_set(start)
        robot, meshes, closures, warnings = scene_robot(scene, bridge)
        obs = bridge.objects()
    frames = list(range(start, end + 1))
    base, targets = baked_trajectory(scene, robot, obs, frames)
    # posed at the first frame: MuJoCo fixes a connect's child-side anchor where its model's
    # reference configuration puts it, so a loop must be closed there (qpos keeps the URDF
    # meaning: each joint's ref is its value there)
    built = posed_spec(robot, {j: v[0] for j, v in targets.items()}, meshes=meshes, base=base,
                       closures=closures, **build_kw)
    warnings += built.warnings
    fps = scene.render.fps / scene.render.fps_base
    times = (np.array(frames, float) - start) / fps
    res = yield from replay_steps(built, times, targets)
    return res, warnings
