"""What a solve reports (:class:`SolveStatus`): per priority level, the error, whether it is
met, the goals left unmet by name, iterations and time; and for the whole solve whether it
converged, stalled or ran out of budget."""
from __future__ import annotations

from dataclasses import dataclass, field

from .levels import LEVEL_NAMES, REPORTED, Level


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


class SolveStatus:
    """Outcome of :meth:`Solver.solve`: per-level status, totals, goals left unmet by name.

    ``levels`` (one :class:`LevelStatus` per priority level) is filled when first read: a
    solve hands over one callable per solve group (:meth:`defer`), which adds that group's
    part to the levels. A drag that reads only the totals then pays nothing for them. Until
    then the status holds the groups' last evaluations: read ``levels`` before keeping many
    statuses (the bake does, frame by frame)."""

    __slots__ = ("_levels", "_pending", "_unreached", "iterations", "ms", "converged",
                 "stalled", "out_of_budget", "groups", "stuck", "simplified", "predicted",
                 "carried", "trace")

    def __init__(self, levels: list | None = None, iterations: int = 0, ms: float = 0.0,
                 converged: bool = True, stalled: bool = False, out_of_budget: bool = False,
                 groups: int = 0, stuck: list | None = None, simplified: int = 0,
                 predicted: int = 0, carried: int = 0):
        self._levels = levels
        self._pending: list = []
        self._unreached: dict = {}  # filled by deferred work too (see unreached)
        self.iterations, self.ms = iterations, ms
        self.converged, self.stalled, self.out_of_budget = converged, stalled, out_of_budget
        self.groups = groups
        self.stuck = [] if stuck is None else stuck
        self.simplified = simplified  # simplified Newton steps among iterations and corrections
        self.predicted = predicted  # groups whose first step added the last solve's bend
        self.carried = carried  # groups whose first step reused an earlier solve's factorization
        self.trace: list | None = None  # Solver.solve(trace=True): TraceRows (.trace)

    def defer(self, fill):
        """Add ``fill(levels)`` to the work done when :attr:`levels` is first read."""
        self._pending.append(fill)

    @property
    def levels(self) -> list:
        if self._levels is None:
            self._levels = [LevelStatus(n) for n in LEVEL_NAMES]
        if self._pending:
            pending, self._pending = self._pending, []
            for fill in pending:
                fill(self._levels)
        return self._levels

    @property
    def unreached(self) -> dict:
        """With sublinkages (:mod:`.sublinkages`): which sublinkage could not reach what,
        ``{sublinkage name (None: the top): [GoalId, ...]}``, for the goals of the levels
        that must be met (as :attr:`unmet`) left unmet by a group that did not converge. A
        driven sublinkage that cannot follow what its parent decided is listed with the goals
        it was solved to least squares on. Empty without sublinkages or when all is met."""
        self.levels  # noqa: B018  (runs the deferred work, which fills it)
        return self._unreached

    def add_unreached(self, home: str | None, goal) -> None:
        """Record that sublinkage ``home``'s goal ``goal`` was not reached."""
        self._unreached.setdefault(home, []).append(goal)

    @property
    def unmet(self) -> list:
        """The unmet goals (:class:`~.levels.GoalId` s) of the levels that must be met
        (:data:`~.levels.REPORTED`: not the potential, which is minimised, nor postures)."""
        levels = self.levels
        return [n for k in REPORTED for n in levels[k].unmet]

    def level(self, name: str | Level) -> LevelStatus:
        """The status of one level, by :class:`~.levels.Level` or by its name."""
        return self.levels[name if isinstance(name, Level) else LEVEL_NAMES.index(name)]

    def __repr__(self):
        return (f"SolveStatus(converged={self.converged}, iterations={self.iterations}, "
                f"ms={self.ms:.3f}, stalled={self.stalled}, out_of_budget={self.out_of_budget}, "
                f"unmet={self.unmet})")
