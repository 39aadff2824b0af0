"""Topology analysis: goal supports, coupling into independent solve groups, goal batches.

The *support* of a goal is the set of tree DoF that can change it: for a joint between two
links, the tree joints on the paths from their lowest common ancestor to each link (the
signed ancestry difference); for a tree joint, its own DoF; for a mass, the path from the
ground. Goals whose supports overlap are coupled (union-find over DoF); disjoint groups are
solved apart. The analysis is redone only when the linkage's topology or goal set changes.

With sublinkages (:mod:`.sublinkages`) the goals are split into stages, solved in order: a
stage's goals are coupled over its own DoF only (their supports cut to them), so no group
crosses a driving/driven boundary; a stage's goals that none of its DoF can change form one
group without columns (evaluated and reported, never moved). A goal of an earlier stage that a
later stage's DoF can change (a link of the parent hanging, in the spanning tree, from a link
of a driven sublinkage) is *held* by the later stage: solved again there, at its own level,
over the later stage's DoF, so the later stage does not undo it.

In a large linkage, independent groups are then *packed* into one (:func:`_packed`): solved
together, one evaluation of the linkage per step serves them all (a tower of 300 blocks is
two solve groups, not 310). Their rows are stored by supports (:mod:`.sparse_rows`) and their
stacked solve goes block by block (:mod:`.block_gram`), so a pack costs what its parts cost.
"""
from __future__ import annotations

import numpy as np

from . import sparse_rows as SR
from . import sublinkages
from .goal_kinds import KINDS, Context, GoalKind, model_support
from .levels import LEVELS, GoalId, Level


class GroupSpec:
    """One solve group: its DoF columns (indices into the model's q) and goal batches per level.

    With sublinkages, ``stage`` is the group's place in the solve order and ``home`` maps each
    goal owner's label (``GoalId.owner``) to its sublinkage (None: the top); else both None."""

    def __init__(self, cols: np.ndarray, batches: list, tau: float, gravity,
                 stage: int | None = None, home: dict | None = None):
        self.cols = cols
        self.batches = batches
        self.levels = [[b for b in batches if b.level == k] for k in LEVELS]
        self.tau = tau
        self.gravity = gravity
        self.stage = stage
        self.home = home


class _Atom:
    """One goal of one joint or link: its kind and its support (tree DoF that can change it;
    with sublinkages, cut to its stage's DoF), and ``reach``: its whole support."""

    __slots__ = ("kind", "obj", "support", "reach")

    def __init__(self, kind: GoalKind, obj, support: np.ndarray, reach=None):
        self.kind, self.obj, self.support = kind, obj, support
        self.reach = support if reach is None else reach


def _atoms(linkage, model) -> list[_Atom]:
    """Every goal the linkage has now, by :data:`.goal_kinds.KINDS`."""
    atoms = []
    joint_kinds = [k for k in KINDS if k.owner == "joint"]
    for j in linkage.all_joints():
        own = None  # the joint's own support, computed once if some goal needs it
        for kind in joint_kinds:
            if kind.present(linkage, j):
                own = model_support(model, j) if own is None else own
                support = own if kind.support is None else kind.support(linkage, model, j, own)
                atoms.append(_Atom(kind, j, support))
    for kind in KINDS:
        if kind.owner == "link":
            for link in linkage.links.values():
                if kind.present(linkage, link):
                    own = model.anc_sign[model.index[link.name]] != 0
                    support = own if kind.support is None else \
                        kind.support(linkage, model, link, own)
                    atoms.append(_Atom(kind, link, support))
    return atoms


