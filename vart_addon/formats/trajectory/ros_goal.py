"""A ros2_control controller's goal: a ``control_msgs/action/FollowJointTrajectory`` goal as
JSON, the writer :func:`format_goal` and reader :func:`parse_goal` of the ``.goal.json``
format, and its export options :class:`GoalTolerances`.

Plain Python. Units: seconds; radians and rad/s, rad/s^2 (angular joints), metres and m/s,
m/s^2 (linear joints).

The file is the goal message of the action as ROS 2 Humble and Jazzy define it, every field
named as ROS names it::

    {"trajectory": {<a trajectory_msgs/JointTrajectory, as the .json format writes it>},
     "multi_dof_trajectory": {"header": ..., "joint_names": [], "points": []},
     "path_tolerance": [{"name": "j1", "position": 0.0, "velocity": 0.0,
                         "acceleration": 0.0}, ...],
     "component_path_tolerance": [],
     "goal_tolerance": [...], "component_goal_tolerance": [],
     "goal_time_tolerance": {"sec": 0, "nanosec": 0}}

``path_tolerance`` and ``goal_tolerance`` hold one ``control_msgs/JointTolerance`` per joint
of the trajectory, in its order; a value 0 leaves the controller's default. The multi-DoF
trajectory and the component (multi-DoF) tolerances are empty: a goal of 1-DoF joints.

**At rest at the end.** ros2_controllers' joint trajectory controller refuses a goal whose
last point has a velocity above float32's epsilon (``allow_nonzero_velocity_at_trajectory_end``
is false by default in Humble and Jazzy): the writer refuses to write one (an export stops
the motion at its last waypoint first, :func:`.timing.stopped_at_end`).

**JSON that is YAML.** ``ros2 action send_goal`` reads its goal as YAML (PyYAML, YAML 1.1),
which takes a number as a float only with a ``.`` and a signed exponent: ``1e-05`` would be a
string there. Every float is written so (``1.0e-05``), strings with ASCII escapes, so the
file is the same document to a JSON reader and to ``yaml.safe_load``.
"""
from __future__ import annotations

import dataclasses
import json
import math
from typing import Optional, Sequence

import numpy as np

from ...solver.text import show
from .codecs import check_exportable, file_error
from .model import Trajectory
from .ros_json import HEADER, duration, joint_trajectory, load_json, read_joint_trajectory

__all__ = ["Tolerance", "GoalTolerances", "format_goal", "parse_goal", "MOVING"]

#: The largest last-point velocity a joint trajectory controller takes for "at rest" (rad/s
#: or m/s): ``std::numeric_limits<float>::epsilon()``.
MOVING = float(np.finfo(np.float32).eps)


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """The values of a ``control_msgs/JointTolerance``, for every joint of a goal: how far
    the joint may be from the trajectory, ``position`` (rad for an angular joint, m for a
    linear one), ``velocity`` (rad/s or m/s) and ``acceleration`` (rad/s^2 or m/s^2). 0: the
    controller's default. Checked by :class:`GoalTolerances`."""

    position: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0


@dataclasses.dataclass(frozen=True)
class GoalTolerances:
    """A goal's tolerances, its options in the table of formats: ``path`` (while the
    trajectory runs: ``path_tolerance``), ``goal`` (at its end: ``goal_tolerance``) and
    ``goal_time`` (s: how late the end may be reached, ``goal_time_tolerance``). Each value
    a finite number >= 0 (0: the controller's default); ValueError naming the field else."""

    path: Tolerance = Tolerance()
    goal: Tolerance = Tolerance()
    goal_time: float = 0.0

    def __post_init__(self):
        for field, tol in (("path_tolerance", self.path), ("goal_tolerance", self.goal)):
            if not isinstance(tol, Tolerance):
                raise ValueError(f"{field} must be a Tolerance, got {type(tol).__name__}")
            for f in dataclasses.fields(Tolerance):
                _at_least_zero(f"{field}.{f.name}", getattr(tol, f.name))
        _at_least_zero("goal_time_tolerance", self.goal_time)


def _at_least_zero(field: str, v) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{field} must be a finite number >= 0 (0: the controller's default), "
                         f"got {show(v)}")


def _joint_tolerances(names: Sequence[str], tol: Tolerance) -> list:
    return [{"name": n, "position": float(tol.position), "velocity": float(tol.velocity),
             "acceleration": float(tol.acceleration)} for n in names]


# ---------------------------------------------------------------- JSON that is YAML


