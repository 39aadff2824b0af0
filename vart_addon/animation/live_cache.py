"""What live mode remembers of a scene (:class:`LiveCache`) and when it forgets it.

Live mode (:mod:`.live`) solves frame after frame as the bake does (:mod:`.frame_step`), so
frame ``f``'s pose depends on the scene's goals and structure, on the solver settings, on the
chain's start (the scene's first frame, and the *seed*: the configuration the chain starts
from) and on the animated values of frames ``start..f``. The cache holds the solved frames
``start..last`` (always a run without gaps) and forgets:

- every frame, when anything but animated values changed: a goal, a joint or link (added,
  removed, retyped...), the solver settings or gravity, the scene's start frame, which
  F-curves animate the links (a curve keyed, deleted, muted), or a driver on a vart property;
- frames from ``f`` on, when an animated value at frame ``f`` changed (a key edited, moved,
  retimed, its interpolation or handles changed): :meth:`LiveCache.validate` samples the
  curves that changed at the remembered frames and finds the first frame that differs.

Signatures are taken at every frame change: every link's ``["vart"]`` properties without the
values that live mode writes (joints' ``q``) or that animation drives (the animated paths),
read again only when something may have edited them (:mod:`.shared.edit_count`), and a
fingerprint of each animating F-curve (its keys and handles, interpolation, extrapolation,
modifiers). Curves of the bake's channel group
(:data:`BAKE_GROUP`) are output, not input: :func:`scan` mutes them (live mode shows the
solver's poses, not an earlier bake's keys).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bridge import animation as A
from ..bridge import schema as S
from ..solver import SolveStatus
from .frame_step import FrameSolver

BAKE_GROUP = A.BAKE_GROUP
_PATH_KEY = re.compile(r'\["([^"]*)"\]')


@dataclass
class LiveFrame:
    """One solved frame: the model's configuration (``Model.q_from_joints``), the solve's
    status and the goals unmet there; once shown, the closures' fitted q
    (``WriteReport.closure_q``: showing it again writes them without fitting again)."""

    q: np.ndarray
    status: SolveStatus
    unmet: list
    alone: bool = False  # solved straight from an earlier frame, not remembered (live.py)
    closure_q: dict | None = None


@dataclass
class LiveCache:
    """Live mode's memory of one scene (see the module doc). ``seed``: ``(structure key,
    configuration, placement)`` the chains start from: the configuration vector of the
    linkage of that structure, and where it puts the links in any spanning tree
    (:func:`~vart_addon.bridge.joint_values.placement`), kept while the links stay the same;
    ``frames``: frame -> :class:`LiveFrame` (``start..last``, no gaps); ``samples``: per
    animating curve, frame -> its value there (what the frame was solved with); ``solver``:
    the :class:`.frame_step.FrameSolver` of the running chain (None: start one)."""

    start: int | None = None
    seed: tuple | None = None
    frames: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)
    fingerprints: dict = field(default_factory=dict)
    static: tuple | None = None
    solver: FrameSolver | None = None
    shown: tuple | None = None   # (frame, summary) last written to the status
    links: tuple = ((), [])      # (what they were read under, link_properties)

    @property
    def last(self) -> int | None:
        """The last remembered frame (None: none)."""
        if not self.frames or self.start is None:
            return None
        return self.start + len(self.frames) - 1

    def forget_from(self, frame: int) -> list:
        """Forget frames ``frame`` and later; returns the forgotten frames."""
        gone = sorted(f for f in self.frames if f >= frame)
        for f in gone:
            del self.frames[f]
            for values in self.samples.values():
                values.pop(f, None)
        if not self.frames:
            self.solver = None
        return gone

    def forget(self) -> list:
        """Forget every frame (the seed stays)."""
        gone = sorted(self.frames)
        self.frames.clear()
        self.samples.clear()
        self.solver = None
        return gone

    def remember(self, frame: int, q, status, unmet, curves: dict) -> None:
        """Record a solved ``frame`` (the next after :attr:`last`) and what each animating
        curve gave there."""
        self.frames[frame] = LiveFrame(np.array(q, float), status, list(unmet))
        for key, fc in curves.items():
            self.samples.setdefault(key, {})[frame] = fc.evaluate(float(frame))

    def static_signature(self, obs: dict, curves: dict, driven: tuple, extra: tuple,
                         edits) -> tuple:
        """What every frame depends on besides the animated values: :func:`link_properties`,
        the driven paths and ``extra`` (settings, start frame...). The links' properties are
        read again only when ``edits`` (:func:`.shared.edit_count.edit_count`),
        the link objects' names or the animating curves changed since they were last read
        (reading them costs ~13 us per link)."""
        under = (edits, tuple(obs), tuple(curves), driven)
        if under != self.links[0]:
            self.links = (under, link_properties(obs, curves, driven))
        return (extra, driven, self.links[1])

    def validate(self, static: tuple, curves: dict) -> list:
        """Compare the scene's signatures with the remembered ones (see the module doc) and
        forget what they invalidate; returns the forgotten frames."""
        prints = {key: fingerprint(fc) for key, fc in curves.items()}
        if static != self.static or set(prints) != set(self.fingerprints):
            gone = self.forget()
        else:
            first = None
            for key, fp in prints.items():
                if fp == self.fingerprints[key]:
                    continue
                ev = curves[key].evaluate
                for f, v in sorted(self.samples.get(key, {}).items()):
                    if first is not None and f >= first:
                        break
                    if ev(float(f)) != v:
                        first = f
                        break
            gone = [] if first is None else self.forget_from(first)
        self.static, self.fingerprints = static, prints
        return gone


# ---- signatures -------------------------------------------------------------------------------
def fingerprint(fc) -> tuple:
    """What an F-curve's values depend on: its keys (frame, value, handles, interpolation,
    easing), extrapolation, modifiers (type, mute and influence) and mute flag."""
    kp = fc.keyframe_points
    n = len(kp)
    arrays = []
    for attr in ("co", "handle_left", "handle_right"):
        a = np.empty(2 * n, dtype=np.float32)
        kp.foreach_get(attr, a)
        arrays.append(a.tobytes())
    for attr in ("interpolation", "easing"):
        e = np.empty(n, dtype=np.int32)
        kp.foreach_get(attr, e)
        arrays.append(e.tobytes())
    mods = tuple((m.type, m.mute, m.influence if m.use_influence else 1.0)
                 for m in fc.modifiers)
    return (fc.extrapolation, fc.mute, mods, *arrays)


def scan(obs: dict) -> tuple[dict, tuple]:
    """The animating curves of the link objects ``obs`` (name -> object): ``{(object,
    data_path, index): fcurve}`` of every unmuted curve with keys or modifiers outside the
    bake's channel group, and the data paths of vart properties driven by drivers. Curves of
    the bake's group are muted here."""
    curves = {}
    driven = []
    for n in sorted(obs):
        ob = obs[n]
        for fc in A.fcurves_of(ob):
            if A.group_of(fc) == BAKE_GROUP:
                if not fc.mute:
                    fc.mute = True
                continue
            if A.animates(fc):
                curves[(n, fc.data_path, fc.array_index)] = fc
        ad = ob.animation_data
        if ad is not None:
            driven += [(n, d.data_path, d.array_index) for d in ad.drivers
                       if d.data_path.startswith(f'["{S.KEY}"]') and not d.mute]
    return curves, tuple(driven)


