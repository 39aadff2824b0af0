"""One frame of a bake: the per-frame solve that Bake Range (:mod:`.bake`) and live mode
(:mod:`.live`) share, so that both give the same pose at every frame.

A chain of frames starts from the scene as it is at its first frame (``prev`` None: the
bridge is synced there and its linkage is the warm start) and each later frame is solved
warm-started from the previous frame's configuration, with the frame's animated inputs as
goals (:mod:`.bake_inputs`). The bend predictor is off (``Settings.predict_bend``), so a
frame's pose is a function of the previous frame's pose and the frame's goals only: the
chain gives the same answer however it is split across calls.

:class:`FrameSolver` holds what the chain needs (the synced bridge, the link objects, the
inputs, the settings); :meth:`FrameSolver.solve` solves one frame (the scene must already be
on it: ``scene.frame_set``) and returns a :class:`FrameSolution`; nothing in the scene is
written. :meth:`FrameSolver.release` takes the chain's goals off the bridge's linkage again.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..bridge import SceneBridge
from ..bridge import build as B
from ..bridge import poses as P
from ..bridge import schema as S
from ..solver import Linkage, Settings, SolveStatus
from .bake_inputs import TARGET, Inputs, find_inputs
from .bake_result import BakeError
from .waypoint_goals import WaypointGoals

#: How close a solution must come to an animated value (m, rad) for its goal to count as met:
#: F-curves hold single-precision values, so animated poses and values agree with each other
#: only to about 1e-7 relative.
INPUT_TOL = 1e-5


@dataclass
class FrameSolution:
    """One solved frame. ``q``: the model's configuration (``Model.q_from_joints``, the warm
    start of the next frame); ``T``: (links, 4, 4) ``T_world_link`` in the model's link order
    (ground first); ``poses``: link name -> ``T_world_link``; ``input_error``: input goal ->
    how far the solution is from the animated value (m or rad); ``unmet``: goals not met at
    this frame (the solver's, and inputs beyond the input tolerance)."""

    frame: int
    q: np.ndarray
    T: np.ndarray
    poses: dict
    status: SolveStatus
    input_error: dict
    unmet: list
    deviation: dict


def input_errors(lk, poses: dict, joint_targets: dict, link_targets: dict) -> dict:
    """Goal name -> how far the solution is from each target of the frame's inputs (largest
    DoF error, m or rad; for a link the larger of its position error and rotation angle,
    masked). ``joint_targets``: joint name -> (q, DoF mask); ``link_targets``: link name ->
    (``T_world_link``, mask over x y z wx wy wz) (apart: a joint may have the name of a link,
    as the hexapod's wheel joints have their wheels')."""
    out = {}
    for jn, (q, mask) in joint_targets.items():
        j = lk.joints[jn]
        out[TARGET.goal_id(j)] = float(np.abs(j.q - q)[mask].max())
    for ln, (Tt, mask) in link_targets.items():
        T = poses[ln]
        e = 0.0
        if mask[:3].any():
            e = float(np.linalg.norm((T[:3, 3] - Tt[:3, 3])[mask[:3]]))
        if mask[3:].any():
            c = (np.trace(T[:3, :3] @ Tt[:3, :3].T) - 1.0) / 2.0
            e = max(e, float(np.arccos(np.clip(c, -1.0, 1.0))))
        out[TARGET.goal_id(lk.roots[ln])] = e
    return out


class FrameSolver:
    """The per-frame solve of a chain of frames over one synced bridge (see the module doc).

    Built by :meth:`start`, which syncs the bridge and finds the inputs; raises
    :class:`BakeError` if the scene has no links or nothing is animated."""

    def __init__(self, bridge: SceneBridge, obs: dict, inputs: Inputs, settings: Settings,
                 input_tol: float = INPUT_TOL):
        lk, data = bridge.linkage, bridge.data
        assert lk is not None and data is not None  # synced
        self.bridge, self.obs, self.inputs = bridge, obs, inputs
        self.lk: Linkage = lk
        self.data: S.SceneData = data
        self.model = lk.model()
        self.settings = replace(settings, predict_bend=False)
        self.input_tol = input_tol
        self._old_settings = bridge.settings
        self.waypoints = WaypointGoals(lk, data, inputs.tools)

    @classmethod
    def start(cls, bridge: SceneBridge, settings: Settings | None = None, gravity=None,
              input_tol: float = INPUT_TOL) -> FrameSolver:
        """Sync ``bridge`` and find what is animated. ``settings``: the solver's per frame
        (default: the bridge's; the bend predictor always off); ``gravity``: m/s^2 or None
        (set on the linkage)."""
        bridge.sync()
        obs = bridge.objects()
        if not obs:
            raise BakeError("nothing to bake: the scene has no links (Vart > Make Links)")
        lk = bridge.linkage
        assert lk is not None  # synced
        inputs = find_inputs(obs, bridge.data, lk)
        if not inputs:
            raise BakeError("nothing to bake: nothing is animated. Keyframe a joint's value, "
                            "a target, a lock or a link's transform (Key Pose keys the current "
                            "pose) and bake again")
        lk.set_gravity(gravity)
        return cls(bridge, obs, inputs, settings or bridge.settings, input_tol)

    def solve(self, frame: int, prev: np.ndarray | None) -> FrameSolution:
        """Solve ``frame`` (the scene must be on it) warm-started from ``prev`` (the previous
        frame's :attr:`FrameSolution.q`; None: the first frame of a chain, started from the
        scene as it is). Raises BakeError if the structure changed, or the solver's
        VartError."""
        bridge, lk, obs, inputs, model = self.bridge, self.lk, self.obs, self.inputs, self.model
        changed = False
        if prev is None:  # first frame: start from the scene as it is there
            changed = bridge.sync() or bridge.linkage is not lk
        elif inputs.sync:  # only goal values of these objects follow the animation
            changed = bridge.sync_objects(inputs.sync_objects) or bridge.linkage is not lk
        if changed:
            raise BakeError(f"frame {frame}: the mechanism's structure is animated "
                            "(joint types, frames, parents or tree flags); only values "
                            "can be baked")
        if prev is not None:
            model.q_to_joints(prev)
        joint_targets, link_targets = {}, {}
        for jn, (child, mask) in inputs.joints.items():
            q = np.array(obs[child][S.KEY]["joints"][jn]["q"], float)
            lk.set_target(jn, q, mask)
            joint_targets[jn] = (q, mask)
        for ln, mask in inputs.links.items():
            T = P.rigid_and_scale(P.observe(obs[ln]), ln)[0]
            lk.set_link_target(ln, T, mask)
            link_targets[ln] = (T, mask)
        self.waypoints.apply(frame, lambda: bridge.solve(self.settings, sync=False),
                             joint_targets, link_targets)
        st = bridge.solve(self.settings, sync=False)
        q = model.q_from_joints()
        T = model.world_poses(q)  # remembered: write_back reads the same poses
        if not np.isfinite(T).all():
            raise BakeError(f"frame {frame}: the solution is not finite; nothing was keyed")
        poses = {nm: T[i] for nm, i in model.index.items() if nm is not None}
        errs = input_errors(lk, poses, joint_targets, link_targets)
        unmet = [g for g in st.unmet if g not in errs]
        unmet += [g for g, e in errs.items() if e > self.input_tol]
        return FrameSolution(frame, q, T, poses, st, errs, unmet,
                             self.waypoints.deviations(frame, poses))

    def release(self, checkpoint) -> None:
        """Put the bridge's settings back, take the chain's own goals off the linkage (stored
        goals as the data says; the link targets the bridge holds are re-applied by the
        rollback) and put the bridge's cache back to ``checkpoint`` (taken before the first
        frame, ``bridge.checkpoint()``): the next sync reconciles it with the scene without
        rebuilding the linkage."""
        bridge, lk, inputs = self.bridge, self.lk, self.inputs
        bridge.settings = self._old_settings
        if bridge.solver is not None:
            bridge.solver.settings = self._old_settings
        try:
            if bridge.linkage is lk:
                if inputs.sync and bridge.data is not None:  # goals followed the animation:
                    B.patch_goals(lk, bridge.data, self.data)  # patch them back to the data's
                for jn in inputs.joints:
                    B.apply_joint_goals(lk, self.data.joints[jn])
                for ln in inputs.links:
                    lk.clear_link_target(ln)
                self.waypoints.release()
            bridge.rollback(checkpoint)
        except Exception:  # never leave a half-restored cache behind
            bridge.invalidate()
