"""Static feasibility of one pose: contact forces inside friction cones and joint torques that
hold the robot against gravity, the torques as small as they can be against their limits
(numpy only; :mod:`.qp` solves it).

For a :class:`~.static_model.StaticModel` at a pose, with point ``contacts``
(:class:`Contact`: a link, a world point, the surface's normal and a friction coefficient),
:func:`solve_pose` finds

- contact forces ``f_c`` in each contact's friction cone (a pyramid inscribed in it,
  :func:`.support.friction_pyramid`) and the closures' constraint wrenches (free),
- such that every passive degree of freedom (a floating base, a ball joint) and every joint of
  ``known`` torque (a spring) is in equilibrium: ``tau = g(q) - sum J_c^T f_c`` is zero there
  (``known``: that torque),
- minimising ``t``, the largest ``|tau| / effort`` over the motors that have an effort limit
  (with a tiny quadratic term that makes the answer unique: the least torques, then the least
  forces, among the optimal ones).

When no such forces exist (the centre of mass outside the support, too little friction), the
pose is **not balanced**: the equations get elastic slacks, their least total (the wrench the
contacts cannot give: ``unsupported_force`` N and ``unsupported_moment`` N m) is found first
and the torques are then minimised with it. ``tau`` is the torque each motor must give
(N m or N, the joint's own sign: positive along +q of child relative to parent).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..solver.threads import one_blas_thread
from .qp import solve_qp
from .static_model import StaticModel
from .support import friction_pyramid, support_margin

#: Weights of the tie-breaking quadratic terms (torques / limit, forces / weight) beside the
#: worst torque ratio: small enough to move that ratio by less than 1e-4 of itself, large
#: enough that the interior-point method resolves the least torques and forces to about
#: 1e-5 of the weight. Without limited motors there is no ratio: the least torques and
#: forces are the objective (weight 1), resolved to the solver's tolerance.
EPS_TORQUE, EPS_FORCE = 1e-4, 1e-5
#: Penalty on the equations' slacks (per unit of weight) before the two-phase fallback.
SLACK_PENALTY = 1e3
#: A pose is balanced when the contacts leave less than this share of the weight unsupported.
BALANCE_TOL = 1e-6


@dataclass(frozen=True)
class Contact:
    """A point contact: ``link`` (a real link) touches a surface at ``point`` (world, m) whose
    unit ``normal`` (world) points out of the surface, with friction coefficient ``mu``.
    ``name`` says which (``leg0_pin``, ``ground under foot``); ``local`` is the point in the
    link's frame (for slip)."""

    name: str
    link: str
    point: np.ndarray
    normal: np.ndarray
    mu: float
    local: np.ndarray | None = None


@dataclass
class PoseStatics:
    """The statics of one pose (see the module doc). Per motor (the model's ``motors``
    order): ``torque`` (N m or N) and ``ratio`` (``|torque| / effort``, NaN without a limit);
    ``worst`` the largest ratio (0 without limits). Per contact: ``force`` (n, 3: world N on
    the robot), ``normal`` and ``tangential`` (N), ``friction_use`` (``tangential / (mu
    normal)``). ``com`` (world m), ``margin`` (m: the centre of mass's ground projection to
    the edge of the contacts' support polygon, positive inside; NaN without contacts or on a
    fixed base)."""

    balanced: bool
    unsupported_force: float
    unsupported_moment: float
    worst: float
    torque: np.ndarray
    ratio: np.ndarray
    force: np.ndarray
    normal: np.ndarray
    tangential: np.ndarray
    friction_use: np.ndarray
    com: np.ndarray
    margin: float
    passive_torque: np.ndarray = field(default_factory=lambda: np.zeros(0))
    converged: bool = True
    guide_force: float = 0.0


def solve_pose(model: StaticModel, poses, contacts=(), known=None, guides=()) -> PoseStatics:
    """The statics of ``model`` at ``poses`` (see :func:`_solve_pose`), with one BLAS
    thread (:func:`vart_addon.solver.threads.one_blas_thread`: its dozens of small dense
    solves are 40 times slower when a busy machine's cores are shared by BLAS threads)."""
    with one_blas_thread():
        return _solve_pose(model, poses, contacts, known, guides)


