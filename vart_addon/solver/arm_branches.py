"""An arm's IK branches: which configuration (shoulder, elbow, wrist) it is in, and how well
it can move there.

The **arm** of a link (a tool: UR5's ``tool0``, a flange) is the chain of 1-DoF tree joints
(revolute, prismatic, helical) from the robot's root up to that link (:func:`arm_joints`),
in that order. A free base's root joint and joints of more DoF on the way are not part of it.

A pose of the link is usually reached by several configurations of the arm: its **branches**
(a UR arm's shoulder left or right, elbow up or down, wrist flipped or not: eight). Going
from one to another continuously means passing through a *singularity*, where the arm's
Jacobian loses rank. So a branch is named by the signs of a few *sign quantities*, each
zero exactly at a singularity (:class:`Arm`, quantities in this order):

- **shoulder** (arms with at least four revolute joints whose first two axes are not
  parallel): the signed distance of the *wrist centre* ``w`` from the plane through the
  first revolute axis spanned by the first two, ``n . (w - o_1) / L`` with
  ``n = z_1 x z_2 / |z_1 x z_2|`` and ``L`` the arm's length (the sum of the distances
  between its joints' origins, m), so it is dimensionless. The wrist centre is the point of
  the last revolute axis nearest the one before it (where they meet on UR's and spherical
  wrists). On a UR arm it is zero exactly at the shoulder singularity;
- **elbow** and **wrist**: ``sin(q_j)`` for every revolute joint ``j`` at which the arm's
  6 x n Jacobian loses rank both at ``q_j = 0`` and at ``q_j = pi``, whatever the other joints
  (found numerically at a few random configurations, and required to be full rank at the
  sample's own ``q_j``): UR's elbow and middle wrist joint. Among the last three joints it is
  the wrist, before them the elbow (several such joints before the wrist are named by their
  joint).

The **branch** (:func:`branch_of`) is the tuple of their signs (+1, -1, or 0 exactly at the
singularity). The *Keep Configuration* goal (:mod:`.keep_configuration`) keeps each on its
side; :mod:`.arm_solutions` finds a pose's solutions, one per branch and more.

A redundant arm (Panda, 7 DoF) has few such quantities: its joint 4 and 6 do not lose rank at
0 (offsets), so its branch is its shoulder's side alone, and its solutions for one pose form
continuous families that :mod:`.arm_solutions` samples.

Frames and units: world poses ``T_world_link``; joint values in rad (m for prismatic).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .errors import VartError

#: The most sign quantities a *Keep Configuration* goal stores (a shoulder and seven joints).
MAX_SIGNS = 8
#: A quantity this close to zero is at its singularity: its sign is 0.
AT_SINGULARITY = 1e-9
#: A Jacobian whose smallest singular value is below this share of its largest has lost rank.
RANK_LOSS = 1e-7
#: Random configurations the singular joints are found at (a fixed seed: the same arm always
#: gets the same quantities).
_SAMPLES, _SEED = 3, 20240933


def arm_joints(lk, link: str) -> list:
    """The arm of ``link``: its 1-DoF tree joints from the robot's root up to the link (the
    :class:`~.parts.Joint` s, root first). VartError if it has none."""
    lk.link(link)
    out = []
    cur: Optional[str] = link
    while cur is not None:
        e = lk.tree_edge[cur]
        if e.dof == 1 and not e.is_root:
            out.append(e)
        cur = lk.tree_parent(cur)
    if not out:
        raise VartError(f"link {link!r} has no arm: no 1-DoF tree joint between it and the "
                        "ground")
    return out[::-1]


def _axis(model, j) -> tuple[int, np.ndarray, np.ndarray]:
    """A 1-DoF tree joint's axis as ``(link index, z, origin)``: fixed in the link on its
    ground side (model index, 0 for the ground), in that link's frame."""
    if j.tree_dir > 0:
        return model.index[j.parent], j.T_parent_mob[:3, 2].copy(), j.T_parent_mob[:3, 3].copy()
    return model.index[j.child], j.T_child_frame[:3, 2].copy(), j.T_child_frame[:3, 3].copy()


