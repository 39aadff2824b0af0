"""The configuration a URDF robot starts in when no value is given for a joint.

A robot whose zero configuration lies outside a joint's limits (Panda's fourth joint, the
legs of A1, Go1, HyQ, ...) cannot start at zero. :func:`start_values` chooses, for every
joint that moves on its own (1-DoF, not a mimic follower):

- ``"zero"``: 0 clamped into the values its limits allow (the default);
- ``"middle"``: the middle of those values (0 for a joint without limits).

The values a joint allows are its limits intersected with what keeps each of its mimic
followers (``q_f = multiplier * q + offset``, recursively) within the follower's own limits:
a coupling whose mapped range leaves a follower's limits (PR2's gripper joints) keeps its
coupling and starts inside both ranges, with a warning. Radians or metres, as in the URDF.
"""
from __future__ import annotations

import math

from ...solver.errors import VartError
from .model import Robot

#: The start choices, in the order a user interface lists them.
START_CHOICES = ("zero", "middle")
_ONE_DOF = ("revolute", "continuous", "prismatic")


def _limits(joint) -> tuple[float, float]:
    if joint.type in ("revolute", "prismatic") and joint.limit is not None:
        return joint.limit.lower, joint.limit.upper
    return -math.inf, math.inf


def _followers(robot: Robot, leader: str, multiplier: float = 1.0, offset: float = 0.0):
    """Every joint that mimics ``leader`` (recursively), with the affine map from the
    leader's value to its own: ``(joint, multiplier, offset)``."""
    for j in robot.joints:
        if j.mimic is not None and j.mimic.joint == leader:
            m, o = j.mimic.multiplier * multiplier, j.mimic.multiplier * offset + j.mimic.offset
            yield j, m, o
            yield from _followers(robot, j.name, m, o)


def allowed(robot: Robot, joint) -> tuple[float, float, list[str]]:
    """The values ``joint`` (moving on its own) may take so that it and its mimic followers
    stay within their limits, and a warning per follower whose limits narrow that range.
    VartError when no value keeps them all within limits."""
    lo, hi = _limits(joint)
    warnings = []
    for f, m, o in _followers(robot, joint.name):
        flo, fhi = _limits(f)
        if not (math.isfinite(flo) or math.isfinite(fhi)):
            continue
        if m == 0.0:
            a, b = (-math.inf, math.inf) if flo <= o <= fhi else (math.inf, -math.inf)
        else:
            a, b = sorted(((flo - o) / m + 0.0, (fhi - o) / m + 0.0))  # + 0.0: no -0.0
        if a > lo or b < hi:
            warnings.append(f"joint '{f.name}' mimics '{joint.name}' (x{m:g} {o:+g}) and its "
                            f"limits [{flo:g}, {fhi:g}] narrow '{joint.name}' to "
                            f"[{max(lo, a):g}, {min(hi, b):g}]: both stay within limits")
        lo, hi = max(lo, a), min(hi, b)
    if lo > hi:
        raise VartError(f"URDF joint '{joint.name}': no value keeps it and the joints that "
                        "mimic it within their limits")
    return lo, hi, warnings


def start_values(robot: Robot, start: str = "zero") -> tuple[dict[str, float], list[str]]:
    """``(values, warnings)``: the start value of every 1-DoF joint that moves on its own
    (mimic followers follow their leader; see the module doc for ``start``)."""
    if start not in START_CHOICES:
        raise VartError(f"start must be one of {', '.join(START_CHOICES)}, got {start!r}")
    values: dict[str, float] = {}
    warnings: list[str] = []
    for j in robot.joints:
        if j.type not in _ONE_DOF or j.mimic is not None:
            continue
        lo, hi, said = allowed(robot, j)
        warnings += said
        if start == "middle" and math.isfinite(lo) and math.isfinite(hi):
            values[j.name] = 0.5 * (lo + hi)
        else:
            values[j.name] = min(max(0.0, lo), hi)
    return values, warnings
