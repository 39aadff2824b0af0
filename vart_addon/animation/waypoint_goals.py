"""A tool's waypoints as the goals of one frame, for the bake and live mode alike
(:mod:`.frame_step`).

At a frame, each tool with waypoints (:mod:`vart_addon.bridge.tools`,
:class:`vart_addon.solver.waypoints.Waypoints`) is in a segment:

- holding a waypoint (on its frame, before the first or after the last) or in a **Linear**
  segment: a target on the tool link's root joint at the waypoint's pose, or at the pose on
  the straight path (origin on the line, rotation by slerp) at the segment's fraction;
- in a **Joint** segment: targets on the arm's joints (its 1-DoF tree joints from its
  robot's root: :func:`vart_addon.solver.arm_branches.arm_joints`). The solution at the
  segment's end waypoint is solved first from the previous frame's pose (the tool's target
  at that waypoint, the arm's joints free), then the arm's joints go the part of the
  remaining way that the frame's fraction says:
  ``q = q_prev + (q_end - q_prev) (s - s_prev) / (1 - s_prev)``. While ``q_end`` is the same
  solution (the arm stays on its branch), that is exactly the straight line in joint space
  from the start waypoint's values to the end's, with the segment's easing; and a frame's
  goals depend only on the previous frame's pose, as the chain of frames requires.

The waypoints drive the arm: targets stored on its joints, or keyed, are set aside while
they run (and put back after).

The tool's position error from its target, or each arm joint's from its value, is the frame's
input error; in a Linear segment the distance of the tool's origin from the segment's line is
its *deviation* (:attr:`.frame_step.FrameSolution.deviation`, the bake's largest per tool).
"""
from __future__ import annotations

import numpy as np

from ..bridge import build as B
from ..solver import arm_branches as AB
from ..solver.errors import VartError
from ..solver.waypoints import JOINT, LINEAR, Waypoints


class WaypointGoals:
    """The goals of every waypoint tool of a chain of frames (see the module doc).
    ``tools``: link name -> :class:`Waypoints`; ``data``: the bridge's scene data (the arm
    joints' stored goals, put back when a Joint segment ends)."""

    def __init__(self, lk, data, tools: dict):
        self.lk, self.data, self.tools = lk, data, tools
        self.arms = {t: self._arm(t, wp) for t, wp in tools.items()}
        self._driven: set = set()   # arm joints whose targets this set or cleared

    def _arm(self, tool: str, wp: Waypoints) -> list[str]:
        """The names of the tool's arm joints (:func:`.arm_branches.arm_joints`); a tool
        without an arm may only have Linear moves."""
        try:
            return [j.name for j in AB.arm_joints(self.lk, tool)]
        except VartError:
            if JOINT in wp.moves[1:]:
                raise VartError(f"tool {tool!r} has Joint moves but no arm (no 1-DoF joint "
                                "between it and the ground): make them Linear") from None
            return []

    def apply(self, frame: int, solve, joint_targets: dict, link_targets: dict) -> None:
        """Set the frame's goals of every tool. ``solve()`` runs the frame's solver (for the
        Joint segments' end solutions; the linkage's configuration is put back after). Each
        target set is added to ``joint_targets`` (joint -> (q, mask)) or ``link_targets``
        (link -> (``T_world_link``, mask)), the frame's inputs' (their errors are the frame's
        input errors, :func:`.frame_step.input_errors`)."""
        lk = self.lk
        every = np.ones(6, bool)
        for tool, wp in self.tools.items():
            seg = wp.segment(frame)
            arm = self.arms[tool]
            if seg.holding or seg.move == LINEAR:
                self._free(arm)
                for jn in arm:  # a keyed value of theirs is set aside: not this frame's goal
                    joint_targets.pop(jn, None)
                T = wp.pose(seg)
                lk.set_link_target(tool, T)
                link_targets[tool] = (T, every)
                continue
            assert seg.move == JOINT
            q_prev = {jn: np.array(lk.joints[jn].q, float) for jn in arm}
            end = self._end_solution(tool, wp.T[seg.b], arm, solve)
            s_prev = wp.fraction(seg, frame - 1)
            w = 1.0 if s_prev >= 1.0 else (seg.s - s_prev) / (1.0 - s_prev)
            lk.clear_link_target(tool)
            for jn in arm:
                q = q_prev[jn] + w * (end[jn] - q_prev[jn])
                lk.set_target(jn, q)
                joint_targets[jn] = (q, np.ones(q.size, bool))
            self._driven.update(arm)

    def _end_solution(self, tool, T_end, arm, solve) -> dict:
        """The arm's joint values that put ``tool`` at ``T_end`` from the current pose (the
        linkage's configuration is put back)."""
        lk = self.lk
        model = lk.model()
        q0 = model.q_from_joints().copy()
        self._free(arm)
        lk.set_link_target(tool, T_end)
        solve()
        end = {jn: np.array(lk.joints[jn].q, float) for jn in arm}
        model.q_to_joints(q0)
        return end

    def _free(self, arm) -> None:
        """The arm's joints without targets: the waypoints drive them (a target stored on
        one, or keyed, is set aside until :meth:`release`)."""
        for jn in arm:
            self.lk.clear_target(jn)
        self._driven.update(arm)

    def deviations(self, frame: int, poses: dict) -> dict:
        """Tool -> distance of its origin from its Linear segment's line at ``frame`` (m);
        tools not in a Linear segment are left out."""
        out = {}
        for tool, wp in self.tools.items():
            seg = wp.segment(frame)
            if seg.a != seg.b and seg.move == LINEAR:
                out[tool] = wp.line_distance(seg, poses[tool][:3, 3])
        return out

    def release(self) -> None:
        """Take every goal this set off the linkage (the stored ones back)."""
        for tool in self.arms:
            self.lk.clear_link_target(tool)
        for jn in sorted(self._driven):
            B.apply_joint_goals(self.lk, self.data.joints[jn])
        self._driven.clear()


__all__ = ["WaypointGoals", "Waypoints"]
