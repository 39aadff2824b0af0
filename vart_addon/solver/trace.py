"""A solve's per-iteration trace (``Solver.solve(trace=True)``, then ``status.trace``): what
each accepted iteration reached, to compare methods and see how a solve converged.

One :class:`TraceRow` per solve group at its start (``iteration`` 0, the warm start: no step)
and after each accepted iteration. The iteration that ends a solve by finding no better point
(stalled: the potential's minimum or a compromise reached) or nothing left to do takes no
step and has no row: ``SolveStatus.iterations`` counts it. Off by default: a solve without ``trace`` builds none of it
(one test per iteration).
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

from .levels import LEVEL_NAMES


@dataclass(frozen=True)
class TraceRow:
    """One iteration of one solve group.

    - ``group``: the solve group (0-based, in solve order); ``iteration``: 1, 2, ... (0: the
      group's starting point);
    - ``errors``: per level, highest first (:data:`~.levels.LEVEL_NAMES`), the level's
      measure after the iteration: the norm of its error rows (m and rad mixed, as the
      solver's ``tol`` is), the potential energy in J for ``potential``; 0.0 for a level
      without goals in the group;
    - ``step``: Euclidean norm of the increment the line search took over the group's joint
      values (m and rad mixed), shortening included (``alpha``: that shortening, 1: the full
      step); a drag's first step may also add a predicted bend and limits clamp what passes
      them (:mod:`.stepper`), which this norm does not count;
    - ``damping``: per level, the Levenberg-Marquardt damping the solver holds for it
      (added to its Gram matrix's diagonal, units of the Jacobian squared; 0: none). The
      singularity damping of :mod:`.pdls` (at most ``Settings.lambda_max`` squared) comes on
      top where a level is near singular and is not listed;
    - ``ms``: wall time since the solve began (milliseconds).
    """

    group: int
    iteration: int
    errors: tuple[float, ...]
    step: float
    alpha: float
    damping: tuple[float, ...]
    ms: float

    def as_dict(self) -> dict:
        """Plain data (JSON-ready): errors and damping by level name."""
        d = asdict(self)
        d["errors"] = dict(zip(LEVEL_NAMES, self.errors))
        d["damping"] = dict(zip(LEVEL_NAMES, self.damping))
        return d


def row(group: int, iteration: int, ev, step, alpha: float, damping, t0: float) -> TraceRow:
    """The row of evaluation ``ev`` reached by ``step`` (None: the start) after ``alpha``
    shortening, with ``damping`` (per level) held; ``t0``: the solve's ``perf_counter``."""
    norm = 0.0 if step is None else math.sqrt(float(step.dot(step)))
    return TraceRow(group, iteration, tuple(float(m) for m in ev.measure), norm, float(alpha),
                    tuple(float(m) for m in damping), (time.perf_counter() - t0) * 1e3)
