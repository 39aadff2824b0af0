"""The kinds of goals, each declared once: what it is stored in, when a joint or link has it,
which DoF can change it (its support), its priority level and the batch that evaluates it.

:mod:`.topology` turns a linkage into solve groups by looping over :data:`KINDS`; the edit
functions that invert a joint or change its type treat the configuration fields listed here
(``q_fields``); statuses and bakes read a goal's level from its :class:`~.levels.GoalId`.

A kind a user sets (``values``: a lock, a target, a spring...) declares its values here too
(:class:`.goal_values.Value`: configurations, masks, scalars, vectors, poses); from that
declaration come its storage (:mod:`.goal_store`: the owner's ``goals`` dict), the solver's
``set_goal`` / ``clear_goal``, the model file's field, and in Blender the stored keys, the
sidebar row and the *Set* / *Clear* operators. A new kind of goal is a batch class in
:mod:`.goals` (its error rows and Jacobian; a family of them may have a module of its own
beside it, as :mod:`.balance`) and one :class:`GoalKind` here.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Callable, Optional

import numpy as np

from . import balance as B
from . import goal_store as GS
from . import goals as G
from . import keep_configuration as KC
from . import static_torque as ST
from .errors import VartError
from .goal_values import Value
from .levels import CHOOSABLE, GoalId, Level, by_level, chosen_level
from .parts import Joint
from .planar import IN_PLANE, is_planar_closure


@dataclass(frozen=True)
class Context:
    """What batch builders may need beyond the model and the goals: the linkage, gravity
    (m/s^2, world), the potential's row scale ``tau`` (see :class:`.goals.GravityBatch`) and
    the links' world poses at the start of the solve (the planar loops' test)."""

    linkage: object
    gravity: Optional[np.ndarray]
    tau: float
    T_world: np.ndarray


@dataclass(frozen=True)
class GoalKind:
    """One kind of goal.

    ``owner``: "joint" or "link" (the objects ``present`` and ``build`` receive).
    ``present(linkage, obj)``: whether ``obj`` has this goal now.
    ``build(model, objs, cols, context)``: the batches evaluating the goals of ``objs`` (all of
    one joint type and tree-ness when ``by_type``) over the DoF columns ``cols``.
    ``support(linkage, model, obj, default)``: the support mask when the goal depends on more
    than its joint or link (a mimic's leader too; a robot's centre of mass); ``default`` is
    the joint's own support (a link's: the DoF above it).
    ``q_fields``: the :class:`~.parts.Joint` fields holding configurations in the joint's
    layout (inverted with the joint, dropped when its layout changes); ``fields``: its other
    storage.

    A kind a user sets has ``values`` (what *Set* gives it, :mod:`.goal_values`), a ``label``
    and ``help`` for the sidebar and its operators; ``one_dof``: only on 1-DoF joints;
    ``toggle``: shown as a switch (*Lock*) rather than a row of values. ``get(obj)`` (its
    values or None), ``put(lk, obj, values)`` and ``clear(lk, obj)`` default to the owner's
    ``goals`` dict (:mod:`.goal_store`); ``current(lk, obj)`` gives the values whose source
    is ``"current"``.
    """

    name: str
    level: Level
    owner: str
    present: Callable
    build: Callable
    by_type: bool = True
    support: Optional[Callable] = None
    q_fields: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    values: tuple[Value, ...] = ()
    label: str = ""
    help: str = ""
    one_dof: bool = False
    toggle: bool = False
    get: Optional[Callable] = None
    put: Optional[Callable] = None
    clear: Optional[Callable] = None
    current: Callable = GS.current

    def read(self, obj) -> Optional[dict]:
        """The values of this goal on ``obj`` (a Joint or Link), or None when it has none."""
        return GS.get(self, obj) if self.get is None else self.get(obj)

    def set(self, lk, obj, values: dict) -> None:
        """Set this goal on ``obj`` (checked first; nothing changes on error)."""
        if self.one_dof and getattr(obj, "dof", 1) != 1:
            raise VartError(f"{obj.label()}: {self.label.lower() or self.name}s are for "
                            f"1-DoF joints, this one has {obj.dof}")
        GS.put(self, lk, obj, values) if self.put is None else self.put(lk, obj, values)

    def unset(self, lk, obj) -> None:
        """Remove this goal from ``obj``."""
        GS.clear(self, lk, obj) if self.clear is None else self.clear(lk, obj)

    def goal_id(self, obj) -> GoalId:
        """The :class:`GoalId` of this goal on ``obj``, as its batch names it: on a joint, by
        the joint's label; on a link, by its root joint's (``root joint of link 'x'``); at
        the level its ``level`` value chose, if it has one, else the kind's."""
        owner = obj.label() if self.owner == "joint" else f"root joint of link {obj.name!r}"
        return GoalId(self.name, owner, chosen_level(obj, self.name, self.level))


# ---- batch builders ---------------------------------------------------------------------------
def _invariant(model, joints, cols, ctx):
    planar = [is_planar_closure(model, j, ctx.T_world) for j in joints]
    out = []
    for flag in (False, True):
        part = [j for j, p in zip(joints, planar) if p == flag]
        if part:
            out.append(G.InvariantBatch(model, part, cols, IN_PLANE if flag else None))
    return out