@dataclass(frozen=True)
class Shoulder:
    """The shoulder quantity's geometry (see the module doc): the first two revolute axes,
    each ``(link index, z, origin)`` in its ground-side link's frame, the wrist centre
    ``(link index, point in its frame)``, and the arm's length ``L`` (m)."""

    a: tuple
    b: tuple
    wrist: tuple
    length: float

    def value(self, T: np.ndarray) -> float:
        """``n . (w - o_1) / L`` at world poses ``T`` (the model's links)."""
        za, oa = world_axis(T, self.a)
        zb, _ = world_axis(T, self.b)
        n = np.cross(za, zb)
        w = world_point(T, self.wrist)
        return float(n.dot(w - oa) / (np.linalg.norm(n) * self.length))


def world_axis(T, axis) -> tuple[np.ndarray, np.ndarray]:
    """An axis ``(link index, z, origin)`` (see :func:`_axis`) in the world at the model's
    link poses ``T``: its direction and a point on it (m)."""
    k, z, o = axis
    return T[k, :3, :3].dot(z), T[k, :3, :3].dot(o) + T[k, :3, 3]


def world_point(T, point) -> np.ndarray:
    """A point ``(link index, point in its frame)`` in the world at link poses ``T`` (m)."""
    k, p = point
    return T[k, :3, :3].dot(p) + T[k, :3, 3]


@dataclass(frozen=True)
class Arm:
    """A link's arm analysed on one compiled model (:func:`arm_of`): ``link`` and its model
    index ``tool``; ``names`` of its joints (root first) and their configuration indices
    ``qidx``; ``angular`` per joint; ``signs``: the arm-joint indices of the ``sin(q_j)``
    quantities; ``shoulder`` (or None); ``kinds``: each quantity's name ("shoulder",
    "elbow", "wrist", or a joint's name); ``axes``: each joint's axis (see :func:`_axis`)."""

    link: str
    tool: int
    names: tuple
    qidx: np.ndarray
    angular: np.ndarray
    signs: np.ndarray
    shoulder: Optional[Shoulder]
    kinds: tuple
    axes: tuple

    @property
    def quantities(self) -> tuple:
        """``(kind, arm-joint index or None)`` per sign quantity, in order."""
        joints = ((None,) if self.shoulder is not None else ()) + tuple(self.signs.tolist())
        return tuple(zip(self.kinds, joints))

    def values(self, T: np.ndarray, q: np.ndarray) -> np.ndarray:
        """The sign quantities (dimensionless) at the model's full configuration ``q`` with
        world poses ``T``."""
        s = np.sin(q[self.qidx[self.signs]])
        return s if self.shoulder is None else np.concatenate([[self.shoulder.value(T)], s])

    def full_q(self, model, q_arm=None) -> np.ndarray:
        """The model's configuration with the arm's joints at ``q_arm`` (root first; None:
        as they are now) and the others as they are now."""
        q = model.q_from_joints()
        if q_arm is not None:
            q[self.qidx] = np.asarray(q_arm, float).reshape(-1)
        return q

    def jacobian(self, model, q: np.ndarray) -> np.ndarray:
        """(6, n): the link's velocity (its origin's, m/s, then its angular velocity, rad/s;
        world frame) per unit speed of each arm joint, at the full configuration ``q``."""
        T, motions = model.fk(q, with_motion=True)
        S = model.twists(T, q, motions)[:, self.qidx] * model.anc_sign[self.tool, self.qidx]
        p = T[self.tool, :3, 3]
        return np.vstack([S[:3] + np.cross(S[3:].T, p).T, S[3:]])


