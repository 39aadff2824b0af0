"""Trajectory texts: CSV, ROS ``trajectory_msgs/JointTrajectory`` JSON and Klampt linear paths
(the writers ``format_*`` and readers ``parse_*``; files and the table of formats are
:mod:`.files`).

Plain Python + numpy. Units: seconds, radians (angular joints), metres (linear joints).

- **CSV** (``.csv``): header ``time_s,knee [rad],slide [m]``, then one row per sample. Values are
  written with ``repr`` (shortest exact form), so they parse back bit for bit.
- **JSON** (``.json``): the field names of ROS 2 ``trajectory_msgs/msg/JointTrajectory``::

      {"header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""},
       "joint_names": ["knee", ...],
       "points": [{"positions": [0.1, ...], "time_from_start": {"sec": 0, "nanosec": 0}}, ...]}

  Positions are exact. ``time_from_start`` is a whole number of nanoseconds (``sec`` may be
  negative, ``0 <= nanosec < 1e9``), so times are rounded to the nearest ns; reading accepts
  ROS 1 ``secs``/``nsecs`` too. JSON carries no units: joints read back as angular unless the
  caller gives ``kinds``.
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
import json
import math
import re
from fractions import Fraction
from typing import Optional, Sequence

from ...solver.text import json_error, show
from .model import UNITS, Trajectory

__all__ = ["TrajectoryFormatError", "format_csv", "parse_csv", "format_json", "parse_json",
           "format_path", "parse_path"]

_NS = 1_000_000_000
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


def format_csv(traj: Trajectory) -> str:
    """The CSV text: ``time_s`` then ``name [rad]`` / ``name [m]`` columns, one row a sample."""
    check_exportable(traj)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["time_s"] + [f"{n} [{u}]" for n, u in zip(traj.joint_names, traj.units)])
    for t, row in zip(traj.times, traj.positions):
        w.writerow([_r(t)] + [_r(v) for v in row])
    return out.getvalue()


def parse_csv(text: str, source: str = "") -> Trajectory:
    """Parse :func:`format_csv` output (or a spreadsheet's CSV export of the same columns)."""
    rows = _lines(text)
    if not rows:
        raise file_error(source, "", "empty file (expected a header 'time_s,<joint> [rad|m],...')")
    lineno, head = rows[0]
    cols = [c.strip() for c in next(csv.reader([head]))]
    if cols[0] != "time_s":
        raise file_error(source, f"line {lineno}", f"first column is {cols[0]!r}, expected 'time_s'")
    names, kinds = [], []
    for c in cols[1:]:
        m = _HEADER_RE.match(c)
        if not m or not m.group(1):
            raise file_error(source, f"line {lineno}", f"column {c!r} must be '<joint> [rad]' or "
                       "'<joint> [m]'")
        if m.group(2) not in _KIND_OF_UNIT:
            raise file_error(source, f"line {lineno}", f"column {c!r}: unit [{m.group(2)}] must be "
                       "[rad] or [m]")
        names.append(m.group(1))
        kinds.append(_KIND_OF_UNIT[m.group(2)])
    if not names:
        raise file_error(source, f"line {lineno}", "no joint columns after 'time_s'")
    if len(set(names)) != len(names):
        raise file_error(source, f"line {lineno}", "duplicate joint columns")
    times, positions, prev = [], [], None
    for lineno, line in rows[1:]:
        vals = next(csv.reader([line]))
        where = f"line {lineno}"
        if len(vals) != len(cols):
            raise file_error(source, where, f"{len(vals)} values, expected {len(cols)} "
                       f"(time_s and {len(names)} joints)")
        nums = [_number(v, source, f"{where}, column {c!r}") for v, c in zip(vals, cols)]
        _check_increasing(nums[0], prev, source, where)
        prev = nums[0]
        times.append(nums[0])
        positions.append(nums[1:])
    if not times:
        raise file_error(source, "", "no samples after the header")
    return _build(source, names, times, positions, kinds)


def _build(source, names, times, positions, kinds) -> Trajectory:
    try:
        return Trajectory(names, times, positions, kinds=kinds)
    except ValueError as e:
        raise file_error(source, "", str(e)) from None


# ---------------------------------------------------------------- JSON (ROS JointTrajectory)


def _to_ns(t: float) -> int:
    return round(Fraction(float(t)) * _NS)


def format_json(traj: Trajectory) -> str:
    """The JSON text of a ROS 2 JointTrajectory message (one point per line). Raises
    ValueError if two times are less than 1 ns apart (they would collide when rounded)."""
    check_exportable(traj)
    ns = [_to_ns(t) for t in traj.times]
    for i in range(1, len(ns)):
        if ns[i] <= ns[i - 1]:
            raise ValueError(f"times {show(traj.times[i - 1])} and {show(traj.times[i])} s are less than "
                             "1 ns apart: time_from_start cannot tell them apart")
    dump = lambda x: json.dumps(x, ensure_ascii=False, allow_nan=False)  # noqa: E731
    points = []
    for n, row in zip(ns, traj.positions):
        sec, nanosec = divmod(n, _NS)
        points.append("    " + dump({"positions": [float(v) for v in row],
                                     "time_from_start": {"sec": sec, "nanosec": nanosec}}))
    return ('{\n  "header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""},\n'
            f'  "joint_names": {dump(list(traj.joint_names))},\n'
            '  "points": [\n' + ",\n".join(points) + "\n  ]\n}\n")


def _reject_constant(name):
    raise ValueError(f"{name} is not a finite number")


def _int_field(d: dict, keys: Sequence[str], source: str, where: str) -> int:
    for k in keys:
        if k in d:
            v = d[k]
            if isinstance(v, bool) or not isinstance(v, int):
                raise file_error(source, where, f"{k} must be an integer, got {show(v)}")
            return v
    raise file_error(source, where, f"missing {' or '.join(keys)}")


def parse_json(text: str, source: str = "", kinds: Optional[Sequence[str]] = None) -> Trajectory:
    """Parse a JointTrajectory JSON (ROS 2 ``sec``/``nanosec`` or ROS 1 ``secs``/``nsecs``).
    ``kinds`` gives the joints' kinds (JSON has no units); default all angular."""
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        line, column, msg = json_error(e)
        raise file_error(source, f"line {line} column {column}", msg) from None
    except ValueError as e:
        raise file_error(source, "", str(e)) from None
    except RecursionError:
        raise file_error(source, "", "nested too deeply to be a JointTrajectory") from None
    if not isinstance(doc, dict):
        raise file_error(source, "", "expected a JSON object with 'joint_names' and 'points'")
    names = doc.get("joint_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise file_error(source, "joint_names", "must be a non-empty list of strings")
    pts = doc.get("points")
    if not isinstance(pts, list) or not pts:
        raise file_error(source, "points", "must be a non-empty list")
    times, positions, prev = [], [], None
    for i, p in enumerate(pts):
        where = f"points[{i}]"
        if not isinstance(p, dict):
            raise file_error(source, where, "must be an object")
        pos = p.get("positions")
        if not isinstance(pos, list) or len(pos) != len(names):
            raise file_error(source, where, f"positions must be a list of {len(names)} numbers "
                       f"(one per joint name), got {pos!r:.80}")
        for v in pos:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise file_error(source, where, f"position {show(v)} is not a number")
        tfs = p.get("time_from_start")
        if not isinstance(tfs, dict):
            raise file_error(source, where, "time_from_start must be {\"sec\": int, \"nanosec\": int}")
        sec = _int_field(tfs, ("sec", "secs"), source, where + ".time_from_start")
        nanosec = _int_field(tfs, ("nanosec", "nsecs"), source, where + ".time_from_start")
        if not 0 <= nanosec < _NS:
            raise file_error(source, where, f"nanosec {nanosec} must be in 0..999999999")
        t = float(Fraction(sec * _NS + nanosec, _NS))
        _check_increasing(t, prev, source, where)
        prev = t
        times.append(t)
        positions.append([float(v) for v in pos])
    return _build(source, names, times, positions, kinds)


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
