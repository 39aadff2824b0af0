"""Every URDF of example-robot-data, read by vart and by Pinocchio (an independent library on
urdfdom): every link's pose agrees to 1e-12 at random configurations within the limits.

Figures of issue 17: 68 of the package's 69 files are robots (``ur3.urdf`` is not a valid
URDF: urdfdom refuses it, and so does vart).
"""
from __future__ import annotations

import math
import os
import sysconfig
import zlib
from pathlib import Path

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")

from vart_addon.formats.urdf.files import UrdfError, joint_values, read_urdf  # noqa: E402
from vart_addon.formats.urdf.start import allowed  # noqa: E402
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf  # noqa: E402

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / \
    "example-robot-data" / "robots"
FILES = sorted(ROBOTS.rglob("*.urdf")) if ROBOTS.is_dir() else []
ONE_DOF = ("revolute", "continuous", "prismatic")


def pinocchio_model(path: Path):
    try:
        return pin.buildModelFromUrdf(str(path))
    except ValueError:
        return None


def test_the_corpus_is_there():
    assert len(FILES) == 69, f"example-robot-data (a dev dependency) not found in {ROBOTS}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROBOTS)))
def test_every_link_pose_agrees_with_pinocchio(path):
    model = pinocchio_model(path)
    if model is None:  # urdfdom refuses it: so must vart
        with pytest.raises(UrdfError):
            read_urdf(path)
        return
    robot = read_urdf(path)
    linkage_from_urdf(robot)  # the default start (zero clamped into the limits) imports
    data = model.createData()
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))  # the same every run
    for _ in range(3):
        free = {}
        for j in robot.joints:
            if j.type in ONE_DOF and j.mimic is None:
                lo, hi, _ = allowed(robot, j)  # followers stay within their limits too
                free[j.name] = rng.uniform(max(lo, -math.pi), min(hi, math.pi))
        values = joint_values(robot, free)
        q = pin.neutral(model)
        for name, v in values.items():  # by name: model.names (a std::vector<std::string>)
            jid = model.getJointId(name)  # has no converter beside bpy 4.2's own boost
            if v is None or jid >= model.njoints:  # a fixed joint is no pinocchio joint
                continue
            jm = model.joints[jid]
            if jm.nq == 2:  # an unbounded revolute: (cos, sin)
                q[jm.idx_q:jm.idx_q + 2] = [math.cos(v), math.sin(v)]
            elif jm.nq == 1:
                q[jm.idx_q] = v
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        poses = linkage_from_urdf(robot, free)[0].poses()
        for link in robot.links:
            if link.name in poses:
                want = data.oMf[model.getFrameId(link.name, pin.BODY)].homogeneous
                err = float(np.abs(want - poses[link.name]).max())
                assert err < 1e-12, (link.name, err, os.path.basename(path))
