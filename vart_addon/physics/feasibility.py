"""Will it run, statically: balance, torque and slip over a range of poses (numpy only).

:func:`check_poses_steps` takes a :class:`~.static_model.StaticModel`, the robot's link poses
at each frame (``T_world_link``), each link's candidate contact points and the pins, and at
every frame finds the contacts (:func:`.ground_contacts.find_contacts`) and the statics
(:func:`.statics.solve_pose`); between frames, the slip of each contact group that carries
load. The result (:class:`StaticsReport`) holds, per frame:

- ``balanced``, ``margin`` (m: the centre of mass's ground projection to the support
  polygon's edge, positive inside) and the wrench the contacts cannot give;
- per motor, the static torque (N m or N) and its share of the effort limit; ``worst``;
- per contact group: its load (the sum of its points' normal forces, N; 0 when not touching)
  and the slip (m) it made while loaded since the frame before; lift-offs;

and decides which frames fail (:meth:`StaticsReport.failures`): not balanced, a torque beyond
``1 - margin`` of its limit (:class:`Thresholds`), or a loaded contact sliding more than
``slip`` in one frame step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..solver.text import frame_ranges
from .ground_contacts import MU, TOLERANCE, find_contacts, group_slip
from .static_model import StaticModel
from .statics import solve_pose


@dataclass(frozen=True)
class Thresholds:
    """What fails a frame. ``mu``: friction coefficient of every contact; ``tolerance``
    (m): how near the surface a point touches; ``torque_margin``: the share of each effort
    limit kept in reserve (0.1: a torque beyond 90 % of its limit fails); ``slip`` (m): the
    travel along the surface of a loaded contact in one frame step that fails; ``loaded``:
    the share of the robot's weight above which a contact carries load."""

    mu: float = MU
    tolerance: float = TOLERANCE
    torque_margin: float = 0.0
    slip: float = 0.0005
    loaded: float = 0.01


@dataclass
class StaticsReport:
    """The per-frame figures of :func:`check_poses_steps` (see the module doc). Arrays have a
    row per frame; ``torque`` and ``ratio`` a column per motor (``motors``: their labels,
    ``effort``: their limits, 0: none given)."""

    frames: list
    motors: list
    effort: np.ndarray
    thresholds: Thresholds
    balanced: np.ndarray
    margin: np.ndarray
    unsupported: np.ndarray  # (n, 2): force (N), moment (N m)
    worst: np.ndarray
    torque: np.ndarray
    ratio: np.ndarray
    load: dict = field(default_factory=dict)  # group -> (n,) N
    slip: dict = field(default_factory=dict)  # group -> (n,) m, made since the frame before
    lift_off: list = field(default_factory=list)  # (frame, group) a loaded contact left
    group_links: dict = field(default_factory=dict)  # group -> the link it touches with
    converged: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    weight: float = 0.0

    def total_slip(self) -> dict:
        """Group -> its loaded slip over the range (m)."""
        return {g: float(s.sum()) for g, s in self.slip.items()}

    def failures(self) -> dict:
        """Frame -> the reasons it fails, for the failing frames: a list of ``(kind, text)``,
        kind ``balance``, ``torque`` or ``slip``, text a short sentence."""
        out: dict = {}
        limit = 1.0 - self.thresholds.torque_margin
        for i, f in enumerate(self.frames):
            why = []
            if not self.balanced[i]:
                why.append(("balance", f"not balanced (centre of mass {self.margin[i] * 1e3:+.1f}"
                            " mm from the support's edge)" if np.isfinite(self.margin[i])
                            else "not balanced"))
            over = np.flatnonzero(self.ratio[i] > limit)
            if len(over):
                k = int(over[np.argmax(self.ratio[i][over])])
                why.append(("torque", f"{len(over)} joints over {limit:.0%} of their limit "
                                      f"({self.motors[k]} {self.ratio[i][k]:.0%})"))
            slid = [(g, s[i]) for g, s in self.slip.items() if s[i] > self.thresholds.slip]
            if slid:
                g, s = max(slid, key=lambda gs: gs[1])
                why.append(("slip", f"{len(slid)} loaded contacts slide ({g} {s * 1e3:.1f} mm)"))
            if why:
                out[f] = why
        return out

    def worst_joints(self, most: int = 5) -> list[tuple[str, float, int]]:
        """(motor, its largest share of its limit, the frame) for the motors with a limit,
        worst first."""
        out = []
        for k, name in enumerate(self.motors):
            r = self.ratio[:, k]
            if self.effort[k] > 0 and np.isfinite(r).any():
                i = int(np.nanargmax(r))
                out.append((name, float(r[i]), self.frames[i]))
        return sorted(out, key=lambda t: -t[1])[:most]

    def summary(self, most: int = 3) -> str:
        """One paragraph: balance, the worst torque, slip, the failing frames."""
        n = len(self.frames)
        bad = self.failures()
        parts = []
        unbalanced = [f for f, b in zip(self.frames, self.balanced) if not b]
        parts.append("balanced at every frame" if not unbalanced else
                     f"NOT balanced at frames {frame_ranges(unbalanced)}")
        m = self.margin[np.isfinite(self.margin)]
        if len(m):
            parts.append(f"least margin {m.min() * 1e3:.1f} mm")
        worst = self.worst_joints(most)
        if worst:
            parts.append("peak torque " + ", ".join(f"{j} {r:.0%} (frame {f})"
                                                    for j, r, f in worst))
        free = [k for k, e in enumerate(self.effort) if e <= 0]
        if free:
            k = max(free, key=lambda k: np.abs(self.torque[:, k]).max(initial=0.0))
            parts.append(f"{len(free)} joints without a limit (largest {self.motors[k]} "
                         f"{np.abs(self.torque[:, k]).max(initial=0.0):.3g})")
        slip = self.total_slip()
        if slip and sum(slip.values()) >= 0.5e-4:  # shows as 0.1 mm or more
            g = max(slip, key=lambda k: slip[k])
            parts.append(f"loaded slip {sum(slip.values()) * 1e3:.1f} mm in all, most "
                         f"{slip[g] * 1e3:.1f} mm ({g})")
        elif slip:
            parts.append("no loaded slip")
        if self.lift_off:
            parts.append(f"{len(self.lift_off)} loaded lift-offs")
        head = (f"Statics of {n} frames: " + ("every frame passes" if not bad else
                                               f"{len(bad)} frames fail "
                                               f"({frame_ranges(bad)})"))
        return head + ". " + ", ".join(parts)


