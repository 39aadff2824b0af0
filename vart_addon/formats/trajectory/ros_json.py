"""ROS trajectory messages as JSON: the writer :func:`format_json` and reader
:func:`parse_json` of the ``.json`` format.

Plain Python + numpy. Units: seconds, radians (angular joints), metres (linear joints), and
their derivatives per second.

Without a floating base the file is one ROS 2 ``trajectory_msgs/msg/JointTrajectory``, every
field of the message and its points named as ROS names them::

    {"header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""},
     "joint_names": ["knee", ...],
     "points": [{"positions": [...], "velocities": [...], "accelerations": [...],
                 "effort": [], "time_from_start": {"sec": 0, "nanosec": 0}}, ...]}

With a moving floating base it is a ``moveit_msgs/msg/RobotTrajectory``: that JointTrajectory
as ``joint_trajectory`` beside a ``trajectory_msgs/msg/MultiDOFJointTrajectory`` as
``multi_dof_joint_trajectory``, whose one joint is named after the base link, in frame
``header.frame_id`` ("world"), with per point a ``geometry_msgs/Transform`` (``translation``
x y z, ``rotation`` x y z w) and, when known, a ``geometry_msgs/Twist`` of velocity and of
acceleration (``linear`` x y z, ``angular`` x y z: the base's world-frame twist).

``velocities`` and ``accelerations`` are empty lists when the trajectory has none (as ROS
allows). ``time_from_start`` is a whole number of nanoseconds (``sec`` may be negative,
``0 <= nanosec < 1e9``), so times are rounded to the nearest ns; reading accepts ROS 1
``secs``/``nsecs`` too. JSON carries no units: joints read back as angular unless the caller
gives ``kinds``.
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np

from ...solver.text import json_error, show
from .base_motion import BaseMotion
from .codecs import _build, _check_increasing, check_exportable, file_error
from .model import Trajectory

__all__ = ["format_json", "parse_json", "joint_trajectory", "read_joint_trajectory",
           "load_json", "duration", "HEADER"]

_NS = 1_000_000_000
#: A ``std_msgs/Header`` of time 0 in no frame (a controller then starts at once).
HEADER = {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""}
_XYZ, _XYZW = ("x", "y", "z"), ("x", "y", "z", "w")


def _to_ns(t: float) -> int:
    return round(Fraction(float(t)) * _NS)


def duration(t: float) -> dict:
    """A ``builtin_interfaces/Duration`` of ``t`` s, rounded to the nearest nanosecond."""
    return dict(zip(("sec", "nanosec"), divmod(_to_ns(t), _NS)))


def _stamps(traj: Trajectory) -> list[dict]:
    ns = [_to_ns(t) for t in traj.times]
    for i in range(1, len(ns)):
        if ns[i] <= ns[i - 1]:
            raise ValueError(f"times {show(traj.times[i - 1])} and {show(traj.times[i])} s are "
                             "less than 1 ns apart: time_from_start cannot tell them apart")
    return [dict(zip(("sec", "nanosec"), divmod(n, _NS))) for n in ns]


def _floats(a) -> list:
    return [] if a is None else [float(v) for v in a]


def _twist(row) -> dict:
    return {"linear": dict(zip(_XYZ, _floats(row[:3]))),
            "angular": dict(zip(_XYZ, _floats(row[3:])))}


def _dump(x) -> str:
    return json.dumps(x, ensure_ascii=False, allow_nan=False)


def _message(fields: list, points: list, indent: str) -> str:
    """A message object: its fields one per line, its points one per line."""
    inner = indent + "  "
    body = [f'{inner}"{k}": {_dump(v)}' for k, v in fields]
    body.append(f'{inner}"points": [\n' + ",\n".join(inner + "  " + _dump(p) for p in points)
                + f"\n{inner}]")
    return "{\n" + ",\n".join(body) + f"\n{indent}}}"


def joint_trajectory(traj: Trajectory) -> tuple[list, list]:
    """The ``trajectory_msgs/JointTrajectory`` of ``traj``'s joints (not its base) as
    ``(fields, points)``: ``[("header", ...), ("joint_names", ...)]``, then its points, one
    dict each. ValueError if two times are less than 1 ns apart (they would collide when
    rounded)."""
    check_exportable(traj)
    pts = []
    for k, stamp in enumerate(_stamps(traj)):
        pts.append({"positions": _floats(traj.positions[k]),
                    "velocities": _floats(None if traj.velocities is None
                                          else traj.velocities[k]),
                    "accelerations": _floats(None if traj.accelerations is None
                                             else traj.accelerations[k]),
                    "effort": [], "time_from_start": stamp})
    return [("header", dict(HEADER)), ("joint_names", list(traj.joint_names))], pts


def format_json(traj: Trajectory) -> str:
    """The JSON text of ``traj`` (see the module doc). Raises ValueError if two times are
    less than 1 ns apart (they would collide when rounded)."""
    fields, pts = joint_trajectory(traj)
    stamps = [p["time_from_start"] for p in pts]
    b = traj.base
    if b is None:
        return _message(fields, pts, "") + "\n"
    joint = _message(fields, pts, "  ")
    base_pts = []
    for k, stamp in enumerate(stamps):
        p = b.poses[k]
        base_pts.append({
            "transforms": [{"translation": dict(zip(_XYZ, _floats(p[:3]))),
                            "rotation": dict(zip(_XYZW, _floats(p[3:])))}],
            "velocities": [] if b.velocities is None else [_twist(b.velocities[k])],
            "accelerations": [] if b.accelerations is None else [_twist(b.accelerations[k])],
            "time_from_start": stamp})
    multi = _message([("header", dict(HEADER, frame_id=b.frame)), ("joint_names", [b.link])],
                     base_pts, "  ")
    return ('{\n  "joint_trajectory": ' + joint + ',\n  "multi_dof_joint_trajectory": '
            + multi + "\n}\n")


# ---------------------------------------------------------------- reading


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


def _time(p: dict, source: str, where: str) -> float:
    tfs = p.get("time_from_start")
    if not isinstance(tfs, dict):
        raise file_error(source, where, "time_from_start must be {\"sec\": int, \"nanosec\": int}")
    sec = _int_field(tfs, ("sec", "secs"), source, where + ".time_from_start")
    nanosec = _int_field(tfs, ("nanosec", "nsecs"), source, where + ".time_from_start")
    if not 0 <= nanosec < _NS:
        raise file_error(source, where, f"nanosec {nanosec} must be in 0..999999999")
    return float(Fraction(sec * _NS + nanosec, _NS))


def _numbers(v, n: int, what: str, source: str, where: str, empty_ok: bool) -> list:
    if v is None and empty_ok:
        return []
    if not isinstance(v, list) or not (len(v) == n or (empty_ok and not v)):
        raise file_error(source, where, f"{what} must be a list of {n} numbers (one per joint "
                         f"name){' or empty' if empty_ok else ''}, got {v!r:.80}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise file_error(source, where, f"{what[:-1]} {show(x)} is not a number")
    return [float(x) for x in v]


def load_json(text: str, source: str):
    """The JSON document of ``text`` (a UTF-8 BOM tolerated; NaN and Infinity refused), or
    :class:`TrajectoryFormatError` naming ``source`` and the line."""
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        line, column, msg = json_error(e)
        raise file_error(source, f"line {line} column {column}", msg) from None
    except ValueError as e:
        raise file_error(source, "", str(e)) from None
    except RecursionError:
        raise file_error(source, "", "nested too deeply to be a JointTrajectory") from None


def parse_json(text: str, source: str = "", kinds: Optional[Sequence[str]] = None) -> Trajectory:
    """Parse a JointTrajectory JSON, or a RobotTrajectory (``joint_trajectory`` and
    ``multi_dof_joint_trajectory``), ROS 2 ``sec``/``nanosec`` or ROS 1 ``secs``/``nsecs``.
    ``kinds`` gives the joints' kinds (JSON has no units); default all angular."""
    doc = load_json(text, source)
    if not isinstance(doc, dict):
        raise file_error(source, "", "expected a JSON object with 'joint_names' and 'points'")
    multi = None
    if "joint_trajectory" in doc:
        multi, doc = doc.get("multi_dof_joint_trajectory"), doc["joint_trajectory"]
        if not isinstance(doc, dict):
            raise file_error(source, "joint_trajectory", "must be an object")
    return read_joint_trajectory(doc, source, kinds, multi=multi)