def _number(x: float) -> str:
    """``repr`` of a float with a ``.`` in its mantissa (``1.0e-05``): a float to YAML 1.1
    as to JSON (repr's exponents are signed already)."""
    s = repr(float(x))
    mantissa, e, exponent = s.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else s


def _value(x) -> str:
    """Compact JSON of ``x`` (dicts, lists, strings, ints, floats), floats by
    :func:`_number`, strings ASCII-escaped."""
    if isinstance(x, float):
        return _number(x)
    if isinstance(x, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_value(v)}" for k, v in x.items()) + "}"
    if isinstance(x, list):
        return "[" + ", ".join(_value(v) for v in x) + "]"
    return json.dumps(x)  # str (ASCII, escaped), int


class _Rows(list):
    """A list written one item per line."""


class _Fields(list):
    """An object written one ``(name, value)`` field per line."""


def _layout(x, indent: str) -> str:
    """The JSON of ``x``: :class:`_Fields` and :class:`_Rows` over several lines (at
    ``indent``), anything else on one (:func:`_value`)."""
    inner = indent + "  "
    if isinstance(x, _Fields):
        return "{\n" + ",\n".join(f"{inner}{json.dumps(k)}: {_layout(v, inner)}"
                                   for k, v in x) + f"\n{indent}}}"
    if isinstance(x, _Rows) and x:
        return "[\n" + ",\n".join(inner + _value(v) for v in x) + f"\n{indent}]"
    return _value(x)


def format_goal(traj: Trajectory, tolerances: Optional[GoalTolerances] = None) -> str:
    """The goal's JSON text (see the module doc): ``traj``'s joints with their velocities
    and accelerations when it has them, ``tolerances`` (default: all 0). ValueError for a
    trajectory with a floating base (a controller goal holds none: leave it out), one whose
    last sample moves (faster than :data:`MOVING`), or two times less than 1 ns apart."""
    check_exportable(traj)
    tolerances = GoalTolerances() if tolerances is None else tolerances
    if not isinstance(tolerances, GoalTolerances):
        raise TypeError(f"tolerances must be GoalTolerances, got {type(tolerances).__name__}")
    if traj.base is not None:
        raise ValueError(f"a FollowJointTrajectory goal holds no floating base (its "
                         f"multi_dof_trajectory is empty): export without base "
                         f"{traj.base.link!r}")
    if traj.velocities is not None and (np.abs(traj.velocities[-1]) > MOVING).any():
        j = int(np.argmax(np.abs(traj.velocities[-1])))
        raise ValueError(f"a FollowJointTrajectory goal must end at rest, but joint "
                         f"{traj.joint_names[j]!r} moves at {show(traj.velocities[-1, j])} at "
                         f"the last point (a controller would refuse it): stop it there")
    fields, points = joint_trajectory(traj)
    names = list(traj.joint_names)
    return _layout(_Fields([
        ("trajectory", _Fields(fields + [("points", _Rows(points))])),
        ("multi_dof_trajectory", {"header": dict(HEADER), "joint_names": [], "points": []}),
        ("path_tolerance", _Rows(_joint_tolerances(names, tolerances.path))),
        ("component_path_tolerance", []),
        ("goal_tolerance", _Rows(_joint_tolerances(names, tolerances.goal))),
        ("component_goal_tolerance", []),
        ("goal_time_tolerance", duration(tolerances.goal_time)),
    ]), "") + "\n"


def parse_goal(text: str, source: str = "", kinds: Optional[Sequence[str]] = None) -> Trajectory:
    """The trajectory of a FollowJointTrajectory goal's JSON (its ``trajectory``; the
    tolerances are the controller's business). ``kinds`` gives the joints' kinds (JSON has no
    units); default all angular. :class:`~.codecs.TrajectoryFormatError` naming the field
    for a file that is not a goal, or one whose ``multi_dof_trajectory`` has points (vart
    reads no multi-DoF goal)."""
    doc = load_json(text, source)
    if not isinstance(doc, dict) or not isinstance(doc.get("trajectory"), dict):
        raise file_error(source, "trajectory", "expected a FollowJointTrajectory goal: an "
                         "object whose 'trajectory' is a JointTrajectory")
    multi = doc.get("multi_dof_trajectory")
    if multi is not None and (not isinstance(multi, dict) or multi.get("points")):
        raise file_error(source, "multi_dof_trajectory", "must be empty (vart reads the "
                         "goal's 1-DoF joints)")
    return read_joint_trajectory(doc["trajectory"], source, kinds, prefix="trajectory.")
