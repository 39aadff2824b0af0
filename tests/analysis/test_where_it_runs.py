"""Where a study runs (issue 23, item 3): a local process pool, a Dask LocalCluster whose
worker processes load no Blender module, the same table however it is run; a worker that dies
loses only its chunk, retried once and reported; an unreachable scheduler and bad input are
refused before any work; the command line ``python -m vart_addon.analysis``."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import study_models as SM
from repo_paths import REPO
from vart_addon import analysis as A
from vart_addon.analysis.sweep import solve_chunk

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

STUDY = {"format": "vart-study", "version": 1, "chunk": 3,
         "variables": [{"joint": "tilt", "grid": {"start": -0.5, "stop": 0.5, "count": 12}}]}


def plan():
    return A.plan(STUDY, SM.tilted_spring_arm())


@pytest.fixture(scope="module")
def reference():
    return A.run(plan(), workers=0)


def same_table(a, b):
    assert [c.name for c in a.columns] == [c.name for c in b.columns]
    assert a.column("sample") == b.column("sample")
    assert np.abs(np.array(a.column("q:hinge")) - np.array(b.column("q:hinge"))).max() == 0.0


def test_local_process_pool(reference):
    res = A.run(plan(), workers=2)
    same_table(res, reference)
    assert res.run["where"] == "2 local processes" and res.run["retried"] == []


def _no_blender():
    import sys as s
    return tuple(sorted(m for m in s.modules if m.split(".")[0] in ("bpy", "mathutils", "gpu")))


def test_dask_local_cluster(reference):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = A.run(plan(), client=client)
        assert set(client.run(_no_blender).values()) == {()}  # after the chunks ran there
        files = client.run(lambda: __import__("vart_addon").__file__)
    same_table(res, reference)
    assert res.run["workers"] == 2 and res.run["chunks"] == 4
    assert res.run["failed"] == [] and res.run["retried"] == []
    assert all("vart_core.zip" in f for f in files.values())  # the uploaded core


def test_a_dead_worker_loses_only_its_chunk_retried_once(tmp_path, reference):
    marker = str(tmp_path / "died")

    def dies_once(model_text, study_doc, start, values):
        if start == 3 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the worker process dies in the middle of its chunk
        return solve_chunk(model_text, study_doc, start, values)

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = A.run(plan(), client=client, task=dies_once)
    same_table(res, reference)
    # its chunk, and any other chunk the scheduler had already queued on that worker
    retried = {r["first_sample"]: r["reason"] for r in res.run["retried"]}
    assert 3 in retried and "KilledWorker" in retried[3]
    assert res.run["failed"] == []


def test_a_chunk_failing_twice_is_reported_and_left_out():
    def always_fails(model_text, study_doc, start, values):
        if start == 6:
            raise RuntimeError("broken chunk")
        return solve_chunk(model_text, study_doc, start, values)

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = A.run(plan(), client=client, task=always_fails, upload=False)
    assert res.column("sample") == [0, 1, 2, 3, 4, 5, 9, 10, 11]
    assert [r["first_sample"] for r in res.run["failed"]] == [6]
    assert "broken chunk" in res.run["failed"][0]["reason"]


def test_unreachable_scheduler():
    with pytest.raises(A.StudyError, match="scheduler 'tcp://127.0.0.1:9' does not answer"):
        A.connect("tcp://127.0.0.1:9", timeout=1.0)


def cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "vart_addon.analysis", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def test_command_line(tmp_path, reference):
    (tmp_path / "study.json").write_text(json.dumps({**STUDY, "name": "arm"}))
    (tmp_path / "model.json").write_text(SM.tilted_spring_arm())
    out = cli("study.json", "model.json", "--out", "res", "--workers", "2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "res" / "arm.json").read_text())
    assert doc["rows"] == json.loads(json.dumps(reference.rows))
    assert (tmp_path / "res" / "arm.csv").read_text().startswith("sample [1],value:tilt [rad]")


def test_command_line_bad_input(tmp_path):
    bad = {**STUDY, "variables": [{"joint": "nope", "grid": STUDY["variables"][0]["grid"]}]}
    (tmp_path / "study.json").write_text(json.dumps(bad))
    (tmp_path / "model.json").write_text(SM.tilted_spring_arm())
    out = cli("study.json", "model.json", "--out", "res", cwd=tmp_path)
    assert out.returncode == 2 and "joint 'nope' is not in the model" in out.stderr
    newer = json.loads(SM.tilted_spring_arm())
    newer["version"] = 3
    (tmp_path / "new.json").write_text(json.dumps(newer))
    (tmp_path / "study.json").write_text(json.dumps(STUDY))
    out = cli("study.json", "new.json", "--out", "res", cwd=tmp_path)
    assert out.returncode == 2 and "version: 3 is newer" in out.stderr
    out = cli("study.json", "model.json", "--out", "res", "--scheduler", "tcp://127.0.0.1:9",
              "--timeout", "1", cwd=tmp_path)
    assert out.returncode == 2 and "does not answer" in out.stderr
    assert not (tmp_path / "res").exists()
