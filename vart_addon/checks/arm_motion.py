"""The motion check of an arm over a baked range: jumps, changes of IK branch, singularities.

For a tool (:mod:`vart_addon.bridge.tools`) and its arm (the 1-DoF tree joints from the
robot's root to it: :func:`vart_addon.solver.arm_branches.arm_joints`), the arm's joint
values at every frame of the range (their baked F-curves, or their stored values when a
joint is not animated) are checked for:

- **jumps**: a joint moving more than ``step`` (rad, or m for a prismatic joint) from one
  frame to the next (a flip the eye misses at playback, a motor cannot follow);
- **configuration changes**: the arm's IK branch (shoulder, elbow, wrist: the signs of
  :func:`~vart_addon.solver.arm_branches.branch_of`) differing from the frame before;
- **singularities**: the arm's manipulability (Yoshikawa's ``sqrt(det(J J^T))``,
  :func:`~vart_addon.solver.arm_branches.manipulability`) below ``min_manipulability``.

What was found is an :class:`ArmMotionReport`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..bridge import SceneBridge
from ..bridge import animation as A
from ..bridge import schema as S
from ..shared.frames import kept_frame
from ..solver import arm_branches as AB
from ..solver.text import frame_ranges

#: Default largest joint motion between two frames (rad or m) before it counts as a jump.
STEP = 0.2
#: Default manipulability below which the arm is near a singularity. UR5 (example-robot-data)
#: measures 0.08-0.09 along its pick-and-place example (0.014 at the median of random
#: configurations, many of them near a singularity); it falls to 0.005 about 5 degrees from
#: its elbow's singularity (the arm straight) and 3 degrees from its wrist's.
MIN_MANIPULABILITY = 0.005


@dataclass
class ArmMotionReport:
    """The check of one tool's arm over ``frames``: ``joints`` (root first), ``q`` (frames,
    joints) their values, ``manipulability`` per frame, ``branches`` per frame (labels);
    ``jumps``: ``(frame, joint, change)``; ``changes``: ``(frame, from, to)`` branch labels;
    ``singular``: frames below ``min_manipulability``."""

    tool: str
    frames: list
    joints: list
    q: np.ndarray
    manipulability: np.ndarray
    branches: list
    step: float
    min_manipulability: float
    jumps: list = field(default_factory=list)
    changes: list = field(default_factory=list)
    singular: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.jumps or self.changes or self.singular)

    def summary(self) -> str:
        f0, f1 = self.frames[0], self.frames[-1]
        head = (f"Arm of {self.tool!r}, frames {f0}-{f1}: {self.branches[0] or 'one branch'}"
                f", manipulability {self.manipulability.min():.3g} at least")
        if self.ok:
            return head + f"; no jump over {self.step:g} per frame, no configuration change"
        parts = []
        if self.jumps:
            worst = max(self.jumps, key=lambda x: abs(x[2]))
            parts.append(f"jumps over {self.step:g} per frame on frames "
                         f"{frame_ranges(sorted({j[0] for j in self.jumps}))} (worst "
                         f"{worst[1]} {worst[2]:+.3g} at frame {worst[0]})")
        for f, a, b in self.changes[:3]:
            parts.append(f"configuration changes at frame {f}: {a} -> {b}")
        if self.singular:
            k = int(np.argmin(self.manipulability))
            parts.append(f"near a singularity on frames {frame_ranges(self.singular)} "
                         f"(manipulability {self.manipulability[k]:.3g} at frame "
                         f"{self.frames[k]}, below {self.min_manipulability:g})")
        return head + ". " + "; ".join(parts)


def arm_values(obs: dict, joints, frames) -> np.ndarray:
    """(frames, joints) values of 1-DoF ``joints`` at ``frames``: their q's F-curve on their
    child link object where keyed, else their stored value."""
    out = np.empty((len(frames), len(joints)))
    for i, j in enumerate(joints):
        fc = A.fcurve_map(obs[j.child]).get((S.q_data_path(j.name), 0))
        out[:, i] = A.sample(fc, frames) if fc is not None and A.animates(fc) else \
            float(np.asarray(j.q).reshape(-1)[0])
    return out


def check_arm_motion(scene, tool: str, frame_start: int, frame_end: int, *,
                     step: float = STEP, min_manipulability: float = MIN_MANIPULABILITY,
                     bridge: SceneBridge | None = None) -> ArmMotionReport:
    """Check the arm of link ``tool`` over frames ``frame_start``..``frame_end`` (see the
    module doc); the current frame is kept. Raises VartError (the tool has no arm) or a
    BridgeError (the scene cannot be read)."""
    bridge = bridge or SceneBridge(scene)
    frames = list(range(int(frame_start), int(frame_end) + 1))
    with kept_frame(scene):
        scene.frame_set(frames[0])
        bridge.sync()
        lk, obs = bridge.linkage, bridge.objects()
        assert lk is not None  # synced
        joints = AB.arm_joints(lk, tool)
        q = arm_values(obs, joints, frames)
    # (each evaluated at the frame's values: the linkage's own are not changed)
    branches = [AB.branch_of(lk, tool, row) for row in q]
    labels = [AB.label(lk, tool, b, row) for b, row in zip(branches, q)]
    manip = np.array([AB.manipulability(lk, tool, row) for row in q])
    rep = ArmMotionReport(tool, frames, [j.name for j in joints], q, manip, labels, step,
                          min_manipulability)
    dq = np.diff(q, axis=0)
    for k, i in zip(*np.nonzero(np.abs(dq) > step)):
        rep.jumps.append((frames[k + 1], joints[i].name, float(dq[k, i])))
    for k in range(1, len(frames)):
        if branches[k] != branches[k - 1]:
            rep.changes.append((frames[k], labels[k - 1], labels[k]))
    rep.singular = [f for f, m in zip(frames, manip) if m < min_manipulability]
    return rep
