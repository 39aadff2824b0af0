"""Trajectory texts: CSV and Klampt linear paths (the writers ``format_*`` and readers
``parse_*``; ROS JSON is :mod:`.ros_json`; files and the table of formats are :mod:`.files`).

Plain Python + numpy. Units: seconds, radians (angular joints), metres (linear joints).

- **CSV** (``.csv``): header ``time_s,knee [rad],slide [m]``, then one row per sample. Values are
  written with ``repr`` (shortest exact form), so they parse back bit for bit. Derivatives,
  when the trajectory has them, are more columns of the same names in ``[rad/s]``/``[m/s]``
  and ``[rad/s^2]``/``[m/s^2]``; a floating base is ``base:<link>/translation.x [m]`` ...
  ``base:<link>/rotation.w [1]`` (a unit quaternion, ROS ``Transform`` fields), then its
  twists ``base:<link>/linear.x [m/s]`` ... ``angular.z [rad/s]`` (and ``[m/s^2]``,
  ``[rad/s^2]``) when known.
- **JSON** (``.json``): ROS trajectory messages, in :mod:`.ros_json`.
- **Klampt linear path** (``.path``): what ``klampt.model.trajectory.Trajectory.save``/``load``
  and the C++ ``LinearPath::Save``/``Load`` use: one milestone per line, ``time<TAB>n v1 ... vn``
  (whitespace separated, the count n then n values; no header, no names). Written with full
  precision (Klampt's own Python writer uses ``%f`` for the time). Joint names and kinds come
  from the caller; they default to ``q0, q1, ...`` and angular.

Readers tolerate a UTF-8 BOM, CRLF and blank lines, and raise :class:`TrajectoryFormatError`
(a ValueError) naming the file and line: ``motion.csv: line 7: 'abc' is not a number``.
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Optional, Sequence

import numpy as np

from ...solver.text import show
from .base_motion import BaseMotion
from .model import UNITS, Trajectory

__all__ = ["TrajectoryFormatError", "format_csv", "parse_csv", "format_path", "parse_path"]

_KIND_OF_UNIT = {u: k for k, u in UNITS.items()}
_HEADER_RE = re.compile(r"^(.*?)\s*\[([^\[\]]*)\]$")


class TrajectoryFormatError(ValueError):
    """A trajectory file that cannot be parsed; the message names the file and line (or point)."""


def file_error(source: str, where: str, msg: str) -> TrajectoryFormatError:
    return TrajectoryFormatError(": ".join(x for x in (source, where, msg) if x))


def _number(tok: str, source: str, where: str) -> float:
    try:
        if "_" in tok:
            raise ValueError
        v = float(tok)
    except ValueError:
        raise file_error(source, where, f"{tok.strip()!r} is not a number") from None
    if not math.isfinite(v):
        raise file_error(source, where, f"{tok.strip()!r} is not a finite number")
    return v


def _lines(text: str):
    """(line number, line) of the non-blank lines; BOM, CRLF and CR tolerated."""
    text = text[1:] if text.startswith("\ufeff") else text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip()]


def _check_increasing(t: float, prev: Optional[float], source: str, where: str) -> None:
    if prev is not None and not t > prev:
        raise file_error(source, where, f"time {show(t)} s does not come after {show(prev)} s")


def check_exportable(traj: Trajectory) -> None:
    if not isinstance(traj, Trajectory):
        raise TypeError(f"expected a Trajectory, got {type(traj).__name__}")
    if traj.n_joints == 0:
        raise ValueError("nothing to export: the trajectory has no joints")
    if traj.n_times == 0:
        raise ValueError("nothing to export: the trajectory is empty (no samples)")


def _r(x) -> str:
    return repr(float(x))


# ---------------------------------------------------------------- CSV

#: Column units of a joint's derivatives, by the position unit.
_DERIVATIVE_UNITS = {"rad": ("rad/s", "rad/s^2"), "m": ("m/s", "m/s^2")}
_QUANTITY_OF_UNIT = {"rad": ("positions", "angular"), "m": ("positions", "linear"),
                     "rad/s": ("velocities", "angular"), "m/s": ("velocities", "linear"),
                     "rad/s^2": ("accelerations", "angular"),
                     "m/s^2": ("accelerations", "linear")}
#: Base columns: ``base:<link>/<field> [unit]``, the fields of ROS Transform and Twist.
BASE_PREFIX = "base:"
_POSE_COLUMNS = tuple(f"translation.{a} [m]" for a in "xyz") + tuple(
    f"rotation.{a} [1]" for a in "xyzw")
_TWIST_COLUMNS = {q: tuple(f"linear.{a} [{lu}]" for a in "xyz")
                  + tuple(f"angular.{a} [{au}]" for a in "xyz")
                  for q, lu, au in (("velocities", "m/s", "rad/s"),
                                    ("accelerations", "m/s^2", "rad/s^2"))}


def csv_header(traj: Trajectory) -> list[str]:
    """The CSV columns of ``traj``: ``time_s``, the joints' positions, their velocities and
    accelerations when ``traj`` has them, then the base's pose (and twists)."""
    cols = ["time_s"] + [f"{n} [{u}]" for n, u in zip(traj.joint_names, traj.units)]
    for q, k in (("velocities", 0), ("accelerations", 1)):
        if getattr(traj, q) is not None:
            cols += [f"{n} [{_DERIVATIVE_UNITS[u][k]}]"
                     for n, u in zip(traj.joint_names, traj.units)]
    b = traj.base
    if b is not None:
        pre = f"{BASE_PREFIX}{b.link}/"
        cols += [pre + c for c in _POSE_COLUMNS]
        for q in ("velocities", "accelerations"):
            if getattr(b, q) is not None:
                cols += [pre + c for c in _TWIST_COLUMNS[q]]
    return cols


