"""What a MuJoCo replay (:mod:`.replay`) measured: :class:`ReplayResult` and its summary.

Arrays are per frame (rows) and per actuated joint (columns, in ``joints`` order); a frame's
figures over the physics steps *from the previous frame to it* (MuJoCo computes forces at the
start of each step: frame k covers the steps starting at ``times[k-1]``,
``times[k-1] + h``, ... up to ``times[k]`` excluded). Frame 0 holds the robot at rest at the
first frame (after the settling, :mod:`.replay`): its figures are those of that rest.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..solver.text import frame_ranges
from .contacts import contact_table

#: A force within this fraction of its limit is at the limit.
SATURATED = 0.999


def peak(values: np.ndarray) -> np.ndarray:
    """Per column, the value of largest magnitude (signed) of ``values`` (steps x columns)."""
    return np.take_along_axis(values, np.abs(values).argmax(axis=0)[None], axis=0)[0]


def _si(value: float, unit: str) -> str:
    """``1.23 kN``-style text of a force or torque."""
    a = abs(value)
    for scale, prefix in ((1e6, "M"), (1e3, "k")):
        if a >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


@dataclass
class ReplayResult:
    """What :func:`.replay.replay_steps` measured (module doc):

    - ``target``, ``q``: the baked value and the value reached at the frame (rad or m);
    - ``force``: the actuator force (N m or N) of largest magnitude over the frame's steps,
      signed (the peak between frames included); ``force_mean``: its mean over them (the
      impulse over the interval, divided by its length); ``limit``: the URDF effort (0: none);
    - ``required``, ``required_mean``: the same of the torque (N m or N) MuJoCo's inverse
      dynamics (``mj_inverse``) needs for the baked motion at each step (see :mod:`.replay`
      for what it assumes about the base, loops and contacts);
    - ``base``: the root link's world pose (4x4; identity for a robot fixed to the world);
      ``bodies``: the world poses (n x 4 x 4) of the other free bodies (floating joints'
      children), by link;
    - ``contacts``: per frame, the :class:`.contacts.Touch` es at the frame (what touches what,
      the ground named ``ground``, normal and tangential force, N);
    - ``slip``: per link, the contact slip summed over the frames (m); ``fell_at``: the first
      frame index at which the robot is fallen (0: while settling, it could not hold the first
      frame); ``settle_s``: simulated seconds of settling before the first frame and
      ``settled``: whether the robot came to rest in them; ``units``: per joint, the unit of
      its force (``N m`` or ``N``); ``carried``: whether the inverse dynamics carried passive
      joints (free, ball, planar) along their baked paths.
    """

    times: np.ndarray
    joints: list
    target: np.ndarray
    q: np.ndarray
    force: np.ndarray
    limit: np.ndarray
    base: np.ndarray
    floating: bool = True
    force_mean: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    required: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    required_mean: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    bodies: dict = field(default_factory=dict)
    contacts: list = field(default_factory=list)
    slip: dict = field(default_factory=dict)
    fell_at: int | None = None
    settle_s: float = 0.0
    settled: bool = True
    units: list = field(default_factory=list)
    carried: bool = False
    frames_done: int = 0
    wall_s: float = 0.0
    steps: int = 0

    @property
    def error(self) -> np.ndarray:
        """Tracking error ``target - q`` (rad or m), per frame and joint."""
        return self.target - self.q

    @property
    def stays_up(self) -> bool:
        return self.fell_at is None

    @property
    def sim_s(self) -> float:
        """Simulated time of the frames (s), settling not included."""
        return float(self.times[self.frames_done - 1] - self.times[0]) if self.frames_done else 0.0

    def speed(self) -> float:
        """Simulated seconds (settling included) per second of wall time."""
        return (self.sim_s + self.settle_s) / self.wall_s if self.wall_s > 0 else math.inf

    def saturated(self) -> dict:
        """Joint -> frame indices where its force reached its effort limit (at any step)."""
        n = self.frames_done
        lim = np.where(self.limit > 0, self.limit, np.inf)
        at = np.abs(self.force[:n]) >= SATURATED * lim
        return {j: np.flatnonzero(at[:, i]).tolist() for i, j in enumerate(self.joints)
                if at[:, i].any()}

    def drift(self) -> float:
        """Largest horizontal distance (m) of the root link from where it started."""
        n = self.frames_done
        d = self.base[:n, :2, 3] - self.base[0, :2, 3]
        return float(np.linalg.norm(d, axis=1).max()) if n else 0.0

    def worst(self) -> list[tuple[str, float, float, int]]:
        """Per joint (name, largest |error|, largest |force| / limit (nan without a limit),
        frame index of the largest force ratio), worst force ratio first."""
        n = self.frames_done
        out = []
        for i, j in enumerate(self.joints):
            err = float(np.abs(self.error[:n, i]).max()) if n else 0.0
            f = np.abs(self.force[:n, i])
            ratio = f / self.limit[i] if self.limit[i] > 0 else np.full(n, np.nan)
            k = int(np.nanargmax(ratio)) if n and np.isfinite(ratio).any() else 0
            out.append((j, err, float(ratio[k]) if n else float("nan"), k))
        return sorted(out, key=lambda r: -(r[2] if np.isfinite(r[2]) else -1.0))

    def _largest(self, values: np.ndarray):
        """(joint, frame index, value) of the largest |value| over the frames done."""
        n = self.frames_done
        if not n or not self.joints:
            return None
        k, i = np.unravel_index(int(np.abs(values[:n]).argmax()), values[:n].shape)
        return self.joints[i], int(k), float(values[k, i])

    def summary(self, first_frame: int = 0, most: int = 3) -> str:
        """Short sentences: speed; whether it stays up, drift, slip; joints at their limit;
        tracking error; peak force beside what inverse dynamics needs; contacts."""
        n = self.frames_done
        settle = f" after {self.settle_s:.2f} s settling" if self.settle_s else ""
        out = [f"Replayed {n} frames ({self.sim_s:.2f} s simulated{settle}, "
               f"{self.speed():.0f}x real time)"]
        parts = []
        if self.floating:
            parts.append("stays up" if self.fell_at is None else
                         f"FALLS at frame {first_frame + self.fell_at}"
                         + (" (it cannot hold the first frame)" if self.fell_at == 0 else ""))
            parts.append(f"base drift {self.drift() * 1e3:.1f} mm")
            if self.slip:
                link, s = max(self.slip.items(), key=lambda kv: kv[1])
                parts.append(f"largest contact slip {s * 1e3:.1f} mm ({link})")
        if not self.settled and self.fell_at != 0:
            parts.append("did not come to rest at the first frame")
        if parts:
            out.append(", ".join(parts))
        sat = self.saturated()
        if sat:
            items = [f"{j} (frames {frame_ranges([first_frame + k for k in ks])})"
                     for j, ks in list(sat.items())[:most]]
            more = f"; and {len(sat) - most} more" if len(sat) > most else ""
            out.append(f"{len(sat)} joints at their effort limit: " + "; ".join(items) + more)
        err = max((r[1] for r in self.worst()), default=0.0)
        out.append(f"Largest tracking error {err:.3g}")
        out += self._force_sentence(first_frame) + self._contact_sentence(first_frame, most)
        return ". ".join(out)

    def _force_sentence(self, first_frame: int) -> list[str]:
        got, need = self._largest(self.force), self._largest(self.required)
        if got is None or need is None:
            return []
        (j, k, f), (jr, kr, r) = got, need
        unit = dict(zip(self.joints, self.units))
        carried = " (passive joints carried, no contacts)" if self.carried else ""
        return [f"Peak force {_si(f, unit.get(j, 'N m'))} ({j}, frame {first_frame + k}); "
                f"inverse dynamics{carried} needs up to {_si(r, unit.get(jr, 'N m'))} ({jr}, "
                f"frame {first_frame + kr})"]

    def _contact_sentence(self, first_frame: int, most: int) -> list[str]:
        rows = contact_table(self.contacts[:self.frames_done])
        if not rows:
            return ["No contacts"]
        items = [f"{r.label} (frames {frame_ranges([first_frame + k for k in r.frames])}, "
                 f"up to {_si(r.normal, 'N')} normal, {_si(r.tangential, 'N')} tangential)"
                 for r in rows[:most]]
        more = f"; and {len(rows) - most} more" if len(rows) > most else ""
        return ["Contacts: " + "; ".join(items) + more]