def _config(kind: str, level: Level, attr: str, mask: Optional[str] = None):
    """A builder of :class:`.goals.ConfigBatch` es on ``attr`` (every DoF, or ``mask``'s)."""
    def build(model, joints, cols, ctx):
        m = ([getattr(j, mask) for j in joints] if mask else
             np.ones((len(joints), joints[0].dof)))
        return [G.ConfigBatch(level, kind, model, joints, cols, attr, m)]
    return build


def _spring(model, joints, cols, ctx):
    w = np.sqrt(ctx.tau * np.array([j.stiffness for j in joints]))
    return [G.ConfigBatch(Level.POTENTIAL, "spring", model, joints, cols, "rest_q",
                          np.ones((len(joints), 1)), weight=w)]


def _mimic_support(linkage, model, j, default):
    return default | model_support(model, linkage.joints[j.mimic[0]])


def _mimic(model, joints, cols, ctx):
    pairs = [(j, ctx.linkage.joints[j.mimic[0]], j.mimic[1], j.mimic[2]) for j in joints]
    return [G.MimicBatch(model, pairs, cols)]


def _has_limits(linkage, j) -> bool:
    return not j.is_tree and bool(np.isfinite(j.lower).any() or np.isfinite(j.upper).any())


def _pulls(linkage, link) -> bool:
    return link.mass > 0 and linkage.gravity is not None and bool(np.any(linkage.gravity))


def model_support(model, j) -> np.ndarray:
    """The tree DoF that can change joint ``j``'s relative pose: its own DoF for a tree joint,
    else the joints on the paths from the lowest common ancestor of its links to each."""
    if j.is_tree:
        s = np.zeros(model.n_dof, bool)
        s[model.slice_of(j)] = True
        return s
    a = model.anc_sign[model.index[j.child]]
    b = model.anc_sign[model.index[j.parent]]
    return (a - b) != 0


def _com(kind: str, plane: bool):
    """A builder of :class:`.balance.ComTargetBatch` es (``plane``: in the ground plane), one
    per level the goals are at."""
    def build(model, links, cols, ctx):
        axes = B.SP.plane_axes(ctx.linkage.gravity) if plane else None
        return [B.ComTargetBatch(kind, model, ctx.linkage, hosts, cols, axes, level)
                for level, hosts in by_level(kind, links).items()]
    return build


def _balance(model, links, cols, ctx):
    return [B.BalanceBatch(model, ctx.linkage, hosts, cols, ctx.linkage.gravity, level)
            for level, hosts in by_level("balance", links).items()]


def _level(default: Level) -> Value:
    """The priority level a goal is met at, chosen per goal (:data:`.levels.CHOOSABLE`)."""
    return Value("level", "choice", "Level", source="ask", default=(default.label,),
                 choices=CHOOSABLE)


def _keep_put(lk, link, values: dict) -> None:
    """Set Keep Configuration, on the arm's branch now unless ``values`` give one."""
    GS.put(KIND[KC.KIND], lk, link, KC.with_branch(lk, link, values))


_Q = Value("q", "config", "Value")
_COM_POINT = Value("point", "vector", "Point", "m", frame="world", source="cursor")
_MASK = Value("mask", "mask", "DoF")