def check_poses_steps(model: StaticModel, frames, poses, points: dict, pins=(), *,
                      thresholds: Thresholds | None = None, surface=None, known=None):
    """Check ``poses`` (one dict link -> ``T_world_link`` per entry of ``frames``; a list or
    any iterable, read one frame at a time) as the module doc says: a generator yielding
    ``(frames done, frames)`` after each frame and returning the :class:`StaticsReport`.
    ``points``: link -> candidate contact points (n, 3) in its frame; ``pins``:
    :class:`.ground_contacts.Pin`; ``known``: per frame, joint -> torque (see
    :func:`.statics.solve_pose`), or None."""
    th = thresholds or Thresholds()
    frames = list(frames)
    n, nm = len(frames), len(model.motors)
    rep = StaticsReport(frames, model.labels(model.motors),
                        np.array([model.dofs[d].effort for d in model.motors]), th,
                        np.zeros(n, bool), np.full(n, np.nan), np.zeros((n, 2)), np.zeros(n),
                        np.zeros((n, nm)), np.full((n, nm), np.nan), converged=np.zeros(n, bool),
                        weight=model.weight)
    loaded = th.loaded * model.weight
    before = None  # the previous frame's (poses, groups, loads)
    for i, (f, P) in enumerate(zip(frames, poses)):
        contacts, touches = find_contacts(P, points, pins, surface=surface,
                                          tolerance=th.tolerance, mu=th.mu)
        st = solve_pose(model, P, contacts, None if known is None else known[i])
        rep.balanced[i], rep.margin[i], rep.worst[i] = st.balanced, st.margin, st.worst
        rep.unsupported[i] = (st.unsupported_force, st.unsupported_moment)
        rep.torque[i], rep.ratio[i], rep.converged[i] = st.torque, st.ratio, st.converged
        loads: dict = {}
        for c, fn in zip(contacts, st.normal):
            loads[c.name] = loads.get(c.name, 0.0) + float(fn)
        for g, load in loads.items():
            rep.load.setdefault(g, np.zeros(n))[i] = load
            rep.group_links[g] = touches[g].link
        if before is not None:
            P0, touches0, loads0 = before
            for g, touch in touches0.items():
                if g not in touches:
                    if loads0[g] > loaded:
                        rep.lift_off.append((f, g))
                    continue
                if max(loads0[g], loads[g]) > loaded:
                    rep.slip.setdefault(g, np.zeros(n))[i] = group_slip(
                        touch, P0[touch.link], P[touch.link])
        before = (P, touches, loads)
        yield i + 1, n
    for g in rep.load:
        rep.slip.setdefault(g, np.zeros(n))
    return rep
