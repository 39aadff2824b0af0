"""A study's results: one table (a row per sample, :mod:`.quantities`' columns plus the
sensitivity columns of :mod:`.derived`), what is derived from it, and how the run went; as
CSV and JSON, written atomically (:func:`vart_addon.formats.atomic.write_atomic`).

- ``<name>.csv``: a header ``name [unit]`` per column, one line per sample (numbers as Python
  writes them: the same bits read back; ``nan`` for a failed sample's numbers).
- ``<name>.json``: ``{"format": "vart-study-results", "version": 1, "study", "columns":
  [{"name", "unit"}], "rows", "derived": {"limits", "stability", "sensitivity"}, "run":
  {"samples", "chunks", "workers", "where", "seconds", "samples_per_s", "retried", "failed"}}``
  (NaN written as null); with the study's ``trace``, also ``"trace": {sample: [rows]}``, each
  sample's solver iterations (:class:`vart_addon.solver.trace.TraceRow` as a dict).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field

from ..formats.atomic import write_atomic
from . import derived
from .quantities import ERROR, SAMPLE, STATUS, Column, index_of


@dataclass
class Results:
    """A finished study: ``columns``, ``rows`` (sample order), ``derived`` and ``run``
    (``retried``/``failed``: chunks run again or left out, by first sample, with the reason
    and ``by``, which layer re-ran it: ``"vart"`` or ``"dask"``, see :mod:`.runner`)."""

    study_doc: dict
    columns: list
    rows: list
    derived: dict
    run: dict = field(default_factory=dict)
    traces: dict = field(default_factory=dict)  # {sample: [TraceRow dicts]} (study "trace")

    def column(self, name: str) -> list:
        i = index_of(self.columns)[name]
        return [r[i] for r in self.rows]

    def failed(self) -> int:
        """How many samples failed (their solve raised: NaN in every number)."""
        return sum(1 for s in self.column(STATUS) if s == ERROR)


def assemble(study, study_doc, columns: list[Column], rows: list, run: dict) -> Results:
    """The results of ``rows`` (any order; sorted by sample here) with the derived parts."""
    at = index_of(columns)
    rows = sorted(rows, key=lambda r: r[at[SAMPLE]])
    new_cols, extra, sens = derived.sensitivity(study, columns, rows)
    if new_cols:  # before the status
        k = at[STATUS]
        columns = columns[:k] + new_cols + columns[k:]
        rows = [r[:k] + e + r[k:] for r, e in zip(rows, extra)]
    d = {"limits": derived.limits(study, columns, rows),
         "stability": derived.stability(study, columns, rows), "sensitivity": sens}
    return Results(study_doc, columns, rows, d, run)


def _clean(x):
    """``x`` with every non-finite float (a failed sample's numbers) as None (JSON null)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def to_json(res: Results) -> str:
    doc = {"format": "vart-study-results", "version": 1, "study": res.study_doc,
           "columns": [{"name": c.name, "unit": c.unit} for c in res.columns],
           "rows": res.rows, "derived": res.derived, "run": res.run}
    if res.traces:
        doc["trace"] = {str(k): v for k, v in res.traces.items()}
    return json.dumps(_clean(doc), indent=1, allow_nan=False) + "\n"


def to_csv(res: Results) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([f"{c.name} [{c.unit}]" if c.unit else c.name for c in res.columns])
    for r in res.rows:
        w.writerow([repr(x) if isinstance(x, float) else x for x in r])
    return out.getvalue()


def write(res: Results, folder, name: str = "study") -> tuple[str, str]:
    """Write ``<name>.csv`` and ``<name>.json`` into ``folder`` (made if missing); returns
    their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = (os.path.join(folder, f"{name}.csv"), os.path.join(folder, f"{name}.json"))
    write_atomic(paths[0], to_csv(res).encode("utf-8"), "study table")
    write_atomic(paths[1], to_json(res).encode("utf-8"), "study results")
    return paths
