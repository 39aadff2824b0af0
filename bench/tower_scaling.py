#!/usr/bin/env python3
"""How the solver's cost per drag frame grows with the modular tower's size (issue 22).

    .venv/bin/python bench/tower_scaling.py                   # 90, 270, 900 cells
    .venv/bin/python bench/tower_scaling.py --cells 30 90 --frames 10 --profile
    .venv/bin/python bench/tower_scaling.py --build --cells 270 900  # building, CPU s

The tower of *Add Example > Tower* (``vart_addon.examples.tower``: its ``tower_nodes``
geometry, 3 revolute tree joints and 1 revolute closure per four-bar cell, x-z plane), built
here straight into a solver ``Linkage`` (no Blender scene); its top rung's in-plane position
(x, z) is dragged by a link target, ``--pull`` metres over ``--frames`` frames, each frame
warm started from the last. Per size: the median and p95 ms per frame (time.perf_counter
around ``Solver.solve``), iterations, solve groups, and the growth exponent between
successive sizes, ``log(t2 / t1) / log(n2 / n1)`` over tree joints n. One BLAS thread, as
bench/run.py. Figures move with the machine's load: compare within one run.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vart_addon.examples.tower import TOWER, tower_nodes  # noqa: E402  (bpy: run in .venv)
from vart_addon.examples.tower_abstract import CELLS_PER_BLOCK, STRETCH, block_axis_frame  # noqa: E402
from vart_addon.solver import Linkage, Settings, Solver, se3  # noqa: E402

#: The joints' frame in the x-z plane: z along world -y (as the example's ``_PLANAR``).
PLANAR = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def _at(p, R=None):
    """A pose at the x-z point ``p`` (rotation ``R``, default the world's)."""
    return se3.make_pose(np.eye(3) if R is None else R, [p[0], 0.0, p[1]])


def _tower_parts(cells: int):
    """The tower's links ``{name: (T_world_link, virtual)}`` and joints ``[(name, type,
    parent, child, W (the joint's world frame), tree)]`` as ``examples.tower.build_tower``
    lays them out (link frames at their lower node, world-aligned; rung 0 fixed)."""
    A, B = tower_nodes(cells, TOWER["width"], TOWER["height"], TOWER["jitter"])
    links = {"rung0": (_at(A[0]), False)}
    joints = [("tower_base", "fixed", None, "rung0", _at(A[0], PLANAR), True)]
    for i in range(1, cells + 1):
        links[f"left{i}"] = (_at(A[i - 1]), False)
        links[f"rung{i}"] = (_at(A[i]), False)
        links[f"right{i}"] = (_at(B[i - 1]), False)
        joints += [(f"c{i}_left_low", "revolute", f"rung{i - 1}", f"left{i}",
                    _at(A[i - 1], PLANAR), True),
                   (f"c{i}_left_high", "revolute", f"left{i}", f"rung{i}", _at(A[i], PLANAR), True),
                   (f"c{i}_right_low", "revolute", f"rung{i - 1}", f"right{i}",
                    _at(B[i - 1], PLANAR), True),
                   (f"c{i}_right_high", "revolute", f"right{i}", f"rung{i}", _at(B[i], PLANAR),
                    False)]
    return links, joints


def _build(links: dict, joints: list) -> Linkage:
    """A linkage of ``links`` and ``joints`` (see :func:`_tower_parts`), built in linear time:
    tree joints with their frames in both links and q = 0 (nothing to fit), then, with the
    tree compiled once, the closures (their q fitted from its poses)."""
    lk = Linkage()
    for name, (T, virtual) in links.items():
        lk.add_link(name, pose=T, mass=0.0 if virtual else 0.1, virtual=virtual)
    for tree in (True, False):
        if not tree:
            lk.model()
        for name, jtype, parent, child, W, is_tree in joints:
            if is_tree != tree:
                continue
            Tp = np.eye(4) if parent is None else links[parent][0]
            lk.add_joint(name, jtype, parent, child, T_parent_mob=se3.inverse(Tp) @ W,
                         T_child_frame=se3.inverse(links[child][0]) @ W, tree=tree,
                         virtual=name.startswith("block"),  # the abstract joints
                         q=[0.0] if tree and jtype != "fixed" else None)
    return lk


def script_build(cells: int) -> Linkage:
    """The tower built as a script would write it: every link at its pose, then cell by cell
    its joints placed by their world frames (``world_frame``: the q of each fitted from the
    links' poses), each cell's closure right after its tree joints, nothing compiled between.
    Each such joint needs its links' world poses from the uncompiled tree (``--build``)."""
    links, joints = _tower_parts(cells)
    lk = Linkage()
    for name, (T, _virtual) in links.items():
        lk.add_link(name, pose=T, mass=0.1)
    for name, jtype, parent, child, W, is_tree in joints:
        lk.add_joint(name, jtype, parent, child, world_frame=W, tree=None if is_tree else False)
    return lk


def tower_linkage(cells: int) -> Linkage:
    """The tower of ``cells`` four-bar cells as a linkage (link frames at their lower node,
    world-aligned; rung 0 fixed to the ground), as ``examples.tower.build_tower`` lays it out."""
    return _build(*_tower_parts(cells))


def abstract_tower_linkage(cells: int) -> Linkage:
    """The tower of ``cells`` cells with MSim's abstraction, as *Add Example > Tower
    (abstracted)* builds it (``vart_addon.examples.tower_abstract``): blocks of
    ``CELLS_PER_BLOCK`` cells, each a driven sublinkage ``block{b}`` following its virtual
    ``block{b}_bend`` (revolute, bottom rung -> ``block{b}_axis``) and ``block{b}_stretch``
    (prismatic closure, axis -> top rung) in the driving top level."""
    links, joints = _tower_parts(cells)
    A, B = tower_nodes(cells, TOWER["width"], TOWER["height"], TOWER["jitter"])

    def centre(i):
        return (np.array([A[i][0], 0.0, A[i][1]]) + np.array([B[i][0], 0.0, B[i][1]])) / 2

    blocks = range(cells // CELLS_PER_BLOCK)
    for b in blocks:
        lo, hi = CELLS_PER_BLOCK * b, CELLS_PER_BLOCK * (b + 1)
        c0, c1 = centre(lo), centre(hi)
        R = block_axis_frame(c0, c1)
        links[f"block{b}_axis"] = (se3.make_pose(R, c0), True)
        joints += [(f"block{b}_bend", "revolute", f"rung{lo}", f"block{b}_axis",
                    se3.make_pose(PLANAR, c0), True),
                   (f"block{b}_stretch", "prismatic", f"block{b}_axis", f"rung{hi}",
                    se3.make_pose(R, c1), False)]
    lk = _build(links, joints)
    for b in blocks:
        lk.add_sublinkage(f"block{b}", None, "driven")
        for i in range(CELLS_PER_BLOCK * b + 1, CELLS_PER_BLOCK * (b + 1) + 1):
            for part in ("left", "right", "rung"):
                lk.assign_link(f"{part}{i}", f"block{b}")
    return lk


def _abstract_frame(lk: Linkage, cells: int, f: int, frames: int, pull: float):
    """Frame ``f`` of the abstracted tower's motion: every tenth block's bend keyed from 0 to
    ``pull`` rad (as ``tower_abstract.BENDS``: blocks 4, 14, 24, ...), one block's stretch
    target to -0.02 m (``STRETCH``)."""
    s = f / frames
    for b in range(4, cells // CELLS_PER_BLOCK, 10):
        lk.lock_joint(f"block{b}_bend", [pull * s])
    lk.set_target(f"block{STRETCH[0]}_stretch", [STRETCH[1] * s])


def run(cells: int, frames: int, pull: float, profile: bool = False,
        abstract: bool = False) -> dict:
    """Drag the top of a ``cells``-cell tower (``abstract``: key the abstracted tower's
    bends instead); per-frame times (ms) and statistics."""
    lk = abstract_tower_linkage(cells) if abstract else tower_linkage(cells)
    top = f"rung{cells}"
    T0 = lk.pose(top)
    if abstract:
        _abstract_frame(lk, cells, 0, frames, pull)
    solver = Solver(lk, Settings())
    solver.solve()  # the analysis and the first factorizations, untimed
    times, iters, converged = [], [], 0
    prof = cProfile.Profile() if profile else None
    for f in range(1, frames + 1):
        if abstract:
            _abstract_frame(lk, cells, f, frames, pull)
        else:
            T = T0.copy()
            T[0, 3] += pull * f / frames
            T[2, 3] -= 0.5 * pull * f / frames
            lk.set_link_target(top, T, mask=[1, 0, 1, 0, 0, 0])
        t = time.perf_counter()
        if prof is not None:
            prof.enable()
        st = solver.solve()
        if prof is not None:
            prof.disable()
        times.append((time.perf_counter() - t) * 1e3)
        iters.append(st.iterations)
        converged += st.converged
    out = dict(cells=cells, joints=3 * cells, closures=cells, groups=st.groups,
               median=float(np.median(times)), p95=float(np.percentile(times, 95)),
               iters=int(np.median(iters)), converged=converged, frames=frames)
    if prof is not None:
        stream = __import__("io").StringIO()
        pstats.Stats(prof, stream=stream).sort_stats("tottime").print_stats(12)
        out["profile"] = stream.getvalue()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, nargs="+", default=[90, 270, 900])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--pull", type=float, default=0.3, help="metres along x (z: half, down)")
    ap.add_argument("--profile", action="store_true", help="cProfile hot spots per size")
    ap.add_argument("--abstract", action="store_true",
                    help="the abstracted tower (blocks as driven sublinkages, bends keyed)")
    ap.add_argument("--build", action="store_true",
                    help="only time building each tower as a script writes it (script_build)")
    args = ap.parse_args(argv)
    if args.build:
        print(f"{'cells':>6} {'tree joints':>11} {'closures':>8} {'build s CPU':>11}")
        for c in args.cells:
            t = time.process_time()
            lk = script_build(c)
            t = time.process_time() - t
            print(f"{c:>6} {sum(j.is_tree for j in lk.joints.values()) - 1:>11} "
                  f"{sum(not j.is_tree for j in lk.joints.values()):>8} {t:>11.2f}", flush=True)
        return
    rows = [run(c, args.frames, args.pull, args.profile, args.abstract) for c in args.cells]
    print(f"{'cells':>6} {'tree joints':>11} {'groups':>6} {'median ms':>10} {'p95 ms':>8} "
          f"{'iters':>5} {'converged':>9} {'exponent':>8}")
    for i, r in enumerate(rows):
        prev = rows[i - 1]
        k = "" if i == 0 else \
            f"{math.log(r['median'] / prev['median']) / math.log(r['joints'] / prev['joints']):.2f}"
        print(f"{r['cells']:>6} {r['joints']:>11} {r['groups']:>6} {r['median']:>10.2f} "
              f"{r['p95']:>8.2f} {r['iters']:>5} {r['converged']:>4}/{r['frames']:<4} {k:>8}")
        if "profile" in r:
            print(r["profile"])


if __name__ == "__main__":
    main()
