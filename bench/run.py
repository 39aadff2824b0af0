#!/usr/bin/env python3
"""vart's solver on the closed-chain drag benchmark of ../shared/bench (see its README.md).

    python bench/run.py                         # all four problems, 120 frames each
    python bench/run.py --problem P1_hexapod    # one problem (repeatable option)
    python bench/run.py --frames 3 --repeats 5  # smoke run; per frame the median of 5 passes
    python bench/run.py --profile               # + cProfile hot spots of the timed work
    python bench/run.py --json out.json         # + all figures and per-frame data

Per frame (the protocol of ../shared/bench/README.md): set the drag target and solve, warm
started from the previous frame, timed with time.perf_counter; then, untimed, an independent
check through the URDF layer's forward kinematics (bench/vart_bench.py). One row per problem:
median and p95 ms per frame, iterations, the largest hard residual, the final drag residual,
feasibility, and the ratio to the best peer of PEERS.md (measured on another day: compare
ratios with care, as PEERS.md says).
"""
from __future__ import annotations

import os

# One BLAS thread, as in PEERS.md ("BLAS threads: 1"): set before numpy is imported. A
# multi-threaded BLAS on a shared 2-core machine made P3's median swing from 7 to 25 ms.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import pstats  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import vart_bench as vb  # noqa: E402

# The best peer per problem and its median ms/frame, from ../shared/bench/PEERS.md (PlaCo on
# P1, P1b and P2; mink on P3). Used when PEERS.md cannot be read or parsed.
BEST_PEER = {"P1_hexapod": ("placo", 0.24), "P1b_hexapod_overreach": ("placo", 11.71),
             "P2_fourbar_chain": ("placo", 0.24), "P3_tower": ("mink", 12.40)}


def peer_figures(peers_md: pathlib.Path) -> dict:
    """{problem: (peer, median ms)} for the best peers, read from PEERS.md when possible."""
    out = dict(BEST_PEER)
    try:
        text = peers_md.read_text()
    except OSError:
        return out
    for problem, (peer, _) in BEST_PEER.items():
        sec = re.search(rf"^## {re.escape(problem)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
        if not sec:
            continue
        row = re.search(rf"^\|\s*{re.escape(peer)}\s*\|\s*([0-9.]+)\s*\|", sec.group(1), re.M)
        if row:
            out[problem] = (peer, float(row.group(1)))
    return out


def solver_version() -> str:
    """Git commit of the repository, ``+dirty`` when vart_addon/solver has local changes, and
    a short hash of the solver's sources (results move with every solver change)."""
    repo = HERE.parent
    h = hashlib.sha1()
    for f in sorted((repo / "vart_addon" / "solver").glob("*.py")):
        h.update(f.name.encode() + f.read_bytes())
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--",
                                "vart_addon/solver"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head, dirty = "", ""
    return f"{head or 'unknown'}{'+dirty' if dirty else ''} (solver sources {h.hexdigest()[:10]})"


def profile_text(profiler: cProfile.Profile, top: int = 15) -> str:
    buf = io.StringIO()
    pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(top)
    return "\n".join(line for line in buf.getvalue().splitlines() if line.strip())


def fmt_row(s: dict, peers: dict) -> str:
    peer, peer_ms = peers.get(s["problem"], ("-", float("nan")))
    feas = "yes" if s["feasible"] else (
        f"NO ({s['frames_hard_bad']} hard, {s['frames_drag_bad']} drag)")
    return (f"| {s['problem']} | {s['median_ms']:.2f} | {s['p95_ms']:.2f} | {s['total_s']:.3f} | "
            f"{s['iterations_median']:g} / {s['iterations_max']} | {s['max_hard']:.1e} | "
            f"{s['final_drag']:.2e} | {feas} | {peer} {peer_ms:.2f} | "
            f"{s['median_ms'] / peer_ms:.2f}x |")


HEADER = ("| problem | median ms/frame | p95 ms | total s | iters med / max | max hard residual | "
          "final drag residual | feasible | best peer (PEERS.md ms) | x peer |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=pathlib.Path, default=vb.DEFAULT_PROBLEMS,
                    help="directory of the problem files (default: %(default)s)")
    ap.add_argument("--problem", action="append", choices=vb.PROBLEM_NAMES,
                    help="run only this problem (repeatable; default: all four)")
    ap.add_argument("--frames", type=int, default=None, help="only the first N frames")
    ap.add_argument("--repeats", type=int, default=1,
                    help="timed passes over the frames, each from the initial state, as the "
                         "peers' harness does (per frame the median over the passes)")
    ap.add_argument("--closure", choices=("revolute", "point-slider"), default="revolute",
                    help="joint type of the planar two-marker closures (P2, P3)")
    ap.add_argument("--json", type=pathlib.Path, help="write all figures to this file")
    ap.add_argument("--profile", action="store_true",
                    help="profile the timed work (cProfile, top 15 by cumulative time)")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per frame")
    args = ap.parse_args(argv)
    if args.repeats < 1 or (args.frames is not None and args.frames < 1):
        ap.error("--repeats and --frames must be at least 1")
    if not args.problems.is_dir():
        print(f"error: no problem directory {args.problems}", file=sys.stderr)
        return 2
    peers = peer_figures(args.problems.parent / "PEERS.md")
    names = args.problem or list(vb.PROBLEM_NAMES)
    results = []
    version = solver_version()
    print(f"vart {version}; numpy {np.__version__}, BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}; closures of planar loops: {args.closure}; "
          f"passes: {args.repeats}", flush=True)
    for name in names:
        prob = vb.BenchProblem(name, args.problems, closure=args.closure)
        profiler = cProfile.Profile() if args.profile else None

        def on_frame(f, status, hard, drag, ms, name=name, prob=prob):
            if args.verbose or not status.converged and prob.reachable:
                print(f"  {name} frame {f:3d}: {ms:8.2f} ms, {status.iterations:3d} it, "
                      f"hard {hard:.1e}, drag {drag:.1e}, converged {status.converged}, "
                      f"stalled {status.stalled}, {vb.level_summary(status)}", flush=True)

        res = vb.run_problem(prob, args.frames, args.repeats, on_frame, profiler)
        s = res["summary"]
        s["vart"] = version
        s["peer"], s["peer_median_ms"] = peers.get(name, (None, None))
        s["ratio_to_peer"] = s["median_ms"] / s["peer_median_ms"] if s["peer_median_ms"] else None
        results.append(res)
        print(f"{name}: {s['frames']} frames, median {s['median_ms']:.2f} ms, "
              f"feasible {s['feasible']}", flush=True)
        if s["frames_out_of_limits"]:
            print(f"  warning: {s['frames_out_of_limits']} frames with a joint outside its limits")
        if profiler is not None:
            print(f"  profile of {name}'s timed work (set target + solve; times above include "
                  f"the profiler's overhead), top 15 by cumulative time:\n"
                  f"{profile_text(profiler)}\n", flush=True)
    print()
    print(HEADER)
    for res in results:
        print(fmt_row(res["summary"], peers))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
        print(f"wrote {args.json}")
    return 0 if all(r["summary"]["feasible"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
