"""Physics replay of a baked range in MuJoCo, from a Blender scene.

:func:`replay_scene_steps`:

1. the robot: the scene's real links and joints as the URDF export makes them
   (:func:`vart_addon.formats.urdf.from_linkage.urdf_from_linkage`, with the inertia tensors
   and effort limits of the URDF the robot was imported from), each link's collision
   geometry the URDF's own when it is only boxes, cylinders and spheres (a humanoid's sole
   spheres), else its evaluated meshes (as the clearance check reads them: MuJoCo collides
   their convex hulls), and every real joint
   between real links that the URDF leaves out: the closures (a URDF is a tree) as equality
   constraints, and a spherical tree joint (URDF has none: its child hangs from the root by
   a floating joint) as a MuJoCo ball joint (:func:`vart_addon.physics.model.ball_joints`);
   built by :func:`vart_addon.physics.model.build_spec` posed at the first frame
   (:func:`vart_addon.physics.mjcf_export.posed_spec`) with a ground plane at z = 0, the root
   link free and where it is at the first frame;
2. the trajectory: at every frame, the URDF joint values that put the links where their
   baked keys put them (:func:`~vart_addon.formats.urdf.from_linkage.urdf_joint_values`,
   angles unwrapped; a planar joint's as its three MuJoCo joints), and the world poses of the
   root link and of every floating joint's child, at the scene's frame rate;
3. the replay (:func:`vart_addon.physics.replay.replay_steps`): the values as position
   targets, the poses as the free bodies' start and their baked path for the inverse
   dynamics, nothing else imposed.

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
from ..physics.model import (
    FREE_JOINT,
    PLANAR_PARTS,
    Closure,
    PhysicsError,
    ball_joints,
    planar_values,
)
from ..physics.replay import replay_steps
from ..shared.frames import kept_frame
from ..solver import se3
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
    # the URDF's collision shapes where a link has only primitives (G1's soles: four spheres;
    # its foot meshes' hulls, rounded, rocked a standing G1 93 mm off and never let it rest)
    shapes = {link.name for link in robot.links if link.collisions and all(
        c.geometry.kind in ("box", "cylinder", "sphere") for c in link.collisions)}
    meshes = {n: [(m.v, m.t)] for n, m in
              link_meshes({n: obs[n] for n in real if n not in shapes},
                          depsgraph_of(bpy.context, scene)).items()}
    in_urdf = {j.name for j in robot.joints}
    return robot, meshes, left_out_closures(lk, set(real), in_urdf, warnings), warnings


#: Joint kinds that MuJoCo holds as equalities (:func:`vart_addon.physics.model.add_closure`).
CLOSURE_KINDS = ("spherical", "fixed", "revolute")


def left_out_closures(lk, real: set, in_urdf: set, warnings: list, *,
                      virtual: bool = False) -> list[Closure]:
    """The real (``virtual``: the virtual) joints between links of ``real`` (or a real link and
    the world) that are not URDF joints ``in_urdf``, as :class:`Closure` s; a kind MuJoCo has
    no equality for is reported in ``warnings`` and left out."""
    out = []
    for j in lk.joints.values():
        if j.virtual != virtual or j.name in in_urdf or j.child not in real \
                or not (j.parent is None or j.parent in real):
            continue
        if j.jtype.name not in CLOSURE_KINDS:
            warnings.append(f"{'virtual' if virtual else 'real'} joint {j.name!r}: a "
                            f"{j.jtype.name} joint has no MuJoCo equality here; left out")
            continue
        out.append(Closure(j.name, j.jtype.name, j.parent, j.child, j.T_parent_mob,
                           j.T_child_frame))
    return out


def baked_trajectory(scene, robot, obs, frames, balls=None):
    """``(URDF joint values at the first frame, MuJoCo joint -> values per frame, free or
    ball joint -> poses per frame)`` from the baked keys: revolute and continuous values
    unwrapped; a planar joint's three MuJoCo joints; the world poses of the root's
    :data:`FREE_JOINT` and of each floating joint's child; for each ball joint (``balls``,
    :func:`vart_addon.physics.model.ball_joints`) its child's rotation relative to the
    parent since the first frame."""
    values: dict = {}
    bodies: dict = {}
    first = None
    balls = balls or {}
    free = {j.name: j.child for j in robot.joints
            if j.type == "floating" and j.child not in balls}
    if robot.root_link != "world":
        free[FREE_JOINT] = robot.root_link
    with kept_frame(scene):
        for f in frames:
            scene.frame_set(f)
            poses = {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}
            for name, link in free.items():
                bodies.setdefault(name, []).append(poses.get(link, np.eye(4)))
            for child, c in balls.items():
                T = se3.inverse(poses.get(c.parent, np.eye(4))) @ poses[child]
                bodies.setdefault(c.name, []).append(T)
            q = urdf_joint_values(robot, poses)
            first = q if first is None else first
            for j, v in q.items():
                for name, x in _mujoco_values(robot.joint_by_name(j), v):
                    values.setdefault(name, []).append(x)
    angles = {j.name for j in robot.joints if j.type in ("revolute", "continuous")} | {
        j.name + PLANAR_PARTS[2] for j in robot.joints if j.type == "planar"}
    out = {name: np.unwrap(v) if name in angles else np.array(v)
           for name, v in values.items()}
    for c in balls.values():  # relative to the first frame: the model's reference
        T = np.array(bodies[c.name])
        bodies[c.name] = se3.inverse(T[0]) @ T
    return first or {}, out, {name: np.array(T) for name, T in bodies.items()}


def _mujoco_values(j, v):
    """(MuJoCo joint, value) pairs of URDF joint ``j`` at value ``v``."""
    if j.type in ("revolute", "continuous", "prismatic"):
        return [(j.name, float(np.ravel(v)[0]) if np.size(v) else 0.0)]
    if j.type == "planar":
        return list(zip((j.name + s for s in PLANAR_PARTS), planar_values(j, v)))
    return []  # floating: its body's world pose (bodies); fixed: nothing


def replay_scene_steps(scene=None, frame_start=None, frame_end=None, *,
                       bridge: SceneBridge | None = None, time_scale: float = 1.0,
                       times=None, **build_kw):
    """Replay frames ``frame_start``..``frame_end`` (default the scene's range) of the baked
    scene in MuJoCo: a generator yielding ``(done, total)`` frames and returning
    ``(ReplayResult, warnings)``. The frames are played at the scene's frame rate, their
    times multiplied by ``time_scale`` (a uniformly re-timed export's duration after over
    before), or at ``times`` (s, one per frame, increasing: the times a re-timed export
    gives them, ``vart_addon.io_trajectory.export_timing(...).trajectory.times``, TOPP-RA's
    included): the motion the robot is sent. ``build_kw`` go to :func:`posed_spec`. Raises
    :class:`PhysicsError` (MuJoCo missing, nothing to replay, a time scale that is not a
    positive number, times that are not one increasing finite time per frame) or a
    BridgeError."""
    if not (isinstance(time_scale, (int, float)) and 0.0 < time_scale < float("inf")):
        raise PhysicsError(f"time_scale must be a positive number, got {time_scale!r}")
    scene = scene or bpy.context.scene
    start = int(scene.frame_start if frame_start is None else frame_start)
    end = int(scene.frame_end if frame_end is None else frame_end)
    if end <= start:
        raise PhysicsError(f"a replay needs two or more frames, got {start}-{end}")
    if times is not None:
        times = _frame_times(times, end - start + 1, time_scale)
    bridge = bridge or SceneBridge(scene)
    with kept_frame(scene):
        scene.frame_set(start)
        robot, meshes, closures, warnings = scene_robot(scene, bridge)
        obs = bridge.objects()
    frames = list(range(start, end + 1))
    first, targets, bodies = baked_trajectory(scene, robot, obs, frames,
                                              ball_joints(robot, closures))
    base = bodies[FREE_JOINT][0] if FREE_JOINT in bodies else None
    # posed at the first frame: MuJoCo fixes a connect's child-side anchor where its model's
    # reference configuration puts it, so a loop must be closed there (qpos keeps the URDF
    # meaning: each joint's ref is its value there)
    built = posed_spec(robot, first, meshes=meshes, base=base, closures=closures, **build_kw)
    warnings += built.warnings
    if times is None:
        fps = scene.render.fps / scene.render.fps_base
        times = (np.array(frames, float) - start) / fps * float(time_scale)
    res = yield from replay_steps(built, times, targets, bodies=bodies)
    return res, warnings


def _frame_times(times, n: int, time_scale: float) -> np.ndarray:
    """``times`` checked as one increasing finite time per frame of ``n`` (s); PhysicsError
    naming the field else (also beside a ``time_scale``: one or the other)."""
    if time_scale != 1.0:
        raise PhysicsError("give times or a time_scale, not both")
    try:
        t = np.array(times, dtype=float)
    except (TypeError, ValueError):
        raise PhysicsError(f"times must be numbers (s), one per frame, got {times!r}"[:200]) \
            from None
    if t.shape != (n,):
        raise PhysicsError(f"times must hold one time per frame ({n}), got shape {t.shape}")
    if not np.isfinite(t).all() or not (np.diff(t) > 0).all():
        raise PhysicsError("times must be finite and increasing, one per frame")
    return t
