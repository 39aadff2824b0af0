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
of the trajectory, in its order; a value 0 leaves the controller's default. Each joint's is
its own when given (:attr:`GoalTolerances.joints`), else its kind's: linear (prismatic)
joints take ``linear_path`` / ``linear_goal`` (m, m/s, m/s^2), angular ones ``path`` /
``goal`` (rad...), so one number is never read in two units. The multi-DoF trajectory and
the component (multi-DoF) tolerances are empty: a goal of 1-DoF joints.

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
from typing import Mapping, Optional, Sequence

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
    trajectory runs: ``path_tolerance``) and ``goal`` (at its end: ``goal_tolerance``) of the
    angular joints; ``linear_path`` and ``linear_goal`` of the linear (prismatic) ones (None:
    the same numbers as ``path`` and ``goal``); ``joints``: a joint's own, which win (joint
    name -> ``(path, goal)``, each a Tolerance or None for its kind's); and ``goal_time`` (s:
    how late the end may be reached, ``goal_time_tolerance``). Each value a finite number
    >= 0 (0: the controller's default); ValueError naming the field else (a joint the
    trajectory does not have: when the goal is written, :meth:`of`)."""

    path: Tolerance = Tolerance()
    goal: Tolerance = Tolerance()
    goal_time: float = 0.0
    linear_path: Optional[Tolerance] = None
    linear_goal: Optional[Tolerance] = None
    joints: Mapping[str, tuple] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        # (field, value, whether None is allowed: then the kind's or the angular ones')
        checked = [("path_tolerance", self.path, False), ("goal_tolerance", self.goal, False),
                   ("linear path_tolerance", self.linear_path, True),
                   ("linear goal_tolerance", self.linear_goal, True)]
        if not isinstance(self.joints, Mapping):
            raise ValueError(f"joints must map joint names to (path, goal) tolerances, got "
                             f"{type(self.joints).__name__}")
        for name, pair in self.joints.items():
            if not isinstance(name, str) or not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError(f"joints[{show(name)}] must be a (path, goal) pair of "
                                 f"Tolerance or None, got {show(pair)}")
            checked += [(f"joint {name!r} path_tolerance", pair[0], True),
                        (f"joint {name!r} goal_tolerance", pair[1], True)]
        for field, tol, optional in checked:
            if tol is None and optional:
                continue
            if not isinstance(tol, Tolerance):
                raise ValueError(f"{field} must be a Tolerance{' or None' if optional else ''}"
                                 f", got {type(tol).__name__}")
            for f in dataclasses.fields(Tolerance):
                _at_least_zero(f"{field}.{f.name}", getattr(tol, f.name))
        _at_least_zero("goal_time_tolerance", self.goal_time)

    def of(self, names: Sequence[str], kinds: Sequence[str]) -> tuple[list, list]:
        """The ``(path, goal)`` Tolerance of each joint ``names[k]`` of kind ``kinds[k]``
        ("angular" or "linear"); ValueError naming a joint of :attr:`joints` that is not
        among ``names``."""
        unknown = sorted(set(self.joints) - set(names))
        if unknown:
            raise ValueError(f"tolerances for joints the goal does not command: "
                             f"{', '.join(map(repr, unknown))} (it has "
                             f"{', '.join(map(repr, names))})")
        path, goal = [], []
        for n, kind in zip(names, kinds):
            own_path, own_goal = self.joints.get(n, (None, None))
            linear = kind == "linear"
            path.append(own_path or (self.linear_path if linear and self.linear_path
                                     else self.path))
            goal.append(own_goal or (self.linear_goal if linear and self.linear_goal
                                     else self.goal))
        return path, goal


def _at_least_zero(field: str, v) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{field} must be a finite number >= 0 (0: the controller's default), "
                         f"got {show(v)}")


def _joint_tolerances(names: Sequence[str], tols: Sequence[Tolerance]) -> list:
    return [{"name": n, "position": float(t.position), "velocity": float(t.velocity),
             "acceleration": float(t.acceleration)} for n, t in zip(names, tols)]


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
    names = list(traj.joint_names)
    path, goal = tolerances.of(names, traj.kinds)
    fields, points = joint_trajectory(traj)
    return _layout(_Fields([
        ("trajectory", _Fields(fields + [("points", _Rows(points))])),
        ("multi_dof_trajectory", {"header": dict(HEADER), "joint_names": [], "points": []}),
        ("path_tolerance", _Rows(_joint_tolerances(names, path))),
        ("component_path_tolerance", []),
        ("goal_tolerance", _Rows(_joint_tolerances(names, goal))),
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
