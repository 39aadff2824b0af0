"""Pinocchio as the independent reference of the URDF corpus tests (solver and Blender)."""
from __future__ import annotations

import math
import sysconfig
from pathlib import Path

import numpy as np

from vart_addon.formats.urdf.files import joint_values
from vart_addon.formats.urdf.model import ONE_DOF_TYPES
from vart_addon.formats.urdf.start import allowed

#: Where example-robot-data (a dev dependency) installs its robots.
ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / \
    "example-robot-data" / "robots"


def random_free_values(robot, rng) -> dict:
    """A value for every 1-DoF joint that moves on its own, within what its limits and its
    mimic followers' limits allow (and within +-pi)."""
    free = {}
    for j in robot.joints:
        if j.type in ONE_DOF_TYPES and j.mimic is None:
            lo, hi, _ = allowed(robot, j)
            free[j.name] = float(rng.uniform(max(lo, -math.pi), min(hi, math.pi)))
    return free


def pinocchio_frames(pin, model, robot, free: dict):
    """Pinocchio's data after forward kinematics at the URDF values ``free`` (mimic joints
    following their leaders); read ``data.oMf[model.getFrameId(link, pin.BODY)]``."""
    data = model.createData()
    q = pin.neutral(model)
    for name, v in joint_values(robot, free).items():  # by name: model.names (a
        jid = model.getJointId(name)  # std::vector<std::string>) has no converter beside
        if v is None or jid >= model.njoints:  # bpy 4.2's own boost; fixed: no pin joint
            continue
        jm = model.joints[jid]
        if jm.nq == 2:  # an unbounded revolute: (cos, sin)
            q[jm.idx_q:jm.idx_q + 2] = [math.cos(v), math.sin(v)]
        elif jm.nq == 1:
            q[jm.idx_q] = v
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    return data


def frame_of(pin, model, data, link: str) -> np.ndarray:
    """T_world_link of Pinocchio's frame of ``link`` (4x4)."""
    return data.oMf[model.getFrameId(link, pin.BODY)].homogeneous
