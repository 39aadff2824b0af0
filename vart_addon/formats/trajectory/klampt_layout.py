"""Klampt's configuration layout of a robot exported as URDF, and trajectories in it.

Plain numpy. Klampt's URDF loader (checked against Klampt 0.10) gives a robot one
configuration entry per link, links in depth-first pre-order from the root, siblings in the
file's joint order (:meth:`~vart_addon.formats.urdf.model.Robot.traverse`), with the root link's single entry
replaced by six floating-base entries ``x y z rz ry rx`` (metres, then radians; see
:mod:`.base_motion`): for a robot of L links, 6 + L - 1 entries. A link's entry is the value
of the URDF joint whose child it is (0 for a fixed joint). A ``.path`` file of that robot holds
these entries at each milestone.

:class:`KlamptLayout` (from :meth:`KlamptLayout.of`, given the URDF robot vart exports for a
linkage, :func:`~vart_addon.formats.urdf.from_linkage.urdf_from_linkage`, and the linkage)
maps a trajectory of joint columns and base poses to those entries and back. A URDF joint is
named like its vart joint; a joint written inverted (parent and child swapped) has the
opposite value. A root that is the ground (``world``) sits at the identity: zeros.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar, Optional

import numpy as np

from ...solver.linkage import Linkage
from ..urdf import files as urdf
from .base_motion import KLAMPT_FIELDS, BaseMotion, from_klampt_entries, klampt_entries
from .model import Trajectory

__all__ = ["KlamptLayout"]

_ONE_VALUE = ("revolute", "continuous", "prismatic")


@dataclasses.dataclass(frozen=True)
class KlamptLayout:
    """The entries of a robot's Klampt configuration. ``base_link``: the URDF root link
    (``grounded``: it is the world, not a vart link). ``links``: the other links, in Klampt's
    order (depth first from the root). ``sources``: per link, ``(vart joint, sign, kind)``
    of the value it holds, or None for a fixed joint (always 0)."""

    #: What messages call it (:class:`.files.ConfigLayout`).
    title: ClassVar[str] = "Klampt configuration"
    base_link: str
    grounded: bool
    links: tuple[str, ...]
    sources: tuple[Optional[tuple[str, float, str]], ...]

    @property
    def size(self) -> int:
        """The number of configuration entries: 6 + the links other than the root."""
        return 6 + len(self.links)

    @property
    def entry_names(self) -> tuple[str, ...]:
        """``base:<root>/x`` ... ``base:<root>/rx``, then the link names."""
        return tuple(f"base:{self.base_link}/{f}" for f in KLAMPT_FIELDS) + self.links

    @classmethod
    def of(cls, robot: urdf.Robot, lk: Linkage) -> "KlamptLayout":
        """The layout of ``robot``, the URDF :func:`urdf_from_linkage` wrote for ``lk``.
        ValueError naming the joint for a joint Klampt's entries cannot hold one to one
        (planar, floating)."""
        root = robot.root_link
        links: list[str] = []
        sources: list[Optional[tuple[str, float, str]]] = []
        for j in robot.traverse():
            links.append(j.child)
            if j.type == "fixed":
                sources.append(None)
                continue
            if j.type not in _ONE_VALUE:
                raise ValueError(f"joint {j.name!r} is {j.type}: a Klampt path holds one value "
                                 "per link, so its layout cannot carry this joint")
            vj = lk.joints.get(j.name)
            if vj is None:
                raise ValueError(f"URDF joint {j.name!r} is not a joint of the linkage")
            sign = 1.0 if _real_child(robot, j.child, lk) == vj.child else -1.0
            sources.append((j.name, sign, "linear" if j.type == "prismatic" else "angular"))
        return cls(root, root not in lk.links, tuple(links), tuple(sources))

    def to_config(self, traj: Trajectory) -> Trajectory:
        """``traj`` (joint columns named like the vart joints, its base the root's poses) as
        Klampt configurations: :attr:`entry_names` columns. ValueError naming a joint the
        trajectory lacks, or a floating root without base poses."""
        n = traj.n_times
        out = np.zeros((n, self.size))
        if not self.grounded:
            if traj.base is None or traj.base.link != self.base_link:
                raise ValueError(f"the Klampt configuration needs the pose of root link "
                                 f"{self.base_link!r} at every sample")
            out[:, :6] = klampt_entries(traj.base.poses)
        col = {n_: k for k, n_ in enumerate(traj.joint_names)}
        for k, src in enumerate(self.sources):
            if src is None:
                continue
            name, sign, _ = src
            if name not in col:
                raise ValueError(f"joint {name!r} of the robot is not in the trajectory")
            out[:, 6 + k] = sign * traj.positions[:, col[name]]
        kinds = ["linear"] * 3 + ["angular"] * 3 + [
            "angular" if s is None else s[2] for s in self.sources]
        return Trajectory(self.entry_names, traj.times, out, kinds=kinds)

    def from_config(self, cfg: Trajectory) -> Trajectory:
        """Klampt configurations (:attr:`size` columns) back to joint columns (named like the
        vart joints) and the base's poses. ValueError if the width is not :attr:`size`."""
        if cfg.n_joints != self.size:
            raise ValueError(f"milestones have {cfg.n_joints} values, but the robot's Klampt "
                             f"configuration has {self.size} (6 base entries and "
                             f"{len(self.links)} links)")
        names, kinds, cols = [], [], []
        for k, src in enumerate(self.sources):
            if src is not None:
                names.append(src[0])
                kinds.append(src[2])
                cols.append(src[1] * cfg.positions[:, 6 + k])
        base = None if self.grounded else BaseMotion(
            self.base_link, from_klampt_entries(cfg.positions[:, :6]))
        return Trajectory(names, cfg.times, np.array(cols).T.reshape(cfg.n_times, len(names)),
                          kinds=kinds, base=base)


def _real_child(robot: urdf.Robot, link: str, lk: Linkage) -> str:
    """``link``, or for a helper link of the export the vart link its fixed joint carries."""
    while link not in lk.links:
        nxt = [j.child for j in robot.children_of(link) if j.type == "fixed"]
        if not nxt:
            return link
        link = nxt[0]
    return link