def unmute_bake_curves(obs: dict) -> int:
    """Unmute every curve of the bake's channel group on the link objects ``obs``; returns
    how many were muted."""
    n = 0
    for ob in obs.values():
        for fc in A.fcurves_of(ob):
            if fc.mute and A.group_of(fc) == BAKE_GROUP:
                fc.mute = False
                n += 1
    return n


def link_properties(obs: dict, curves: dict, driven: tuple) -> list:
    """Every link's ``["vart"]`` properties (as plain data, ``(name, dict)`` by name) without
    its joints' ``q`` (live mode writes them) and without the animated or driven paths
    (their values are followed frame by frame)."""
    animated: dict = {}
    for n, path, _i in list(curves) + list(driven):
        if path.startswith(f'["{S.KEY}"]'):
            animated.setdefault(n, []).append(_PATH_KEY.findall(path)[1:])
    parts = []
    for n in sorted(obs):
        raw = obs[n].get(S.KEY)
        d = raw.to_dict() if hasattr(raw, "to_dict") else repr(raw)
        if isinstance(d, dict):
            for j in d.get("joints", {}).values():
                if isinstance(j, dict):
                    j.pop("q", None)
            for keys in animated.get(n, ()):
                _drop(d, keys)
        parts.append((n, d))
    return parts


def _drop(d: dict, keys: list) -> None:
    """Remove ``d[k0][k1]...`` if present."""
    node: Any = d
    for k in keys[:-1]:
        node = node.get(k) if isinstance(node, dict) else None
        if node is None:
            return
    if keys and isinstance(node, dict):
        node.pop(keys[-1], None)