def _solve_pose(model: StaticModel, poses, contacts=(), known=None, guides=()) -> PoseStatics:
    """The statics of ``model`` at ``poses`` (link -> ``T_world_link``) on ``contacts`` (see
    the module doc). ``known``: joint name -> its torque (N m or N), held as an equation
    instead of minimised: the generalized force the joint exerts, a spring's ``-k (q -
    rest)``. ``guides``: joints of the linkage (virtual ones: a model's assumptions) that hold
    the robot with whatever wrench their constraint allows, between a real link and the
    ground or a virtual link (which stand still) or two real links; what they carry is
    ``guide_force`` (N). Raises :class:`VartError` for a missing pose."""
    terms = model.frame(poses)
    contacts = list(contacts)
    weight = model.weight if model.weight > 0 else 1.0
    # columns: pyramid edges of every contact, then the closures' wrench bases
    edges, cols = [], []
    for c in contacts:
        E = friction_pyramid(c.normal, c.mu)
        edges.append(len(E))
        p = np.asarray(c.point, float) - terms.o
        W = np.concatenate([E, np.cross(p, E)], axis=1)  # (k, 6)
        cols.append((model.far[:, model.index[c.link]][:, None]
                     * (terms.twist @ W.T)))
    bonds = list(zip(model.bonds, terms.bond_wrench))
    bonds += [((j.name, j.parent, j.child), model.guide_wrenches(j, terms, poses))
              for j in guides]
    n_guide = sum(B.shape[1] for _, B in bonds[len(model.bonds):])
    for (_, parent, child), B in bonds:
        side = np.zeros(len(model.dofs))
        if child in model.index:
            side += model.far[:, model.index[child]]
        if parent in model.index:
            side -= model.far[:, model.index[parent]]
        cols.append(side[:, None] * (terms.twist @ B))
    Qx = np.concatenate(cols, axis=1) if cols else np.zeros((len(model.dofs), 0))
    n_beta = sum(edges)
    Qx = Qx * weight  # per unit of the scaled unknowns (forces in weights)
    # equations: passive DoFs (and known torques): gravity + Qx x = -known
    known = dict(known or {})
    eq = list(model.passive) + [d for d, dof in enumerate(model.dofs)
                                if dof.joint in known and dof.mode != "passive"]
    tau_eq = [0.0 if d in model.passive else known[model.dofs[d].joint] for d in eq]
    rhs = -terms.gravity[eq] - np.array(tau_eq, float)
    scale_eq = np.full(len(eq), weight)  # N, or N m per metre of lever
    # motors: their torques from the DoFs' (known-torque motors are not minimised)
    C = model.coupling
    free_motors = [r for r, d in enumerate(model.motors) if model.dofs[d].joint not in known]
    effort = np.array([model.dofs[model.motors[r]].effort for r in free_motors])
    limited = [i for i, e in enumerate(effort) if e > 0]
    a = -(C @ terms.gravity)[free_motors]  # tau = a + B x
    B = -(C @ Qx)[free_motors]
    sol = _solve(Qx[eq] / scale_eq[:, None], rhs / scale_eq, a, B, effort, limited, n_beta,
                 Qx.shape[1])
    x = sol["x"]
    tau_dof = -(terms.gravity + Qx @ x)
    tau_motor = C @ tau_dof
    for r, d in enumerate(model.motors):
        if model.dofs[d].joint in known:
            tau_motor[r] = known[model.dofs[d].joint]
    efforts = np.array([model.dofs[d].effort for d in model.motors])
    ratio = np.where(efforts > 0, np.abs(tau_motor) / np.where(efforts > 0, efforts, 1.0), np.nan)
    force = np.zeros((len(contacts), 3))
    k = 0
    for i, c in enumerate(contacts):
        E = friction_pyramid(c.normal, c.mu)
        force[i] = weight * (x[k:k + len(E)] @ E)
        k += len(E)
    normals = np.array([np.asarray(c.normal, float) for c in contacts]).reshape(-1, 3)
    fn = np.einsum("ij,ij->i", force, normals)
    ft = np.linalg.norm(force - fn[:, None] * normals, axis=1)
    mus = np.array([c.mu for c in contacts], float)
    use = np.where(mus * fn > 0, ft / np.where(mus * fn > 0, mus * fn, 1.0), 0.0)
    res = sol["residual"] * scale_eq
    ang = np.array([model.dofs[d].angular for d in eq], bool)
    unsupported_f = float(np.linalg.norm(res[~ang])) if len(eq) else 0.0
    unsupported_n = float(np.linalg.norm(res[ang])) if len(eq) else 0.0
    balanced = max(unsupported_f, unsupported_n) <= BALANCE_TOL * weight
    margin = float("nan")
    ground = [c for c in contacts if np.asarray(c.normal, float)[2] > 0.5]
    if ground and not model.grounded:
        margin = support_margin(terms.com[:2], [np.asarray(c.point, float)[:2] for c in ground])
    worst = float(np.nanmax(ratio)) if np.isfinite(ratio).any() else 0.0
    guide = np.zeros(3)
    if n_guide:
        B = np.concatenate([B for _, B in bonds[len(model.bonds):]], axis=1)
        guide = weight * (B[:3] @ x[len(x) - n_guide:])
    return PoseStatics(bool(balanced), unsupported_f, unsupported_n, worst, tau_motor, ratio,
                       force, fn, ft, use, terms.com, margin, tau_dof[model.passive],
                       sol["converged"], float(np.linalg.norm(guide)))