def _groups(atoms, n_dof):
    """Union-find of atoms sharing a DoF -> list of atom index lists."""
    parent = list(range(len(atoms)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner = np.full(n_dof, -1)
    for i, a in enumerate(atoms):
        for d in np.flatnonzero(a.support):
            if owner[d] < 0:
                owner[d] = i
            else:
                ri, rd = find(i), find(owner[d])
                if ri != rd:
                    parent[ri] = rd
    out: dict[int, list[int]] = {}
    for i, a in enumerate(atoms):
        if a.support.any():
            out.setdefault(find(i), []).append(i)
    return list(out.values())


def analyse(linkage, model) -> tuple[list[GroupSpec], list[GoalId]]:
    """Solve groups of the linkage's active goals, and the names of goals no DoF can move."""
    atoms = _atoms(linkage, model)
    # (an energy no DoF can change, e.g. gravity on a fixed base, asks for nothing: not stuck)
    stuck = [a.kind.goal_id(a.obj) for a in atoms
             if not a.support.any() and a.kind.level != Level.POTENTIAL]
    gravity = None if linkage.gravity is None else np.asarray(linkage.gravity, float)
    T_world = model.world_poses(model.q_from_joints())  # for the planar loops' test
    specs = []

    def add(pack, stage=None, home=None):
        group = [a for g in pack for a in g]
        cols = np.flatnonzero(np.any([a.support for a in group], axis=0)) if group else \
            np.zeros(0, dtype=int)
        tau = _tau(group, gravity)
        context = Context(linkage, gravity, tau, T_world)
        specs.append(GroupSpec(cols, _batches(group, cols, context, model), tau, gravity,
                               stage, home))

    plan = sublinkages.plan(linkage, model)
    if plan is None:
        groups = [[atoms[i] for i in members] for members in _groups(atoms, model.n_dof)]
        for pack in _packed(groups, model.n_dof):
            add(pack)
        return specs, stuck
    groups, stages, homes = [], [], []
    for stage, staged in enumerate(_staged(atoms, plan)):
        home = {_owner(a): plan.home_of(a.obj) for a in staged}
        for members in _groups(staged, model.n_dof):
            groups.append([staged[i] for i in members])
            stages.append(stage)
            homes.append(home)
        fixed = [a for a in staged if not a.support.any()]
        if fixed:
            groups.append(fixed)
            stages.append(stage)
            homes.append(home)
    first = {id(g[0]): i for i, g in enumerate(groups)}
    for pack in _packed(groups, model.n_dof):
        i = first[id(pack[0][0])]
        home = homes[i] if len(pack) == 1 else \
            {_owner(a): plan.home_of(a.obj) for g in pack for a in g}
        add(pack, stages[i], home)
    return specs, stuck


def _packed(groups: list[list[_Atom]], n_dof: int) -> list[list[list[_Atom]]]:
    """``groups`` (in solve order) cut into *packs* (each a list of groups, solved as one, in
    order), packing *independent* groups together. Two groups are
    independent when no goal of one can be changed by the DoF of the other (the reach of
    either misses the other's columns): solving them together meets the same equations as
    solving them in turn, and costs one evaluation of the linkage per step for all instead of
    one each. Each group goes into the first pack after the last one it depends on (so a
    dependent group is still solved after what it depends on; independent ones commute).
    A group with a potential (gravity, springs: one energy per group) or without DoF is a
    barrier: alone, with every group before it solved first and every one after it later.
    Packs are made only in a linkage of at least :data:`.sparse_rows.MIN_COLS` DoF: there
    the evaluation of the whole linkage, which every group pays at each step, outweighs the
    small solves, and a pack that large has its rows stored by supports and its stacked solve
    done by blocks (:mod:`.block_gram`), so that it costs what its parts cost, once. In a
    smaller linkage each group is solved alone, as it always was."""
    if n_dof < SR.MIN_COLS:
        return [[g] for g in groups]
    packs: list[tuple[list, np.ndarray, np.ndarray]] = []  # (groups, columns, reach)
    floor = 0  # the first pack a group may join (after the last barrier)
    for g in groups:
        g_cols = np.any([a.support for a in g], axis=0)
        g_reach = np.any([a.reach for a in g], axis=0)
        if not g_cols.any() or any(a.kind.level == Level.POTENTIAL for a in g):
            packs.append(([g], g_cols, g_reach))
            floor = len(packs)
            continue
        at = floor
        for i in range(len(packs) - 1, floor - 1, -1):
            _, cols, reach = packs[i]
            if (g_reach & cols).any() or (reach & g_cols).any():
                at = i + 1
                break
        if at == len(packs):
            packs.append(([g], g_cols, g_reach))
        else:
            members, cols, reach = packs[at]
            members.append(g)
            cols |= g_cols
            reach |= g_reach
    return [members for members, _, _ in packs]


def _staged(atoms, plan) -> list[list[_Atom]]:
    """Per stage of ``plan``: its own atoms (goals that can move at all), then the atoms of
    earlier stages that its DoF can change (*held*: kept as the earlier stage left them, at
    their own level), each with its support cut to the stage's own DoF. An own atom with an
    empty cut support is kept (evaluated and reported); a held one is not."""
    own: list[list[_Atom]] = [[] for _ in plan.order]
    held: list[list[_Atom]] = [[] for _ in plan.order]
    for a in atoms:
        if not a.support.any():
            continue  # moved by no DoF at all: reported as stuck
        home = plan.stage_of_joint(a.obj) if a.kind.owner == "joint" else \
            plan.stage_of_link(a.obj.name)
        in_stage = plan.dof_stage[a.support]
        own[home].append(_Atom(a.kind, a.obj, a.support & (plan.dof_stage == home), a.support))
        for s in np.unique(in_stage[in_stage > home]).tolist():
            held[s].append(_Atom(a.kind, a.obj, a.support & (plan.dof_stage == s), a.support))
    return [o + h for o, h in zip(own, held)]


def _owner(atom) -> str:
    """The ``GoalId.owner`` of an atom's goal (a link's goals are its root joint's)."""
    return atom.kind.goal_id(atom.obj).owner


def _tau(group, gravity) -> float:
    """Scale of the potential rows: a push of about 0.1 m on the heaviest mass (see GravityBatch)."""
    masses = [a.obj.mass for a in group if a.kind.name == "gravity"]
    if masses and gravity is not None:
        return 0.1 / (max(masses) * float(np.linalg.norm(gravity)))
    ks = [a.obj.stiffness for a in group if a.kind.name == "spring"]
    return 1.0 / max(ks) if ks else 1.0


def _batches(group, cols, context: Context, model) -> list:
    """The goal batches of one solve group: one per kind (and per joint type and tree-ness for
    kinds batched by type), built as the kind declares."""
    by_key: dict[tuple, tuple[GoalKind, list]] = {}
    for a in group:
        key = (a.kind.name, a.obj.jtype.name, a.obj.is_tree) if a.kind.by_type else \
            (a.kind.name,)
        by_key.setdefault(key, (a.kind, []))[1].append(a.obj)
    out = []
    for kind, objs in by_key.values():
        out += kind.build(model, objs, cols, context)
    return out