def _csv_rows(traj: Trajectory) -> np.ndarray:
    parts = [traj.times[:, None], traj.positions]
    parts += [a for a in (traj.velocities, traj.accelerations) if a is not None]
    b = traj.base
    if b is not None:
        parts += [b.poses] + [a for a in (b.velocities, b.accelerations) if a is not None]
    return np.concatenate(parts, axis=1)


def format_csv(traj: Trajectory) -> str:
    """The CSV text: ``time_s`` then ``name [rad]`` / ``name [m]`` columns, one row a sample;
    ``name [rad/s]``, ``name [rad/s^2]``... when the trajectory has derivatives; and
    ``base:<link>/translation.x [m]`` ... ``rotation.w [1]`` (and ``linear.x [m/s]``,
    ``angular.x [rad/s]``...) when it has a base."""
    check_exportable(traj)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(csv_header(traj))
    for row in _csv_rows(traj):
        w.writerow([_r(v) for v in row])
    return out.getvalue()


def _column_roles(cols: list, source: str, where: str):
    """Per column after ``time_s``: ("joint", quantity, name, kind) or ("base", link, col)."""
    roles: list[tuple] = []
    for c in cols:
        if c.startswith(BASE_PREFIX) and "/" in c:
            link, rest = c[len(BASE_PREFIX):].split("/", 1)
            roles.append(("base", link, rest))
            continue
        m = _HEADER_RE.match(c)
        if not m or not m.group(1):
            raise file_error(source, where, f"column {c!r} must be '<joint> [rad]' or "
                             "'<joint> [m]'")
        if m.group(2) not in _QUANTITY_OF_UNIT:
            raise file_error(source, where, f"column {c!r}: unit [{m.group(2)}] must be "
                             "[rad] or [m] (or [rad/s], [m/s], [rad/s^2], [m/s^2])")
        roles.append(("joint",) + _QUANTITY_OF_UNIT[m.group(2)] + (m.group(1),))
    return roles


def _fields(line: str, source: str, where: str, cols=()) -> list:
    """The fields of one CSV line; a line the csv module refuses (a field longer than its
    limit, 131,072 characters) is a TrajectoryFormatError naming the file, line and column
    (``cols``: the header's, else its number), never ``_csv.Error`` (issue 35)."""
    try:
        return next(csv.reader([line]))
    except csv.Error as e:
        limit = csv.field_size_limit()
        long = [k for k, f in enumerate(line.split(",")) if len(f) > limit]
        if not long:
            raise file_error(source, where, f"not CSV: {e}") from None
        k = long[0]
        col = f"column {cols[k]!r}" if k < len(cols) else f"field {k + 1}"
        raise file_error(source, f"{where}, {col}", f"longer than {limit:,} characters: not "
                         "a trajectory CSV") from None