def _solve(A_eq, b_eq, a, B, effort, limited, n_beta, n_x) -> dict:
    """The QP of the module doc in scaled unknowns ``z = [x, t, s+, s-]``: ``x`` the contact
    edge weights (>= 0, the first ``n_beta``) and closure wrenches (free), ``t`` the worst
    torque ratio, ``s+ s-`` the equations' elastic slacks, penalised. When that leaves slack,
    two phases: the least slack alone (its residual ``r`` is the wrench the contacts cannot
    give, 0 if the penalty was merely too small), then the least torque with the equations
    shifted by ``r`` (met exactly by the first phase's answer). Without contacts and limits
    (only equations and free unknowns: a mechanism held by its loops and anchors) the least
    squares answer is direct (:func:`_least_squares`)."""
    if n_beta == 0 and not limited:
        return _least_squares(A_eq, b_eq, a, B, n_x)
    first = _qp(A_eq, b_eq, a, B, effort, limited, n_beta, n_x, SLACK_PENALTY)
    if first["slack"].sum() <= BALANCE_TOL and first["converged"]:
        return first
    least = _qp(A_eq, b_eq, a, B, effort, limited, n_beta, n_x, 1.0, torques=False)
    shift = least["residual"]
    out = _qp(A_eq, b_eq + shift, a, B, effort, limited, n_beta, n_x, SLACK_PENALTY * 1e3)
    out["residual"] = A_eq @ out["x"] - b_eq
    if not out["converged"] or out["slack"].sum() > BALANCE_TOL:
        return least if least["converged"] or not first["converged"] else first
    return out


def _least_squares(A_eq, b_eq, a, B, n_x) -> dict:
    """The least torques and forces ``x`` meeting ``A_eq x = b_eq`` as nearly as they can (in
    the least squares sense, first), from one regularised normal equation:
    ``(P + M A^T A) x = -c + M A^T b`` with ``P``, ``c`` the tie-breaking terms of
    :func:`_qp` and ``M`` large enough that what is left of the equations is their least
    squares residual to 1e-9 of the weight."""
    sig = np.maximum(np.abs(a).max(initial=1.0), 1.0)
    Bs, as_ = B / sig, a / sig
    P = Bs.T @ Bs + 0.1 * np.eye(n_x)
    c = Bs.T @ as_
    M = 1e9 * (1.0 + np.abs(P).max(initial=0.0))
    K = P + M * (A_eq.T @ A_eq)
    rhs = -c + M * (A_eq.T @ b_eq)
    try:
        x = np.linalg.solve(K, rhs)
    except np.linalg.LinAlgError:
        x = np.linalg.lstsq(K, rhs, rcond=None)[0]
    residual = A_eq @ x - b_eq
    return {"x": x, "t": 0.0, "slack": np.abs(residual), "residual": residual,
            "converged": bool(np.isfinite(x).all())}


def _qp(A_eq, b_eq, a, B, effort, limited, n_beta, n_x, penalty, torques=True):
    ne = len(b_eq)
    nz = n_x + 1 + 2 * ne
    it = n_x  # index of t
    P = np.zeros((nz, nz))
    c = np.zeros(nz)
    G_rows, h = [], []
    eps_t, eps_f = (EPS_TORQUE, EPS_FORCE) if torques and limited else (1.0, 0.1)
    if torques:
        c[it] = 1.0
        sig = np.where(effort > 0, effort, np.maximum(np.abs(a).max(initial=1.0), 1.0))
        Bs, as_ = B / sig[:, None], a / sig
        P[:n_x, :n_x] += eps_t * (Bs.T @ Bs)
        c[:n_x] += eps_t * (Bs.T @ as_)
        for i in limited:  # +-(a_i + B_i x) / effort_i <= t
            for sign in (1.0, -1.0):
                row = np.zeros(nz)
                row[:n_x], row[it] = sign * B[i] / effort[i], -1.0
                G_rows.append(row)
                h.append(-sign * a[i] / effort[i])
    P[:n_x, :n_x] += eps_f * np.eye(n_x)
    P[it, it] += eps_f
    c[n_x + 1:] += penalty
    P[n_x + 1:, n_x + 1:] += EPS_FORCE * np.eye(2 * ne)  # the slacks: their penalty rules
    lower = list(range(n_beta)) + [it] + list(range(n_x + 1, nz))  # z_i >= 0
    G_low = -np.eye(nz)[lower]
    G = np.vstack([np.array(G_rows).reshape(-1, nz), G_low])
    h = np.concatenate([np.array(h, float), np.zeros(len(lower))])
    A = np.zeros((ne, nz))
    A[:, :n_x] = A_eq
    A[:, n_x + 1:n_x + 1 + ne] = np.eye(ne)
    A[:, n_x + 1 + ne:] = -np.eye(ne)
    r = solve_qp(P, c, A, b_eq, G, h)
    z = r.x
    slack = z[n_x + 1:n_x + 1 + ne] + z[n_x + 1 + ne:]
    residual = A_eq @ z[:n_x] - b_eq
    return {"x": z[:n_x], "t": z[it], "slack": slack, "residual": residual,
            "converged": r.converged}
