"""Study throughput (issue 23, item 3): samples per second of a sweep of the compliant arm
(tests/helpers/study_models.py, 2000 samples in chunks of 100) in this process, on a local
process pool and on a Dask LocalCluster, with 1 and 2 workers.

    .venv/bin/python bench/analysis_bench.py
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(HERE, "..", "tests", "helpers")]

import study_models as SM  # noqa: E402
from vart_addon import analysis as A  # noqa: E402

STUDY = {"format": "vart-study", "version": 1, "chunk": 100,
         "variables": [{"joint": "tilt", "grid": {"start": -0.6, "stop": 0.6, "count": 2000}}]}


def main():
    os.environ["PYTHONPATH"] = os.path.dirname(HERE)  # the pool's spawned processes
    model = SM.tilted_spring_arm()
    rows = [("this process", A.run(A.plan(STUDY, model), workers=0))]
    for n in (1, 2):
        rows.append((f"process pool, {n}", A.run(A.plan(STUDY, model), workers=n)))
    from distributed import Client, LocalCluster
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            rows.append((f"dask LocalCluster, {n}", A.run(A.plan(STUDY, model), client=client)))
    for label, res in rows:
        r = res.run
        print(f"  {label:24s} {r['samples']} samples {r['seconds']:6.2f} s  "
              f"{r['samples_per_s']:7.1f} samples/s")


if __name__ == "__main__":
    main()
