"""The outcome of a bake: what it did (:class:`BakeResult`) or why it could not run
(:class:`BakeError`).

Frames where a goal was unmet are in :attr:`BakeResult.unmet` (frame -> goal names), summarized
by :meth:`BakeResult.summary`, and per level by :meth:`BakeResult.level_status` (what the
operator stores in the scene's status).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..bridge import BridgeError
from ..solver import LevelStatus, SolveStatus
from ..solver.levels import LEVEL_NAMES, Level, level_of
from ..solver.text import frame_ranges, listed

__all__ = ["BakeError", "BakeResult", "frame_ranges"]
from .bake_record import describe


class BakeError(BridgeError):
    """A bake that cannot run (empty range, nothing animated, a failed solve...): nothing
    was keyed."""


# ---- the result -------------------------------------------------------------------------------
@dataclass
class BakeResult:
    """What :func:`.bake.bake` did. ``unmet``: frame -> names of goals not met there (invariant,
    limit, lock and target levels); ``stuck``: frame -> goals no DoF could move;
    ``statuses``: the SolveStatus of every frame; ``kept``: input curves left as they were
    (``"object: data_path[index]"``); ``input_error``: per input goal, its largest error
    over the frames; ``curves`` / ``keys``: F-curves and keys written; ``others``: the
    ranges of earlier bakes this one did not overlap, whose keys remain; ``last_key``: the
    last keyed frame of the animated inputs (None: not known), said in the summary when
    the range goes on past it; ``deviation``: per tool with waypoints, the largest distance
    of its origin from the line of a Linear segment (m), said in the summary."""

    frame_start: int
    frame_end: int
    inputs: list = field(default_factory=list)
    unmet: dict = field(default_factory=dict)
    stuck: dict = field(default_factory=dict)
    statuses: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    input_error: dict = field(default_factory=dict)
    links: int = 0
    joints: int = 0
    curves: int = 0
    keys: int = 0
    solve_ms: float = 0.0
    total_ms: float = 0.0
    others: list = field(default_factory=list)
    last_key: float | None = None
    deviation: dict = field(default_factory=dict)

    @property
    def frames(self) -> int:
        return self.frame_end - self.frame_start + 1

    @property
    def fps(self) -> float:
        """Frames baked per second, everything included."""
        return self.frames / (self.total_ms / 1e3) if self.total_ms > 0 else float("inf")

    def goals_unmet(self) -> dict:
        """Goal name -> frames where it was unmet (first seen first)."""
        out: dict = {}
        for f in sorted(self.unmet):
            for g in self.unmet[f]:
                out.setdefault(g, []).append(f)
        return out

    def goals_stuck(self) -> list:
        """The goals no joint could move on some frame (sorted by name)."""
        return sorted({n for names in self.stuck.values() for n in names})

    def summary(self, most: int = 3) -> str:
        head = (f"Baked frames {self.frame_start}-{self.frame_end} ({self.frames} frames, "
                f"{self.fps:.0f}/s): {self.links} links and {self.joints} joint values, "
                f"{self.keys} keys in {self.curves} F-curves")
        if self.others:
            head += f"; keys of earlier bakes remain on frames {describe(self.others)}"
        if self.last_key is not None and self.last_key < self.frame_end:
            after = max(int(self.last_key) + 1, self.frame_start)
            head += (f"; the animation's last key is on frame {self.last_key:g}, so frames "
                     f"{after}-{self.frame_end} hold its last pose (the range is the "
                     "scene's Start and End)")
        for tool, d in self.deviation.items():
            head += f"; tool {tool!r} within {d * 1e3:.3g} mm of its Linear moves' lines"
        stuck = self.goals_stuck()
        if stuck:
            head += f"; no joint can move {listed(stuck, most)}"
        goals = self.goals_unmet()
        if not goals:
            return head
        parts = [f"{g} (frames {frame_ranges(fs)})" for g, fs in list(goals.items())[:most]]
        more = len(goals) - most
        tail = f"; and {more} more goals (see the Vart status)" if more > 0 else ""
        return (f"{head}. Goals unmet on {len(self.unmet)} of {self.frames} frames: "
                + "; ".join(parts) + tail)

    def level_status(self) -> SolveStatus:
        """The whole bake as one SolveStatus: per level, whether it was active, its largest
        error over the frames, and its unmet goals as ``"goal (frames a-b, c)"``."""
        levels = [LevelStatus(n) for n in LEVEL_NAMES]
        out = SolveStatus(levels=levels, converged=True)
        per_goal: list[dict] = [{} for _ in levels]
        for k, st in enumerate(self.statuses):
            f = self.frame_start + k
            out.iterations += st.iterations
            out.ms += st.ms
            out.converged &= st.converged
            out.stalled |= st.stalled
            out.out_of_budget |= st.out_of_budget
            for i, lv in enumerate(st.levels):
                agg = levels[i]
                agg.active |= lv.active
                agg.error = max(agg.error, lv.error)
                agg.max_goal_error = max(agg.max_goal_error, lv.max_goal_error)
                agg.iterations = max(agg.iterations, lv.iterations)
                if i in (Level.POTENTIAL, Level.POSTURE):
                    agg.satisfied &= lv.satisfied
            for g in self.unmet.get(f, ()):
                i = level_of(g)
                per_goal[i].setdefault(g, []).append(f)
        for i, goals in enumerate(per_goal):
            levels[i].unmet = [f"{g} (frames {frame_ranges(fs)})" for g, fs in goals.items()]
            if i not in (Level.POTENTIAL, Level.POSTURE):
                levels[i].satisfied = not goals
        out.stuck = self.goals_stuck()
        return out