#: Every kind of goal, highest level first.
KINDS: tuple[GoalKind, ...] = (
    GoalKind("invariant", Level.INVARIANT, "joint",
             lambda lk, j: not j.is_tree and j.jtype.n_invariants > 0, _invariant),
    GoalKind("mimic", Level.INVARIANT, "joint", lambda lk, j: j.mimic is not None, _mimic,
             by_type=False, support=_mimic_support, fields=("mimic",)),
    GoalKind("limit", Level.LIMIT, "joint", _has_limits,
             lambda model, js, cols, ctx: [G.LimitBatch(model, js, cols)],
             fields=("lower", "upper")),
    GoalKind("balance", Level.LIMIT, "link", lambda lk, link: "balance" in link.goals,
             _balance, by_type=False, support=B.robot_support, label="Balance",
             values=(Value("margin", "scalar", "Margin", "m", nonneg=True, source="ask",
                           default=(0.02,)), _level(Level.LIMIT)),
             help="Keep the centre of mass of the link's robot over the support polygon of "
                  "its pins, moved in by a margin (an inequality, at the limit level)"),
    GoalKind("torque_limit", Level.LIMIT, "joint",
             lambda lk, j: "torque_limit" in j.goals and j.is_tree,
             lambda model, js, cols, ctx: [
                 ST.StaticTorqueBatch(model, ctx.linkage, group, cols, level)
                 for level, group in by_level("torque_limit", js).items()],
             by_type=False, support=ST.joint_support, one_dof=True, label="Torque Limit",
             values=(Value("effort", "scalar", "Effort", "N|N\u00b7m", nonneg=True,
                           source="ask", default=(10.0,)), _level(Level.LIMIT)),
             help="Keep the joint's static torque (holding what is beyond it against "
                  "gravity) within an effort limit, as a joint limit (the limit level)"),
    GoalKind(KC.KIND, Level.LIMIT, "link", lambda lk, link: KC.KIND in link.goals, KC.build,
             by_type=False, label="Keep Configuration",
             values=(Value("branch", "vector", "Branch", size=KC.MAX_SIGNS, signs=True),
                     Value("margin", "scalar", "Margin", nonneg=True, source="ask",
                           default=(0.05,)), _level(Level.LIMIT)),
             help="Keep the link's arm on its current IK branch (shoulder, elbow and wrist "
                  "sides): an inequality, at the limit level, so it never flips",
             put=_keep_put, current=KC.current),
    GoalKind("lock", Level.LOCK, "joint", lambda lk, j: j.lock_q is not None,
             _config("lock", Level.LOCK, "lock_q"), q_fields=("lock_q",),
             values=(_Q,), label="Lock", toggle=True,
             help="Hold at its current value (the lock level, above springs and targets)",
             get=GS.lock_get, put=GS.lock_put, clear=GS.lock_clear),
    GoalKind("spring", Level.POTENTIAL, "joint",
             lambda lk, j: j.stiffness > 0 and j.rest_q is not None, _spring,
             q_fields=("rest_q",), fields=("stiffness",),
             values=(Value("stiffness", "scalar", "Stiffness", "N/m|N\u00b7m/rad", nonneg=True,
                           source="ask", default=(1.0,)), Value("rest", "config", "Rest")),
             label="Spring", one_dof=True,
             help="A linear spring resting at the current value (N/m or N m/rad)",
             get=GS.spring_get, put=GS.spring_put, clear=GS.spring_clear),
    GoalKind("gravity", Level.POTENTIAL, "link", _pulls,
             lambda model, links, cols, ctx: [G.GravityBatch(model, links, cols, ctx.gravity,
                                                             ctx.tau)],
             by_type=False, fields=("mass", "com")),
    GoalKind("target", Level.TARGET, "joint", lambda lk, j: j.target_q is not None,
             _config("target", Level.TARGET, "target_q", mask="target_mask"),
             q_fields=("target_q",), fields=("target_mask",),
             values=(_Q, _MASK), label="Target",
             help="Drive toward the current value (every DoF) at the target level",
             get=GS.target_get, put=GS.target_put, clear=GS.target_clear),
    GoalKind("look_at", Level.TARGET, "link", lambda lk, link: "look_at" in link.goals,
             lambda model, links, cols, ctx: [G.LookAtBatch(model, links, cols)],
             by_type=False, label="Look At",
             values=(Value("axis", "vector", "Axis", frame="link", source="ask",
                           default=(0.0, 0.0, -1.0), direction=True),
                     Value("point", "vector", "Point", "m", frame="world", source="cursor")),
             help="Point an axis of the link (its -Z, a camera's view, by default) from its "
                  "origin at the 3D cursor (target level)"),
    GoalKind("com_target", Level.TARGET, "link", lambda lk, link: "com_target" in link.goals,
             _com("com_target", False), by_type=False, support=B.robot_support,
             label="CoM Target", values=(_COM_POINT, _level(Level.TARGET)),
             help="Hold the centre of mass of the link's robot at the 3D cursor (target level)"),
    GoalKind("com_over", Level.TARGET, "link", lambda lk, link: "com_over" in link.goals,
             _com("com_over", True), by_type=False, support=B.robot_support,
             label="CoM Over", values=(_COM_POINT, _level(Level.TARGET)),
             help="Hold the centre of mass of the link's robot on the vertical line through "
                  "the 3D cursor (target level)"),
    GoalKind("posture", Level.POSTURE, "joint", lambda lk, j: j.posture_q is not None,
             _config("posture", Level.POSTURE, "posture_q"), q_fields=("posture_q",),
             values=(_Q,), label="Posture",
             help="The default pose that breaks ties in redundant mechanisms (lowest level)",
             get=GS.posture_get, put=GS.posture_put, clear=GS.posture_clear),
)
#: The kinds by name.
KIND = {k.name: k for k in KINDS}


def settable(owner: str) -> tuple[GoalKind, ...]:
    """The kinds a user sets on a ``owner`` ("joint" or "link"), in :data:`KINDS` order."""
    return tuple(k for k in KINDS if k.values and k.owner == owner)


#: Configuration fields of every joint goal (in the joint's layout).
Q_FIELDS: tuple[str, ...] = tuple(f for k in KINDS for f in k.q_fields)


_JOINT_DEFAULTS = {f.name: f.default for f in fields(Joint) if f.default is not MISSING}


def clear_configuration_goals(joint: Joint) -> None:
    """Remove every goal of ``joint`` stored as configurations in its layout (locks, springs,
    targets, postures, and any kind with a ``config`` or ``mask`` value), as when its type
    changes to another layout."""
    for kind in KINDS:
        if kind.q_fields:
            for name in kind.q_fields + kind.fields:
                setattr(joint, name, _JOINT_DEFAULTS[name])
        elif any(v.kind in ("config", "mask") for v in kind.values):
            joint.goals.pop(kind.name, None)
