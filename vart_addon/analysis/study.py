"""A study: which joint values to sweep and how to sample them, which joints are contacts,
how samples are split into chunks. Read from JSON (``"format": "vart-study", "version": 1``)
and checked against the model before any solve (:func:`parse`, :meth:`Study.check`).

The document::

    {"format": "vart-study", "version": 1,
     "variables": [{"joint": "step", "dof": 0, "grid": {"start": 0.0, "stop": 0.08, "count": 41}}],
     "samples": null, "seed": 0,
     "contacts": [{"joint": "heel_r", "when": "at_limit"}, {"joint": "toe_r", "when": "always"}],
     "friction": 0.8, "chunk": 8, "limit_tol": 1e-6, "trace": false}

- ``variables``: each a joint (``dof``: which of its values, default 0) and either a ``grid``
  (``start``, ``stop``, ``count`` >= 1: evenly spaced, both ends included) or a distribution:
  ``uniform`` (``low`` < ``high``), ``normal`` (``mean``, ``std`` > 0), ``truncnormal``
  (``mean``, ``std`` > 0, ``low`` < ``high``: a normal restricted to [low, high]). Values in
  metres or radians, the joint's units. All grids: every combination, the first variable
  slowest (a sweep). All distributions: ``samples`` independent draws with ``seed`` (Monte
  Carlo). A study does not mix the two.
- ``contacts``: joints whose child-side frame origin is a support point (a foot on the ground:
  a joint from the world to the foot), ``when`` ``"always"`` or ``"at_limit"`` (only while one
  of the joint's values is at a limit: a point-slider that touched down). Each is a point
  contact on the child link, its surface normal opposite gravity, with the Coulomb
  ``friction`` coefficient (default 0.8): a sample is stable when contact forces inside those
  cones hold the robot (:mod:`vart_addon.physics.statics`).
- ``chunk``: samples per task (each chunk is solved warm-started along its samples from the
  model's configuration, so the table does not depend on how many workers run it).
- ``limit_tol``: how close to a limit (m, rad) counts as at the limit.
- ``trace``: also keep each sample's solver trace (per iteration: errors per level, step
  norm, damping, time; :mod:`vart_addon.solver.trace`) in the results' JSON.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..solver import VartError
from ..solver.text import show

FORMAT = "vart-study"
VERSION = 1
DISTRIBUTIONS = {"uniform": ("low", "high"), "normal": ("mean", "std"),
                 "truncnormal": ("mean", "std", "low", "high")}
_TOP = {"format", "version", "variables", "samples", "seed", "contacts", "chunk", "limit_tol",
        "name", "trace", "friction"}
#: The contacts' friction coefficient when the study does not give one.
FRICTION = 0.8


class StudyError(VartError):
    """A study that cannot run: the message names the field at fault (before any solve)."""


@dataclass(frozen=True)
class Variable:
    """One swept value: ``joint``'s value number ``dof``, by ``kind`` (``grid`` or a
    distribution's name) with ``params`` (its fields, by name)."""

    joint: str
    dof: int
    kind: str
    params: dict

    @property
    def label(self) -> str:
        return self.joint if self.dof == 0 else f"{self.joint}[{self.dof}]"


@dataclass(frozen=True)
class Contact:
    joint: str
    when: str  # "always" | "at_limit"