def parse_csv(text: str, source: str = "") -> Trajectory:
    """Parse :func:`format_csv` output (or a spreadsheet's CSV export of the same columns)."""
    rows = _lines(text)
    if not rows:
        raise file_error(source, "", "empty file (expected a header 'time_s,<joint> [rad|m],...')")
    lineno, head = rows[0]
    cols = [c.strip() for c in _fields(head, source, f"line {lineno}")]
    if cols[0] != "time_s":
        raise file_error(source, f"line {lineno}", f"first column is {cols[0]!r}, expected 'time_s'")
    where = f"line {lineno}"
    roles = _column_roles(cols[1:], source, where)
    names = [r[3] for r in roles if r[0] == "joint" and r[1] == "positions"]
    kinds = [r[2] for r in roles if r[0] == "joint" and r[1] == "positions"]
    if not names:
        raise file_error(source, where, "no joint columns after 'time_s'")
    if len(set(names)) != len(names):
        raise file_error(source, where, "duplicate joint columns")
    times, values, prev = [], [], None
    for lineno, line in rows[1:]:
        where = f"line {lineno}"
        vals = _fields(line, source, where, cols)
        if len(vals) != len(cols):
            more = len(cols) - 1 - len(names)
            raise file_error(source, where, f"{len(vals)} values, expected {len(cols)} "
                             f"(time_s and {len(names)} joints"
                             + (f" and {more} more columns)" if more else ")"))
        nums = [_number(v, source, f"{where}, column {c!r}") for v, c in zip(vals, cols)]
        _check_increasing(nums[0], prev, source, where)
        prev = nums[0]
        times.append(nums[0])
        values.append(nums[1:])
    if not times:
        raise file_error(source, "", "no samples after the header")
    V = np.array(values, float).reshape(len(times), len(roles))
    pick = {q: [i for i, r in enumerate(roles) if r[0] == "joint" and r[1] == q]
            for q in ("positions", "velocities", "accelerations")}
    extra = {}
    for q in ("velocities", "accelerations"):
        idx = pick[q]
        if idx:
            got = [roles[i][3] for i in idx]
            if got != names:
                raise file_error(source, f"line {rows[0][0]}", f"{q} columns {got} must "
                                 f"name every joint, in the order of the positions {names}")
            extra[q] = V[:, idx]
    base = _csv_base(roles, V, source, f"line {rows[0][0]}")
    return _build(source, names, times, V[:, pick["positions"]], kinds, base=base, **extra)


def _csv_base(roles, V, source, where) -> Optional[BaseMotion]:
    idx = [i for i, r in enumerate(roles) if r[0] == "base"]
    if not idx:
        return None
    links = {roles[i][1] for i in idx}
    if len(links) != 1:
        raise file_error(source, where, f"base columns name several links: {sorted(links)}")
    link = links.pop()
    by_col = {roles[i][2]: i for i in idx}
    unknown = set(by_col) - set(_POSE_COLUMNS) - set(_TWIST_COLUMNS["velocities"]) \
        - set(_TWIST_COLUMNS["accelerations"])
    if unknown:
        raise file_error(source, where, f"unknown base columns: {sorted(unknown)}")

    def block(want):
        if not any(c in by_col for c in want):
            return None
        missing = [c for c in want if c not in by_col]
        if missing:
            raise file_error(source, where, f"base {link!r} lacks columns {missing}")
        return V[:, [by_col[c] for c in want]]

    poses = block(_POSE_COLUMNS)
    if poses is None:
        raise file_error(source, where, f"base {link!r} has no pose columns "
                         f"({', '.join(_POSE_COLUMNS)})")
    try:
        return BaseMotion(link, poses, block(_TWIST_COLUMNS["velocities"]),
                          block(_TWIST_COLUMNS["accelerations"]))
    except ValueError as e:
        raise file_error(source, where, str(e)) from None


def _build(source, names, times, positions, kinds, **extra) -> Trajectory:
    try:
        return Trajectory(names, times, positions, kinds=kinds, **extra)
    except ValueError as e:
        raise file_error(source, "", str(e)) from None


# ---------------------------------------------------------------- Klampt linear path


def format_path(traj: Trajectory) -> str:
    """Klampt linear path text: ``time<TAB>n v1 ... vn`` per line, full precision."""
    check_exportable(traj)
    m = traj.n_joints
    return "".join(f"{_r(t)}\t{m} " + " ".join(_r(v) for v in row) + "\n"
                   for t, row in zip(traj.times, traj.positions))


def parse_path(text: str, source: str = "", joint_names: Optional[Sequence[str]] = None,
               kinds: Optional[Sequence[str]] = None) -> Trajectory:
    """Parse a Klampt linear path. ``joint_names`` / ``kinds`` name the milestone entries in
    order (the file has none); defaults ``q0, q1, ...`` and angular."""
    times, positions, prev, width = [], [], None, None
    for lineno, line in _lines(text):
        where = f"line {lineno}"
        tok = line.split()
        if len(tok) < 2 or not re.fullmatch(r"[0-9]+", tok[1]):
            raise file_error(source, where, "expected 'time count value...' (a milestone)")
        n = int(tok[1])
        if len(tok) - 2 != n:
            raise file_error(source, where, f"count says {n} values but {len(tok) - 2} follow")
        if width is not None and n != width:
            raise file_error(source, where, f"{n} values, but earlier milestones have {width}")
        width = n
        t = _number(tok[0], source, where)
        _check_increasing(t, prev, source, where)
        prev = t
        times.append(t)
        positions.append([_number(v, source, where) for v in tok[2:]])
    if width is None:  # set with the first milestone
        raise file_error(source, "", "no milestones")
    if width == 0:
        raise file_error(source, "", "milestones have no values")
    if joint_names is None:
        joint_names = [f"q{j}" for j in range(width)]
    elif len(joint_names) != width:
        raise file_error(source, "", f"milestones have {width} values but {len(joint_names)} joint "
                   "names were given")
    return _build(source, list(joint_names), times, positions, kinds)
