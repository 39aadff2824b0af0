#!/usr/bin/env python3
"""vart's method against a plain damped-least-squares baseline on the same problems.

    .venv/bin/python bench/method_compare.py                    # the four problems, 120 frames
    .venv/bin/python bench/method_compare.py --frames 20 --problem P1_hexapod
    .venv/bin/python bench/method_compare.py --lambda 0.1 --json out.json

Each problem of ../shared/bench is built twice (bench/vart_bench.py) and dragged along its
path by the same harness (``vart_bench.run_problem``: warm starts, the independent check
through the URDF layer's forward kinematics): once with vart's prioritized solver, once with
``dls_baseline.PlainDLS`` (one stacked system, constant damping ``--lambda``, no line search)
on the same goals, tolerances, step cap and iteration budget. One row per problem and
method: median and p95 ms per frame, iterations, the largest hard (closure) residual, the
final drag residual, feasibility. Then, from the solvers' traces (``solve(trace=True)``), a
frame's convergence: the hard and drag errors after each iteration, for both methods.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread, as bench/run.py

import argparse  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import vart_bench as vb  # noqa: E402
from dls_baseline import DEFAULT_LAMBDA, PlainDLS  # noqa: E402
from vart_addon.solver.levels import LEVEL_NAMES  # noqa: E402

METHODS = ("vart", "dls")
HARD = [LEVEL_NAMES.index(n) for n in ("invariant", "limit", "lock")]
TARGET = LEVEL_NAMES.index("target")


def build(name: str, method: str, args) -> vb.BenchProblem:
    prob = vb.BenchProblem(name, args.problems, closure=args.closure)
    if method == "dls":
        prob.solver = PlainDLS(prob.lk, prob.settings, damping=args.damping)
    return prob


def convergence(prob: vb.BenchProblem, frame: int) -> list[tuple[int, float, float, float]]:
    """(iteration, hard error, drag error, ms) of ``prob``'s solve of ``frame``, warm from
    the frames before it (solved untraced)."""
    for f in range(frame):
        prob.solve_frame(f)
    prob.lk.set_link_target(prob.drag["frame"], prob.target_pose(frame), mask=prob._drag_mask)
    status = prob.solver.solve(trace=True)
    return [(r.iteration, sum(r.errors[k] ** 2 for k in HARD) ** 0.5, r.errors[TARGET], r.ms)
            for r in status.trace]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=pathlib.Path, default=vb.DEFAULT_PROBLEMS)
    ap.add_argument("--problem", action="append", choices=vb.PROBLEM_NAMES)
    ap.add_argument("--frames", type=int, default=None, help="only the first N frames")
    ap.add_argument("--closure", choices=("revolute", "point-slider"), default="revolute")
    ap.add_argument("--lambda", dest="damping", type=float, default=DEFAULT_LAMBDA,
                    help="the baseline's constant damping (default: %(default)s)")
    ap.add_argument("--trace-frame", type=int, default=1,
                    help="the frame whose iterations are shown (default: %(default)s)")
    ap.add_argument("--json", type=pathlib.Path, help="write all figures to this file")
    args = ap.parse_args(argv)
    if not args.problems.is_dir():
        print(f"error: no problem directory {args.problems}", file=sys.stderr)
        return 2
    out = []
    for name in args.problem or vb.PROBLEM_NAMES:
        for method in METHODS:
            s = vb.run_problem(build(name, method, args), args.frames)["summary"]
            s["method"] = method
            s["convergence"] = convergence(build(name, method, args), args.trace_frame)
            out.append(s)
            print(f"{name} {method}: median {s['median_ms']:.2f} ms, feasible {s['feasible']}",
                  flush=True)
    print(f"\nbaseline: plain DLS, lambda {args.damping:g}, no priorities\n")
    print("| problem | method | median ms | p95 ms | iters med / max | max hard | final drag "
          "| feasible |\n|---|---|---|---|---|---|---|---|")
    for s in out:
        feas = "yes" if s["feasible"] else \
            f"NO ({s['frames_hard_bad']} hard, {s['frames_drag_bad']} drag)"
        print(f"| {s['problem']} | {s['method']} | {s['median_ms']:.2f} | {s['p95_ms']:.2f} | "
              f"{s['iterations_median']:g} / {s['iterations_max']} | {s['max_hard']:.1e} | "
              f"{s['final_drag']:.2e} | {feas} |")
    print(f"\nframe {args.trace_frame}, per iteration: hard error / drag error (ms)")
    for s in out:
        steps = "  ".join(f"{h:.1e}/{d:.1e}" for _, h, d, _ in s["convergence"][:12])
        more = f" ... ({len(s['convergence']) - 1} it)" if len(s["convergence"]) > 12 else ""
        print(f"  {s['problem']:22s} {s['method']:4s} {steps}{more} "
              f"({s['convergence'][-1][3]:.2f} ms)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