def read_joint_trajectory(doc: dict, source: str, kinds: Optional[Sequence[str]] = None,
                          prefix: str = "", multi=None) -> Trajectory:
    """The Trajectory of a ``trajectory_msgs/JointTrajectory`` object ``doc`` (and its base,
    of the MultiDOFJointTrajectory ``multi``). Errors name ``source`` and the field, after
    ``prefix`` (``"trajectory."`` for a goal's)."""
    names = doc.get("joint_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise file_error(source, prefix + "joint_names", "must be a non-empty list of strings")
    pts = doc.get("points")
    if not isinstance(pts, list) or not pts:
        raise file_error(source, prefix + "points", "must be a non-empty list")
    cols: dict[str, list] = {"positions": [], "velocities": [], "accelerations": []}
    times, prev = [], None
    m = len(names)
    for i, p in enumerate(pts):
        where = f"{prefix}points[{i}]"
        if not isinstance(p, dict):
            raise file_error(source, where, "must be an object")
        for q, rows in cols.items():
            rows.append(_numbers(p.get(q), m, q, source, where, q != "positions"))
        t = _time(p, source, where)
        _check_increasing(t, prev, source, where)
        prev = t
        times.append(t)
    extra: dict = {}
    for q in ("velocities", "accelerations"):
        rows = cols[q]
        if any(rows):
            if not all(rows):
                raise file_error(source, prefix + "points",
                                 f"{q} are given for some points only")
            extra[q] = rows
    if multi is not None:
        extra["base"] = _parse_base(multi, times, source)
    return _build(source, names, times, cols["positions"], kinds, **extra)


def _xyz(d, keys, source, where) -> list:
    if not isinstance(d, dict):
        raise file_error(source, where, f"must be an object with {', '.join(keys)}")
    out = []
    for k in keys:
        v = d.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise file_error(source, where, f"{k} must be a number, got {show(v)}")
        out.append(float(v))
    return out


def _parse_base(multi, times: list, source: str) -> BaseMotion:
    """The base of a MultiDOFJointTrajectory with one joint, at the joint points' times."""
    top = "multi_dof_joint_trajectory"
    if not isinstance(multi, dict):
        raise file_error(source, top, "must be an object")
    names = multi.get("joint_names")
    if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
        raise file_error(source, top, "joint_names must name one joint (the base link)")
    pts = multi.get("points")
    if not isinstance(pts, list) or len(pts) != len(times):
        raise file_error(source, top, f"points must be a list of {len(times)} points (one per "
                         "joint_trajectory point)")
    frame = ((multi.get("header") or {}).get("frame_id") or "world")
    poses: list = []
    twists: dict[str, list] = {"velocities": [], "accelerations": []}
    for i, p in enumerate(pts):
        where = f"{top}.points[{i}]"
        if not isinstance(p, dict):
            raise file_error(source, where, "must be an object")
        if _time(p, source, where) != times[i]:
            raise file_error(source, where, "time_from_start differs from joint_trajectory's")
        tf = p.get("transforms")
        if not isinstance(tf, list) or len(tf) != 1 or not isinstance(tf[0], dict):
            raise file_error(source, where, "transforms must hold one Transform")
        poses.append(_xyz(tf[0].get("translation"), _XYZ, source, where + ".translation")
                     + _xyz(tf[0].get("rotation"), _XYZW, source, where + ".rotation"))
        for q, rows in twists.items():
            tw = p.get(q) or []
            if not isinstance(tw, list) or len(tw) > 1:
                raise file_error(source, where, f"{q} must hold one Twist or none")
            rows.append([] if not tw else
                        _xyz(tw[0].get("linear") if isinstance(tw[0], dict) else None, _XYZ,
                             source, where + ".linear")
                        + _xyz(tw[0].get("angular"), _XYZ, source, where + ".angular"))
    extra = {q: np.array(rows) for q, rows in twists.items() if all(rows)}
    try:
        return BaseMotion(names[0], np.array(poses, float), frame=str(frame), **extra)
    except ValueError as e:
        raise file_error(source, top, str(e)) from None