@dataclass(frozen=True)
class Study:
    """A parsed study (see the module doc); :meth:`values` gives the samples."""

    variables: tuple[Variable, ...]
    contacts: tuple[Contact, ...]
    samples: int | None
    seed: int
    chunk: int
    limit_tol: float
    name: str = "study"
    trace: bool = False
    friction: float = FRICTION

    @property
    def is_grid(self) -> bool:
        return self.variables[0].kind == "grid"

    @property
    def grid_shape(self) -> tuple[int, ...]:
        return tuple(int(v.params["count"]) for v in self.variables) if self.is_grid else ()

    def values(self) -> np.ndarray:
        """(samples, variables) swept values, in the order they are solved."""
        if self.is_grid:
            axes = [np.linspace(v.params["start"], v.params["stop"], int(v.params["count"]))
                    for v in self.variables]
            mesh = np.meshgrid(*axes, indexing="ij")
            return np.stack([m.reshape(-1) for m in mesh], axis=1)
        rng = np.random.default_rng(self.seed)
        assert self.samples is not None
        return np.stack([_draw(rng, v, self.samples) for v in self.variables], axis=1)

    def check(self, linkage) -> None:
        """StudyError unless every variable and contact names a joint of ``linkage`` (and a
        DoF it has), and every grid lies within its joint's limits."""
        for i, v in enumerate(self.variables):
            j = _joint(linkage, v.joint, f"variables[{i}].joint")
            if not 0 <= v.dof < j.dof:
                raise StudyError(f"study: variables[{i}].dof: joint {v.joint!r} ({j.jtype.name}) "
                                 f"has values 0 to {j.dof - 1}, not {v.dof}")
            lo, hi = float(j.lower[v.dof]), float(j.upper[v.dof])
            if v.kind == "grid":
                ends = (v.params["start"], v.params["stop"])
                bad = [x for x in ends if x < lo or x > hi]
                if bad:
                    raise StudyError(f"study: variables[{i}].grid: {bad[0]:g} is outside joint "
                                     f"{v.joint!r}'s limits [{lo:g}, {hi:g}]")
        for i, c in enumerate(self.contacts):
            _joint(linkage, c.joint, f"contacts[{i}].joint")


def _joint(linkage, name, where):
    try:
        return linkage.joint(name)
    except VartError:
        raise StudyError(f"study: {where}: joint {name!r} is not in the model") from None


def _draw(rng, v: Variable, n: int) -> np.ndarray:
    p = v.params
    if v.kind == "uniform":
        return rng.uniform(p["low"], p["high"], n)
    if v.kind == "normal":
        return rng.normal(p["mean"], p["std"], n)
    out = np.empty(0)  # truncnormal: draws outside [low, high] are drawn again
    while out.size < n:
        x = rng.normal(p["mean"], p["std"], 2 * (n - out.size) + 16)
        out = np.concatenate([out, x[(x >= p["low"]) & (x <= p["high"])]])
    return out[:n]


# ---- parsing ------------------------------------------------------------------------------
def _fail(where, what, value):
    raise StudyError(f"study: {where}: expected {what}, got {show(value)}")


def _number(d, key, where):
    if key not in d:
        raise StudyError(f"study: {where}: missing field {key!r}")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        _fail(f"{where}.{key}", "a finite number", v)
    return float(v)


def _whole(d, key, where, default, low=1):
    v = d.get(key, default)
    if v is None and default is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        _fail(f"{where}{key}", f"a whole number >= {low}", v)
    return v