# ---- analysis ---------------------------------------------------------------------------------
_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def arm_of(lk, link: str) -> Arm:
    """The :class:`Arm` of ``link`` on ``lk``'s current model; kept until the linkage's
    topology changes (finding the singular joints takes some Jacobians)."""
    model = lk.model()
    per_link = _CACHE.setdefault(lk, {})
    got = per_link.get(link)
    if got is None or got[0] != lk.topology_version:
        got = per_link[link] = (lk.topology_version, _analyse(lk, model, link))
    return got[1]


def _rank_lost(J: np.ndarray) -> bool:
    s = np.linalg.svd(J, compute_uv=False)
    r = min(J.shape) - 1
    return bool(s[r] <= RANK_LOSS * max(s[0], 1e-300))


def _singular_at_zero_and_pi(arm: Arm, model, i: int, samples) -> bool:
    """Whether the arm loses rank at ``q_i = 0`` and at ``q_i = pi`` at every sample (and not
    at the sample's own ``q_i``)."""
    k = arm.qidx[i]
    for q in samples:
        if _rank_lost(arm.jacobian(model, q)):
            return False
        for v in (0.0, np.pi):
            qv = q.copy()
            qv[k] = v
            if not _rank_lost(arm.jacobian(model, qv)):
                return False
    return True


def _samples(arm: Arm, model, joints) -> list:
    """Random full configurations: angles anywhere in a turn, lengths within their limits
    (or where they are)."""
    rng = np.random.default_rng(_SEED)
    base = model.q_from_joints()
    out = []
    for _ in range(_SAMPLES):
        q = base.copy()
        for k, j, ang in zip(arm.qidx, joints, arm.angular):
            if ang:
                q[k] = rng.uniform(-np.pi, np.pi)
            elif np.isfinite(j.lower[0]) and np.isfinite(j.upper[0]):
                q[k] = rng.uniform(j.lower[0], j.upper[0])
        out.append(q)
    return out


def _nearest_on(z1, o1, z2, o2) -> np.ndarray:
    """The point of line ``(o2, z2)`` nearest line ``(o1, z1)`` (``o2`` if parallel)."""
    n = np.cross(z1, z2)
    nn = n.dot(n)
    if nn < 1e-12:
        return o2
    t = np.cross(z1, n).dot(o1 - o2) / nn
    return o2 + t * z2


def _shoulder(model, arm_axes, angular, T) -> Optional[Shoulder]:
    rev = [a for a, ang in zip(arm_axes, angular) if ang]
    if len(rev) < 4:
        return None
    za, oa = world_axis(T, rev[0])
    zb, _ = world_axis(T, rev[1])
    if np.linalg.norm(np.cross(za, zb)) < 1e-6:
        return None
    z1, o1 = world_axis(T, rev[-2])
    z2, o2 = world_axis(T, rev[-1])
    w = _nearest_on(z1, o1, z2, o2)
    k = rev[-1][0]  # both axes are fixed in the last one's ground-side link
    R, p = T[k, :3, :3], T[k, :3, 3]
    origins = [world_axis(T, a)[1] for a in arm_axes] + [w]
    length = float(sum(np.linalg.norm(b - a) for a, b in zip(origins, origins[1:])))
    return Shoulder(rev[0], rev[1], (k, R.T.dot(w - p)), max(length, 1e-3))


def _analyse(lk, model, link: str) -> Arm:
    joints = arm_joints(lk, link)
    qidx = np.array([model.slice_of(j).start for j in joints], dtype=int)
    angular = np.array([bool(j.jtype.is_angular()[0]) for j in joints])
    axes = tuple(_axis(model, j) for j in joints)
    T = model.world_poses(model.q_from_joints())
    shoulder = _shoulder(model, axes, angular, T)
    draft = Arm(link, model.index[link], tuple(j.name for j in joints), qidx, angular,
                np.zeros(0, int), shoulder, (), axes)
    samples = _samples(draft, model, joints)
    signs = np.array([i for i in range(len(joints)) if angular[i] and
                      _singular_at_zero_and_pi(draft, model, i, samples)], dtype=int)
    n = len(joints)
    signs = signs[:MAX_SIGNS - (shoulder is not None)]
    wrist = [i for i in signs if i >= n - 3]
    elbow = [i for i in signs if i < n - 3]
    kinds = (("shoulder",) if shoulder is not None else ()) + tuple(
        "wrist" if i in wrist and len(wrist) == 1 else
        "elbow" if i in elbow and len(elbow) == 1 else joints[i].name for i in signs)
    return Arm(link, model.index[link], draft.names, qidx, angular, signs, shoulder, kinds,
               axes)


