"""A robot's ``joint_limits.yaml`` (MoveIt's, ros2_control's): velocity, acceleration and
jerk limits per joint, beside its URDF. Plain Python (PyYAML, a shipped wheel).

The file's ``joint_limits`` maps a joint name to its keys: ``has_velocity_limits`` /
``max_velocity`` (rad/s or m/s), ``has_acceleration_limits`` / ``max_acceleration`` (rad/s^2
or m/s^2), ``has_jerk_limits`` / ``max_jerk``, ``has_effort_limits`` / ``max_effort`` (N m or
N), ``has_position_limits`` / ``min_position`` / ``max_position``. A limit counts when its
``has_*`` is true (MoveIt writes the flag beside each value; a value without its flag counts
too, as ros2_control reads it); other keys (``angle_wraps``, MoveIt's top-level scaling
factors) are passed over. :func:`read_joint_limits` gives a :class:`JointLimits` per joint;
:func:`find_joint_limits` finds the file as MoveIt lays it out: ``joint_limits.yaml`` beside
the URDF, or in a ``config/`` folder beside it or one or two folders up (a ``*_description``
package's, a ``*_moveit_config`` package's sibling). A file that is not one is a
:class:`JointLimitsError` naming the file, the joint and the key.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Optional

__all__ = ["JointLimits", "JointLimitsError", "read_joint_limits", "find_joint_limits",
           "FILE_NAME"]

FILE_NAME = "joint_limits.yaml"
#: (kind, flag key, value key) of every limit read.
_KINDS = (("velocity", "has_velocity_limits", "max_velocity"),
          ("acceleration", "has_acceleration_limits", "max_acceleration"),
          ("jerk", "has_jerk_limits", "max_jerk"),
          ("effort", "has_effort_limits", "max_effort"))


class JointLimitsError(ValueError):
    """A joint limits file that cannot be read: names the file, the joint and the key."""


@dataclass(frozen=True)
class JointLimits:
    """One joint's limits (None: none): ``velocity`` (rad/s or m/s), ``acceleration``
    (rad/s^2 or m/s^2), ``jerk`` (rad/s^3 or m/s^3), ``effort`` (N m or N), ``lower`` /
    ``upper`` (rad or m)."""

    velocity: Optional[float] = None
    acceleration: Optional[float] = None
    jerk: Optional[float] = None
    effort: Optional[float] = None
    lower: Optional[float] = None
    upper: Optional[float] = None

    def to_dict(self) -> dict:
        """The limits it has, as a plain dict (kept with an imported robot)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def _number(raw, where: str, positive: bool) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) \
            or (positive and raw <= 0):
        raise JointLimitsError(f"{where}: expected a {'positive ' if positive else ''}"
                               f"finite number, got {raw!r}")
    return float(raw)


def _flag(entry: dict, key: str, where: str) -> Optional[bool]:
    if key not in entry:
        return None
    if not isinstance(entry[key], bool):
        raise JointLimitsError(f"{where}: {key}: expected true or false, got {entry[key]!r}")
    return entry[key]


def _joint(entry, where: str) -> JointLimits:
    if not isinstance(entry, dict):
        raise JointLimitsError(f"{where}: expected the joint's keys, got {entry!r}")
    out = {}
    for kind, flag_key, value_key in _KINDS:
        flag = _flag(entry, flag_key, where)
        if flag is False or value_key not in entry:
            continue
        out[kind] = _number(entry[value_key], f"{where}: {value_key}", positive=True)
    if _flag(entry, "has_position_limits", where) is not False:
        for side, key in (("lower", "min_position"), ("upper", "max_position")):
            if key in entry:
                out[side] = _number(entry[key], f"{where}: {key}", positive=False)
        if out.get("lower", -math.inf) > out.get("upper", math.inf):
            raise JointLimitsError(f"{where}: min_position {out['lower']} is above "
                                   f"max_position {out['upper']}")
    return JointLimits(**out)


def parse_joint_limits(text: str, source: str = "joint_limits.yaml") -> dict:
    """``{joint name: JointLimits}`` of a file's text (see the module doc)."""
    import yaml
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise JointLimitsError(f"{source}: not YAML: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("joint_limits"), dict):
        raise JointLimitsError(f"{source}: expected a mapping 'joint_limits' of joint names "
                               "to their limits")
    return {str(name): _joint(entry, f"{source}: joint_limits: {name}")
            for name, entry in doc["joint_limits"].items()}


def read_joint_limits(path) -> dict:
    """:func:`parse_joint_limits` of the file at ``path``; OSError naming it if it cannot be
    read."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse_joint_limits(text, path)


def find_joint_limits(urdf_path) -> Optional[str]:
    """The ``joint_limits.yaml`` of the URDF at ``urdf_path`` (see the module doc), or
    None."""
    folder = os.path.dirname(os.path.abspath(os.fspath(urdf_path)))
    up1, up2 = os.path.dirname(folder), os.path.dirname(os.path.dirname(folder))
    for place in (folder, os.path.join(folder, "config"), os.path.join(up1, "config"),
                  os.path.join(up2, "config")):
        candidate = os.path.join(place, FILE_NAME)
        if os.path.isfile(candidate):
            return candidate
    return None
