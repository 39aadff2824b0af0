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
import os

from ...solver.errors import VartError
from .model import ONE_DOF_TYPES, Robot

#: The start choices, in the order a user interface lists them.
START_CHOICES = ("zero", "middle")


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
        if j.type not in ONE_DOF_TYPES or j.mimic is not None:
            continue
        lo, hi, said = allowed(robot, j)
        warnings += said
        if start == "middle" and math.isfinite(lo) and math.isfinite(hi):
            values[j.name] = 0.5 * (lo + hi)
        else:
            values[j.name] = min(max(0.0, lo), hi)
    return values, warnings


def _from_config(robot: Robot, traj, free: list, kinds: dict, kind):
    """A file's configuration vectors (a format whose layout is ``kind``, e.g. a Klampt
    ``.path``'s milestones) as the robot's joint values: the robot's configuration (as
    vart's export of it writes it; for Klampt: base entries, then one per link) when the width
    matches, else the free 1-DoF joints in the order of an export of values only (sorted by
    name). ValueError when neither fits."""
    from .from_linkage import urdf_from_linkage
    from .to_linkage import linkage_from_urdf
    try:
        lk, _ = linkage_from_urdf(robot)
        written, _ = urdf_from_linkage(lk, robot.name or "robot")
        layout = kind.of(written, lk)
    except (ValueError, VartError):
        layout = None
    if layout is not None and layout.size == traj.n_joints:
        return layout.from_config(traj)
    if len(free) == traj.n_joints:
        return traj.replace(joint_names=free, kinds=[kinds[n] for n in free])
    raise ValueError(f"milestones have {traj.n_joints} values, but the robot's {kind.title} "
                     f"has {layout.size if layout else 'no'} entries and it has "
                     f"{len(free)} joints that move on their own")


def start_from_file(robot: Robot, path) -> tuple[dict[str, float], list[str]]:
    """``(values, warnings)``: a start configuration read from a trajectory file of any
    format vart reads (:mod:`vart_addon.formats.trajectory.files`), its first sample. A Klampt
    ``.path`` holds the robot's Klampt configuration (vart's own export of the robot), or
    else the URDF's 1-DoF joints that move on their own in the order of a vart export (sorted
    by name); a file with units must give each joint its own (m or rad). Names the robot lacks, and mimic followers
    (which follow their leader), are passed over with a warning. VartError naming the file for
    a file that cannot be read or matches none of the robot's joints."""
    from ..trajectory import files as trajectory_files
    free = sorted(j.name for j in robot.joints if j.type in ONE_DOF_TYPES and j.mimic is None)
    kinds = {j.name: "linear" if j.type == "prismatic" else "angular" for j in robot.joints}
    try:
        fmt = trajectory_files.format_of(path)
        traj = trajectory_files.load_trajectory(path)
        if fmt.layout is not trajectory_files.NAMED:
            traj = _from_config(robot, traj, free, kinds, fmt.layout)
        else:
            wrong = [(n, kind) for n, kind in zip(traj.joint_names, traj.kinds)
                     if fmt.units and n in kinds and kinds[n] != kind]
            if wrong:  # as Import Trajectory refuses it
                col, kind = wrong[0]
                raise VartError(f"{os.fspath(path)}: column {col!r} is {kind} but joint "
                                f"{col!r} of the robot is {kinds[col]}")
    except (OSError, ValueError) as e:
        raise VartError(f"start pose: {e}") from None
    warnings = []
    if traj.n_times > 1:
        warnings.append(f"start pose: {os.path.basename(path)} has {traj.n_times} samples; "
                        "the first is used")
    values, unknown, followers = {}, [], []
    by_name = {j.name: j for j in robot.joints}
    for k, name in enumerate(traj.joint_names):
        j = by_name.get(name)
        if j is None or j.type not in ONE_DOF_TYPES:
            unknown.append(name)
        elif j.mimic is not None:
            followers.append(name)
        else:
            values[name] = float(traj.positions[0, k])
    if not values:
        raise VartError(f"start pose: {os.path.basename(path)} names none of the robot's "
                        f"joints that move on their own ({', '.join(free[:6])}"
                        f"{' ...' if len(free) > 6 else ''})")
    if unknown:
        warnings.append(f"start pose: not joints of the robot, passed over: {', '.join(unknown)}")
    if followers:
        warnings.append(f"start pose: mimic joints follow their leader, passed over: "
                        f"{', '.join(followers)}")
    return values, warnings
