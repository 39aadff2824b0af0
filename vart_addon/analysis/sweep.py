"""One chunk of a study: its samples solved one after the other, each warm-started from the
previous one's solution (the first from the model's configuration), each row recorded.

A swept joint is held at each sample's value at the lock level (its lock value is set; its
other values, if it has several, stay locked where the model has them), so gravity and springs
comply around it and only invariants and closure limits rank above it. The solve is
quasistatic: the model's gravity and springs (potential level), limits and goals, with the
model's settings and no time budget.

:func:`solve_chunk` takes and returns plain data (JSON text, lists), so a chunk can be sent
to another process or a Dask worker as it is; it needs only numpy and vart's Blender-free
packages.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..solver import Solver, VartError
from ..solver import model_file as MF
from .quantities import Recorder
from .study import Study, parse


def prepare(model_text: str, study: Study):
    """(linkage, solver, recorder) for a chunk: the model read, the swept joints locked."""
    lk, settings = MF.loads(model_text)
    study.check(lk)
    for v in study.variables:
        j = lk.joint(v.joint)
        if j.lock_q is None:
            lk.lock_joint(v.joint)
        j.target_q = None
    lk.touch_goals()
    settings = dataclasses.replace(settings, max_ms=None)
    return lk, Solver(lk, settings), Recorder(lk, study)


def apply_values(lk, study: Study, values) -> None:
    """Hold each swept joint's value at ``values`` (one per variable)."""
    for v, x in zip(study.variables, values):
        j = lk.joint(v.joint)
        lock = j.lock_q.copy()
        lock[v.dof] = float(x)
        lk.lock_joint(v.joint, lock)


def solve_chunk(model_text: str, study_doc: dict, start: int, values: list,
                on_sample=None) -> dict:
    """Solve samples ``start``, ``start + 1``, ... at ``values`` (a list of per-variable
    lists) in order, warm-started along them. Returns ``{"start", "rows", "seconds",
    "traces"}``: one row per sample (:class:`.quantities.Recorder`'s columns); a sample whose
    solve raised has NaN in every number, status ``error`` and the error as its ``unmet``.
    ``traces``: with the study's ``trace``, ``{sample: [TraceRow.as_dict(), ...]}``, else
    empty. ``on_sample(sample, linkage)`` (optional, in this process: Blender keys the poses
    with it) is called after each sample solved, the linkage at its solution."""
    t0 = time.perf_counter()
    study = parse(study_doc)
    lk, solver, rec = prepare(model_text, study)
    rows, traces = [], {}
    for k, vals in enumerate(values):
        try:
            apply_values(lk, study, vals)
            status = solver.solve(trace=study.trace)
            rows.append(rec.row(start + k, vals, status))
            if status.trace is not None:
                traces[start + k] = [r.as_dict() for r in status.trace]
            if on_sample is not None:
                on_sample(start + k, lk)
        except (VartError, FloatingPointError, np.linalg.LinAlgError) as e:
            rows.append(rec.error_row(start + k, vals, str(e)))
    return {"start": start, "rows": rows, "seconds": time.perf_counter() - t0,
            "traces": traces}
