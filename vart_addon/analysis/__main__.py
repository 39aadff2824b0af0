"""``python -m vart_addon.analysis study.json model.json --out results/``: run a study headless.

Options: ``--scheduler tcp://host:8786`` (a Dask scheduler: the samples go to its workers),
``--workers N`` (local processes; 0: this process; default: one per CPU), ``--name`` (the
output files' name, default the study's ``name``), ``--timeout`` (seconds to reach the
scheduler). Bad input (a study or model error, an unreachable scheduler) is reported before
any work, with exit status 2; chunks left out after their retry give exit status 1.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..solver import VartError
from ..solver.text import load_json
from . import results, runner


def _load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return load_json(f.read())
    except OSError as e:
        raise VartError(f"{what} {path!r}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise VartError(f"{what} {path!r}: not JSON: {e}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vart_addon.analysis",
                                 description="Run a vart study (sweep or Monte Carlo) on a "
                                 "model file.")
    ap.add_argument("study", help="the study (JSON, format vart-study)")
    ap.add_argument("model", help="the model file (JSON, format vart-model)")
    ap.add_argument("--out", required=True, help="folder for <name>.csv and <name>.json")
    ap.add_argument("--scheduler", help="a Dask scheduler's address, e.g. tcp://host:8786")
    ap.add_argument("--workers", type=int, default=None,
                    help="local processes (0: this process; default: one per CPU)")
    ap.add_argument("--name", help="output file name (default: the study's name)")
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds to wait for the scheduler (default 10)")
    a = ap.parse_args(argv)
    if a.workers is not None and a.workers < 0:
        ap.error("--workers must be >= 0")
    client = None
    try:
        doc = _load_json(a.study, "study")
        try:
            with open(a.model, encoding="utf-8") as f:
                model_text = f.read()
        except OSError as e:
            raise VartError(f"model file {a.model!r}: {e.strerror or e}") from None
        p = runner.plan(doc, model_text)
        if a.scheduler:
            client = runner.connect(a.scheduler, a.timeout)
    except VartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    total = sum(len(v) for _, v in p.chunks)
    print(f"{total} samples in {len(p.chunks)} chunks", file=sys.stderr)
    try:
        res = runner.run(p, workers=a.workers, client=client)
    finally:
        if client is not None:
            client.close()
    paths = results.write(res, a.out, a.name or p.study.name)
    r = res.run
    print(f"{r['samples']} samples in {r['seconds']:.2f} s ({r['samples_per_s']:.1f}/s, "
          f"{r['where']}); wrote {paths[0]} and {paths[1]}", file=sys.stderr)
    for k in ("retried", "failed"):
        for c in r[k]:
            print(f"chunk from sample {c['first_sample']} {k} by {c['by']}: {c['reason']}",
                  file=sys.stderr)
    return 1 if r["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