def _variable(d, i) -> Variable:
    where = f"variables[{i}]"
    if not isinstance(d, dict):
        _fail(where, "an object", d)
    kinds = [k for k in ("grid", *DISTRIBUTIONS) if k in d]
    extra = set(d) - {"joint", "dof", "grid", *DISTRIBUTIONS}
    if extra:
        raise StudyError(f"study: {where}: unknown field {sorted(extra)[0]!r}")
    if not isinstance(d.get("joint"), str) or not d.get("joint"):
        _fail(f"{where}.joint", "a joint name", d.get("joint"))
    if len(kinds) != 1:
        raise StudyError(f"study: {where}: give one of grid, {', '.join(DISTRIBUTIONS)} "
                         f"(got {len(kinds)})")
    kind = kinds[0]
    spec, w = d[kind], f"{where}.{kind}"
    if not isinstance(spec, dict):
        _fail(w, "an object", spec)
    names = ("start", "stop", "count") if kind == "grid" else DISTRIBUTIONS[kind]
    extra = set(spec) - set(names)
    if extra:
        raise StudyError(f"study: {w}: unknown field {sorted(extra)[0]!r}")
    if kind == "grid":
        p = {"start": _number(spec, "start", w), "stop": _number(spec, "stop", w),
             "count": _whole(spec, "count", w + ".", 0)}
        if p["count"] == 1 and p["start"] != p["stop"]:
            raise StudyError(f"study: {w}: one sample needs start == stop")
        if p["count"] > 1 and p["start"] == p["stop"]:
            raise StudyError(f"study: {w}: the range is empty (start == stop = {p['start']:g})")
    else:
        p = {k: _number(spec, k, w) for k in names}
        if "std" in p and p["std"] <= 0:
            _fail(f"{w}.std", "a number > 0", p["std"])
        if "low" in p and not p["low"] < p["high"]:
            raise StudyError(f"study: {w}: the range is empty (low {p['low']:g} >= high "
                             f"{p['high']:g})")
        if kind == "truncnormal" and not p["low"] <= p["mean"] <= p["high"] and min(
                abs(p["low"] - p["mean"]), abs(p["high"] - p["mean"])) / p["std"] > 6:
            raise StudyError(f"study: {w}: [low, high] lies more than 6 standard "
                             "deviations from the mean: almost no draw falls in it")
    return Variable(d["joint"], _whole(d, "dof", f"{where}.", 0, low=0), kind, p)


def parse(doc) -> Study:
    """A :class:`Study` from its JSON document; StudyError naming the field at fault."""
    if not isinstance(doc, dict):
        _fail("document", "an object", doc)
    if doc.get("format") != FORMAT:
        _fail("format", repr(FORMAT), doc.get("format"))
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise StudyError(f"study: version: {version} is newer than this vart reads "
                         f"(version {VERSION}); update vart")
    if version != VERSION:
        _fail("version", str(VERSION), version)
    extra = set(doc) - _TOP
    if extra:
        raise StudyError(f"study: unknown field {sorted(extra)[0]!r}")
    raw = doc.get("variables")
    if not isinstance(raw, list) or not raw:
        _fail("variables", "a non-empty list", raw)
    variables = tuple(_variable(d, i) for i, d in enumerate(raw))
    grids = {v.kind == "grid" for v in variables}
    if len(grids) > 1:
        raise StudyError("study: variables: all grids (a sweep) or all distributions (Monte "
                         "Carlo), not both")
    samples = _whole(doc, "samples", "", None)
    if not variables[0].kind == "grid" and samples is None:
        raise StudyError("study: samples: a Monte Carlo study needs the number of samples")
    if variables[0].kind == "grid" and samples is not None:
        raise StudyError("study: samples: a grid sweep has every grid point (leave it out)")
    contacts = []
    raw_c = doc.get("contacts", [])
    if not isinstance(raw_c, list):
        _fail("contacts", "a list", raw_c)
    for i, c in enumerate(raw_c):
        if not isinstance(c, dict) or not isinstance(c.get("joint"), str) or \
                set(c) - {"joint", "when"}:
            _fail(f"contacts[{i}]", 'an object {"joint": name, "when": ...}', c)
        when = c.get("when", "always")
        if when not in ("always", "at_limit"):
            _fail(f"contacts[{i}].when", '"always" or "at_limit"', when)
        contacts.append(Contact(c["joint"], when))
    tol = doc.get("limit_tol", 1e-6)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol < 1:
        _fail("limit_tol", "a number in [0, 1)", tol)
    seed = _whole(doc, "seed", "", 0, low=0)
    name = doc.get("name", "study")
    if not isinstance(name, str):
        _fail("name", "text", name)
    trace = doc.get("trace", False)
    if not isinstance(trace, bool):
        _fail("trace", "true or false", trace)
    mu = doc.get("friction", FRICTION)
    if isinstance(mu, bool) or not isinstance(mu, (int, float)) or not 0 <= mu < math.inf:
        _fail("friction", "a number >= 0", mu)
    return Study(variables, tuple(contacts), samples, seed, _whole(doc, "chunk", "", 8),
                 float(tol), name, trace, float(mu))
