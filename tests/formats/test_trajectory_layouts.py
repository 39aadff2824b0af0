"""Issue 34, items 2 and 7: a trajectory layout is one declaration. A format's values are
named columns or a robot's configuration vector in an order of its own
(``TrajectoryFormat.layout``, a class of ``files.ConfigLayout``); the code that exports,
imports and reads a pose file asks the format for it and calls it, never tests which it is.
Tried here with a layout declared in this test alone, MuJoCo's ``qpos`` order (a floating
base as ``x y z qw qx qy qz``, then one entry per moving joint, depth first), written and read
back through the same functions as Klampt's, with no change anywhere else."""
from __future__ import annotations

import dataclasses
from typing import ClassVar, Optional

import numpy as np
import pytest

from pinocchio_check import ROBOTS
from vart_addon.formats.trajectory import files as F
from vart_addon.formats.trajectory.base_motion import BaseMotion
from vart_addon.formats.trajectory.codecs import format_path, parse_path
from vart_addon.formats.trajectory.model import Trajectory
from vart_addon.formats.urdf.from_linkage import urdf_from_linkage
from vart_addon.formats.urdf.start import start_from_file
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf


@dataclasses.dataclass(frozen=True)
class QposLayout:
    """MuJoCo's qpos of a robot vart exported (its logic, all of it)."""

    title: ClassVar[str] = "MuJoCo qpos"
    base: Optional[str]
    joints: tuple[str, ...]
    kinds: tuple[str, ...]

    @property
    def size(self) -> int:
        return (7 if self.base else 0) + len(self.joints)

    @classmethod
    def of(cls, robot, lk) -> "QposLayout":
        moving = [j for j in robot.traverse() if j.type != "fixed"]
        for j in moving:
            if j.type not in ("revolute", "continuous", "prismatic"):
                raise ValueError(f"joint {j.name!r} is {j.type}")
        return cls(None if robot.root_link not in lk.links else robot.root_link,
                   tuple(j.name for j in moving),
                   tuple("linear" if j.type == "prismatic" else "angular" for j in moving))

    def to_config(self, traj: Trajectory) -> Trajectory:
        col = {n: k for k, n in enumerate(traj.joint_names)}
        parts = []
        if self.base:
            p = traj.base.poses  # x y z qx qy qz qw
            parts.append(np.concatenate([p[:, :3], p[:, 6:7], p[:, 3:6]], axis=1))
        parts.append(traj.positions[:, [col[n] for n in self.joints]])
        names = ([f"base/{f}" for f in ("x", "y", "z", "qw", "qx", "qy", "qz")]
                 if self.base else []) + list(self.joints)
        kinds = (["linear"] * 3 + ["angular"] * 4 if self.base else []) + list(self.kinds)
        return Trajectory(names, traj.times, np.concatenate(parts, axis=1), kinds=kinds)

    def from_config(self, cfg: Trajectory) -> Trajectory:
        q = cfg.positions
        at = 7 if self.base else 0
        base = None if not self.base else BaseMotion(
            self.base, np.concatenate([q[:, :3], q[:, 4:7], q[:, 3:4]], axis=1))
        return Trajectory(list(self.joints), cfg.times, q[:, at:], kinds=list(self.kinds),
                          base=base)


#: The format's one row, as it would stand in ``files.TABLE``.
QPOS = F.TrajectoryFormat("QPOS", ".qpos", "MuJoCo qpos", "qpos vectors, one per line",
                          format_path, parse_path, names=False, units=False, layout=QposLayout)


def test_a_layout_declared_once_is_written_and_read_back_as_a_pose_file(tmp_path, monkeypatch):
    monkeypatch.setitem(F.BY_EXTENSION, QPOS.extension, QPOS)  # the row in the table
    from vart_addon.formats.urdf.files import read_urdf
    robot = read_urdf(str(ROBOTS / "solo_description" / "robots" / "solo12.urdf"))
    lk, _ = linkage_from_urdf(robot)
    written, _ = urdf_from_linkage(lk, robot.name)
    layout = QposLayout.of(written, lk)
    free = sorted(j.name for j in robot.joints if j.type == "revolute" and j.mimic is None)
    assert layout.size == 7 + len(free) == 19
    rng = np.random.default_rng(3)
    want = {n: float(rng.uniform(-0.3, 0.3)) for n in free}
    pos = np.array([[want[n] for n in free]] * 2)
    base = BaseMotion(written.root_link, np.array([[0.1, 0.2, 0.3, 0, 0, 0.6, 0.8]] * 2))
    path = tmp_path / "solo.qpos"
    F.export_motion(Trajectory(free, np.array([0.0, 1.0]), pos, base=base), path,
                    every_frame=True, layout=layout)
    first = [float(x) for x in path.read_text().split("\n")[0].split()]
    assert first[1] == layout.size and first[2:9] == pytest.approx([0.1, 0.2, 0.3, 0.8, 0, 0,
                                                                    0.6])
    values, _ = start_from_file(robot, path)  # reads the format's layout, calls it
    assert values == pytest.approx(want, abs=1e-12)
    with pytest.raises(Exception, match="MuJoCo qpos has 19 entries"):
        path.write_text("0\t2 0.1 0.2\n")
        start_from_file(robot, path)
