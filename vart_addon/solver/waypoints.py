"""A tool's waypoints: world poses keyed on frames, and how the tool moves between two of them.

Plain numpy (Blender keeps the waypoints as keyed custom properties of the tool's link object:
:mod:`vart_addon.bridge.tools`; the bake and live mode follow them: :mod:`vart_addon.animation
.waypoint_goals`).

A waypoint is a frame, the tool's world pose there (``T_world_tool``, m) and the *move* that
reaches it from the waypoint before (the move belongs to the waypoint it arrives at, as in a
robot program's ``MoveL P2``):

- ``LINEAR``: the tool's origin travels the straight line between the two waypoints and its
  rotation turns about one fixed axis (spherical linear interpolation);
- ``JOINT``: the arm's joint values go linearly from their values at the first waypoint to a
  solution at the second (the tool's path is then whatever those joints make it);

and its *easing*: at constant speed (the fraction of the segment grows linearly with the
frame), or eased (it starts and stops with zero speed: ``3u^2 - 2u^3``). Before the first
waypoint the tool holds the first one's pose, after the last the last one's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import se3
from .errors import VartError
from .validate import bounded

#: The moves into a waypoint, by their stored number.
MOVES = ("LINEAR", "JOINT")
LINEAR, JOINT = MOVES


def eased(u: np.ndarray | float) -> np.ndarray | float:
    """The eased fraction of a segment ``3u^2 - 2u^3`` (``u`` in [0, 1]): zero speed at both
    ends, the same total."""
    return u * u * (3.0 - 2.0 * u)


@dataclass(frozen=True)
class Segment:
    """The part of a path around a frame: from waypoint ``a`` to waypoint ``b`` (indices;
    ``a == b`` outside the waypoints' frames, where the tool holds waypoint ``a``), ``move``
    (LINEAR or JOINT, the move into ``b``) and ``s``, the fraction of the segment done at the
    frame (eased or not; 1 at ``b``)."""

    a: int
    b: int
    move: str
    s: float

    @property
    def holding(self) -> bool:
        """True at a waypoint's frame or outside the waypoints: the tool's pose is a waypoint's."""
        return self.a == self.b or self.s >= 1.0


@dataclass(frozen=True)
class Waypoints:
    """A tool's waypoints in frame order: ``frames`` (n,), ``T`` (n, 4, 4) ``T_world_tool``,
    ``moves`` (n,) the move into each (the first's is unused) and ``eases`` (n,) bools.
    :func:`waypoints` builds one from stored values, checked."""

    frames: np.ndarray
    T: np.ndarray
    moves: tuple
    eases: np.ndarray

    def __len__(self) -> int:
        return len(self.frames)

    def segment(self, frame: float) -> Segment:
        """The segment ``frame`` lies in (see :class:`Segment`)."""
        f = self.frames
        if frame <= f[0]:
            return Segment(0, 0, self.moves[0], 1.0)
        if frame >= f[-1]:
            return Segment(len(f) - 1, len(f) - 1, self.moves[-1], 1.0)
        b = int(np.searchsorted(f, frame, side="left"))
        a = b - 1
        u = (frame - f[a]) / (f[b] - f[a])
        return Segment(a, b, self.moves[b], float(eased(u) if self.eases[b] else u))

    def fraction(self, seg: Segment, frame: float) -> float:
        """The fraction of ``seg`` done at another ``frame`` (clamped to the segment)."""
        f = self.frames
        if seg.a == seg.b:
            return 1.0
        u = float(np.clip((frame - f[seg.a]) / (f[seg.b] - f[seg.a]), 0.0, 1.0))
        return float(eased(u) if self.eases[seg.b] else u)

    def pose(self, seg: Segment) -> np.ndarray:
        """``T_world_tool`` on the straight path of ``seg`` at its fraction: the origin on the
        line, the rotation by spherical linear interpolation (the waypoint's at ``s`` 0, 1)."""
        Ta, Tb = self.T[seg.a], self.T[seg.b]
        if seg.a == seg.b or seg.s >= 1.0:
            return Tb.copy()
        if seg.s <= 0.0:
            return Ta.copy()
        T = np.eye(4)
        T[:3, 3] = Ta[:3, 3] + seg.s * (Tb[:3, 3] - Ta[:3, 3])
        w = se3.so3_log(Ta[:3, :3].T @ Tb[:3, :3])
        T[:3, :3] = Ta[:3, :3] @ se3.so3_exp(seg.s * w)
        return T

    def line_distance(self, seg: Segment, p: np.ndarray) -> float:
        """How far point ``p`` (world, m) lies from the straight segment between ``seg``'s two
        waypoints' origins (m)."""
        a, b = self.T[seg.a][:3, 3], self.T[seg.b][:3, 3]
        d = b - a
        dd = float(d @ d)
        t = 0.0 if dd == 0.0 else float(np.clip((p - a) @ d / dd, 0.0, 1.0))
        return float(np.linalg.norm(p - (a + t * d)))


def quat_pose(values, where: str) -> np.ndarray:
    """``T_world_tool`` from 7 stored values: position x y z (m) and a rotation quaternion
    w x y z (any length but zero). VartError naming ``where`` otherwise."""
    v = np.asarray(values, float)
    if v.shape != (7,) or not np.isfinite(v).all():
        raise VartError(f"{where}: expected 7 finite numbers (x y z in m, then a quaternion "
                        f"w x y z), got {np.asarray(values).tolist()}")
    bounded(v[:3].tolist(), where)
    n = float(np.linalg.norm(v[3:]))
    if n < 1e-9:
        raise VartError(f"{where}: the rotation quaternion {v[3:].tolist()} has no length")
    return se3.make_pose(se3.quat_to_rot(v[3:]), v[:3])


def pose_values(T: np.ndarray) -> list[float]:
    """The 7 stored values of ``T_world_tool`` (:func:`quat_pose`'s inverse; w >= 0)."""
    wxyz = se3.rot_to_quat(np.asarray(T, float)[:3, :3])
    return [float(x) for x in np.concatenate([np.asarray(T, float)[:3, 3], wxyz])]


def waypoints(frames, values, moves, eases, where: str, pose_name: str = "pose",
              move_name: str = "move") -> Waypoints:
    """Checked :class:`Waypoints` from stored values: ``frames`` (increasing), per waypoint
    7 values (:func:`quat_pose`), a move number (index into :data:`MOVES`) and an easing flag.
    VartError naming ``where``, the value (``pose_name``, ``move_name``: what the caller
    calls them) and the frame when one is wrong."""
    f = np.asarray(frames, float)
    if f.ndim != 1 or not len(f) or not np.isfinite(f).all() or np.any(np.diff(f) <= 0):
        raise VartError(f"{where}: waypoint frames must be increasing numbers, got "
                        f"{np.asarray(frames).tolist()}")
    T = np.array([quat_pose(v, f"{where}: {pose_name}, frame {fr:g}")
                  for fr, v in zip(f, values)])
    names = []
    for fr, m in zip(f, moves):
        if not float(m).is_integer() or not 0 <= int(m) < len(MOVES):
            raise VartError(f"{where}: {move_name}, frame {fr:g}: {m!r} is not a move: one of "
                            + ", ".join(f"{i} ({n.title()})" for i, n in enumerate(MOVES)))
        names.append(MOVES[int(m)])
    return Waypoints(f, T, tuple(names), np.array([bool(e) for e in eases]))
