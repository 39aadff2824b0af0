"""What a study's table tells, derived from its rows (:class:`.results.Results` keeps it):

- ``limits``: for every value with a limit (a ``limit:`` column), the first sample, in the
  study's order (a grid: its sweep order, the first variable slowest), where it is at its
  limit, with the swept values there; and whether it was at it from the first sample;
- ``stability``: the first stable sample and the first sample after it that is not stable
  (where the robot stops being stable), with their swept values;
- ``sensitivity``: d(deflection)/d(swept value) of every compliant joint. On a grid: finite
  differences along each variable's axis (central inside, one-sided at the ends:
  ``numpy.gradient``), per sample, added to the table as ``d(deflection:<joint>)/d(<var>)``
  columns, and their range. For Monte Carlo samples: the least-squares slope of the
  deflection on all swept values together (the linear model's coefficients).
"""
from __future__ import annotations

import numpy as np

from .quantities import SAMPLE, Column, index_of, value_columns


def _values(study, columns, row) -> dict:
    at = index_of(columns)
    return {v.label: row[at[name]] for v, name in zip(study.variables, value_columns(study))}


def _sample(columns, row) -> int:
    return int(row[index_of(columns)[SAMPLE]])


def limits(study, columns, rows) -> list[dict]:
    """The first sample where each limited value is at a limit (see the module doc)."""
    out = []
    for c, col in enumerate(columns):
        if not col.name.startswith("limit:"):
            continue
        hit = next((r for r in rows if r[c] in (-1, 1)), None)
        entry = {"value": col.name[len("limit:"):], "first_sample": None, "side": None,
                 "at_start": bool(rows) and rows[0][c] in (-1, 1)}
        if hit is not None:
            entry.update(first_sample=_sample(columns, hit),
                         side="lower" if hit[c] == -1 else "upper",
                         values=_values(study, columns, hit))
        out.append(entry)
    return out


def stability(study, columns, rows) -> dict | None:
    """The first stable sample and the first unstable one after it (None without contacts)."""
    names = [c.name for c in columns]
    if "stable" not in names:
        return None
    s = names.index("stable")
    first = next((i for i, r in enumerate(rows) if r[s] == 1), None)
    out: dict = {"first_stable": None, "lost_at": None}
    if first is None:
        return out
    out["first_stable"] = {"sample": _sample(columns, rows[first]),
                           "values": _values(study, columns, rows[first])}
    lost = next((r for r in rows[first:] if r[s] != 1), None)
    if lost is not None:
        out["lost_at"] = {"sample": _sample(columns, lost),
                          "values": _values(study, columns, lost)}
    return out


def sensitivity(study, columns, rows) -> tuple[list[Column], list[list], list[dict]]:
    """(new columns, their values per row, summary) of d(deflection)/d(swept value)."""
    defl = [(c, col) for c, col in enumerate(columns) if col.name.startswith("deflection:")]
    if not defl or not rows:
        return [], [[] for _ in rows], []
    at = index_of(columns)
    swept = [at[name] for name in value_columns(study)]
    X = np.array([[r[i] for i in swept] for r in rows], float)
    new_cols: list[Column] = []
    per_row: list[list] = [[] for _ in rows]
    summary: list[dict] = []
    for c, col in defl:
        y = np.array([r[c] for r in rows], float)
        if study.is_grid:
            shape = study.grid_shape
            full = np.full(int(np.prod(shape)), np.nan)  # samples of lost chunks: NaN
            samples = np.array([int(r[at[SAMPLE]]) for r in rows])
            full[samples] = y
            for i, v in enumerate(study.variables):
                axis = np.linspace(v.params["start"], v.params["stop"], shape[i])
                if shape[i] < 2:
                    continue
                with np.errstate(invalid="ignore"):
                    d = np.gradient(full.reshape(shape), axis, axis=i).reshape(-1)[samples]
                unit = f"{col.unit}/{_var_unit(columns, i)}"
                new_cols.append(Column(f"d({col.name})/d({v.label})", unit))
                for k, x in enumerate(d.tolist()):
                    per_row[k].append(x)
                fin = d[np.isfinite(d)]
                summary.append({"of": col.name, "by": v.label, "unit": unit,
                                "min": float(fin.min()) if fin.size else None,
                                "max": float(fin.max()) if fin.size else None})
        else:
            ok = np.isfinite(y) & np.isfinite(X).all(axis=1)
            A = np.column_stack([X[ok], np.ones(ok.sum())])
            coef = np.linalg.lstsq(A, y[ok], rcond=None)[0] if ok.sum() > A.shape[1] else \
                np.full(A.shape[1], np.nan)
            for i, v in enumerate(study.variables):
                summary.append({"of": col.name, "by": v.label,
                                "unit": f"{col.unit}/{_var_unit(columns, i)}",
                                "slope": float(coef[i])})
    return new_cols, per_row, summary


def _var_unit(columns, i) -> str:
    """The unit of the ``i``-th swept value's column."""
    return [c for c in columns if c.name.startswith("value:")][i].unit
