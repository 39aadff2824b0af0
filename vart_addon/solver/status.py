"""What a solve reports (:class:`SolveStatus`): per priority level, the error, whether it is
met, the goals left unmet by name, iterations and time; and for the whole solve whether it
converged, stalled or ran out of budget."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import goals as G


@dataclass
class LevelStatus:
    """Result of one priority level: error (norm of its rows; energy in J for potential)."""

    name: str
    error: float = 0.0
    max_goal_error: float = 0.0
    satisfied: bool = True
    unmet: list = field(default_factory=list)
    iterations: int = 0
    ms: float = 0.0
    active: bool = False


@dataclass
class SolveStatus:
    """Outcome of :meth:`Solver.solve`: per-level status, totals, goals left unmet by name."""

    levels: list
    iterations: int = 0
    ms: float = 0.0
    converged: bool = True
    stalled: bool = False
    out_of_budget: bool = False
    groups: int = 0
    stuck: list = field(default_factory=list)
    simplified: int = 0  # simplified Newton steps among the iterations and corrections
    predicted: int = 0  # groups whose first step added the last solve's bend

    @property
    def unmet(self) -> list:
        return [n for lv in self.levels[:G.POSTURE] if lv.name != "potential" for n in lv.unmet]

    def level(self, name: str) -> LevelStatus:
        return self.levels[G.LEVEL_NAMES.index(name)]