# ---- branches, labels, manipulability ---------------------------------------------------------
def signs_of(values: np.ndarray) -> tuple:
    """The signs (+1, -1, 0 within :data:`AT_SINGULARITY`) of sign quantities."""
    return tuple(0 if abs(v) <= AT_SINGULARITY else (1 if v > 0 else -1) for v in values)


def branch_of(lk, link: str, q=None) -> tuple:
    """The branch of ``link``'s arm at its joint values ``q`` (root first; None: as they are
    now): the signs of its sign quantities (see the module doc), at most :data:`MAX_SIGNS`."""
    arm = arm_of(lk, link)
    model = lk.model()
    qf = arm.full_q(model, q)
    return signs_of(arm.values(model.fk(qf), qf))[:MAX_SIGNS]


def label(lk, link: str, branch: tuple, q=None) -> str:
    """A branch as words, e.g. ``"shoulder L, elbow up, wrist +"`` (empty for an arm without
    sign quantities). Shoulder R: the second joint's axis points to the right of the arm's
    reach, seen from the tip of the first joint's axis (sign +); elbow up: the elbow's axis
    passes above the line from the shoulder's to the wrist centre (world z), at the joint
    values ``q`` (None: now); wrist and named joints: the sign of ``sin q``. A quantity at its
    singularity reads "shoulder singular", "elbow straight", "wrist singular"."""
    arm = arm_of(lk, link)
    parts = []
    for (kind, i), s in zip(arm.quantities, branch):
        if s == 0:
            parts.append(f"{kind} " + ("straight" if kind == "elbow" else "singular"))
        elif kind == "shoulder":
            parts.append("shoulder " + ("R" if s > 0 else "L"))
        elif kind == "elbow":
            parts.append("elbow " + ("up" if _elbow_up(lk, arm, i, q) else "down"))
        else:
            parts.append(f"{kind} " + ("+" if s > 0 else "-"))
    return ", ".join(parts)


def _elbow_up(lk, arm: Arm, i: int, q) -> bool:
    """Whether elbow joint ``i``'s axis origin lies above (world z) the line from the
    shoulder joint's origin to the wrist centre (the tool's origin without one)."""
    T = lk.model().fk(arm.full_q(lk.model(), q))
    rev = [a for a, ang in zip(arm.axes, arm.angular) if ang]
    s = world_axis(T, rev[1] if len(rev) > 1 else arm.axes[0])[1]
    e = world_axis(T, arm.axes[i])[1]
    w = world_point(T, arm.shoulder.wrist) if arm.shoulder is not None else T[arm.tool, :3, 3]
    d = w - s
    off = (e - s) - d * (d.dot(e - s) / max(d.dot(d), 1e-300))
    return bool(off[2] > 0)


def manipulability(lk, link: str, q=None) -> float:
    """Yoshikawa's manipulability of ``link``'s arm at joint values ``q`` (None: now):
    ``sqrt(det(J J^T))`` of its 6 x n Jacobian (:meth:`Arm.jacobian`; for fewer than six
    joints ``sqrt(det(J^T J))``). Zero at a singularity; units mix m and rad."""
    arm = arm_of(lk, link)
    model = lk.model()
    J = arm.jacobian(model, arm.full_q(model, q))
    G = J.dot(J.T) if J.shape[1] >= 6 else J.T.dot(J)
    return float(np.sqrt(max(np.linalg.det(G), 0.0)))
