"""Where a study runs (issue 23, item 3): a local process pool, a Dask LocalCluster whose
worker processes load no Blender module, the same table however it is run; a worker that dies
loses only its chunk, retried once and reported; an unreachable scheduler and bad input are
refused before any work; the command line ``python -m vart_addon.analysis``."""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import study_models as SM
import study_tasks
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


def test_a_process_of_the_local_pool_dying_is_retried_and_reported(tmp_path, reference):
    """Fixed gap (issue 35): the pool's retry report was never checked. A process dying
    breaks the pool: its chunk and every chunk not yet finished are solved again in this
    process, each reported once, by vart."""
    task = functools.partial(study_tasks.dies_once, str(tmp_path / "died"))
    res = A.run(plan(), workers=2, task=task)
    same_table(res, reference)
    retried = {r["first_sample"]: r for r in res.run["retried"]}
    assert 3 in retried and "BrokenProcessPool" in retried[3]["reason"]
    assert {r["by"] for r in retried.values()} == {"vart"}
    assert set(retried) <= {0, 3, 6, 9} and res.run["failed"] == []


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


def _thread_limit():
    import threadpoolctl

    from vart_addon.solver import threads
    return threads.available(), threadpoolctl.__file__


def test_dask_workers_get_the_thread_limit_with_the_core():
    """threadpoolctl travels in the uploaded core (workers need only numpy and distributed),
    so a worker's solves run on one BLAS thread too."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        A.run(A.plan({**STUDY, "chunk": 12}, SM.tilted_spring_arm()), client=client)
        found = list(client.run(_thread_limit).values())
    assert found[0][0] is True and "vart_core.zip" in found[0][1]


def test_the_schedulers_own_reruns_are_reported():
    """Fixed defect (issue 35): a task whose worker died was run again by Dask's scheduler
    (within ``allowed-failures``) and vart said nothing. Now each such chunk is in
    ``run.retried`` with ``by: "dask"``."""
    import tempfile
    task = functools.partial(study_tasks.dies_once, os.path.join(tempfile.mkdtemp(), "died"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = A.run(plan(), client=client, task=task)
    assert res.column("sample") == list(range(12)) and res.run["failed"] == []
    by = {r["first_sample"]: r for r in res.run["retried"]}
    assert by[3]["by"] == "dask" and "ran it again 1 time(s)" in by[3]["reason"]
    assert all(r["by"] == "dask" for r in by.values())  # vart had nothing to retry


def test_reruns_read_from_the_schedulers_events():
    """What each ``remove-worker`` event means for a chunk: a task running or waiting on the
    worker is run again unless the scheduler gave up on it (KilledWorker: vart's retry,
    reported by vart); a lost result is recomputed; other keys and older events are not
    this run's."""
    from vart_addon.analysis.runner import _dask_reruns
    chunk_of = {"a": (0, [0.1]), "b": (3, [0.2]), "b2": (3, [0.2]), "c": (6, [0.3])}

    def removed(t, worker, processing=(), lost=(), expected=False):
        return (t, {"action": "remove-worker", "worker": worker, "expected": expected,
                    "processing-tasks": set(processing), "lost-computed-tasks": set(lost)})
    events = [removed(1.0, "w0", ["a"]),                    # before this run
              (5.0, {"action": "add-worker", "worker": "w3"}),
              removed(6.0, "w1", ["a", "b", "other"]),
              removed(7.0, "w2", ["b"], lost=["c"]),
              removed(8.0, "w4", ["b2"], expected=True)]
    out = _dask_reruns(events, chunk_of, gave_up={"b"}, since=2.0)
    assert [(r["first_sample"], r["by"]) for r in out] == [(0, "dask"), (3, "dask"),
                                                           (3, "dask"), (6, "dask")]
    reasons = [r["reason"] for r in out]
    assert "1 time(s): its worker (w1 died)" in reasons[0]
    assert "1 time(s): its worker (w1 died)" in reasons[1]  # b: w2's death gave up
    assert "(w4 left)" in reasons[2] and "(w2 died)" in reasons[3]


def test_a_dead_worker_loses_only_its_chunk_retried_once(tmp_path, reference):
    task = functools.partial(study_tasks.dies_once, str(tmp_path / "died"))
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        res = A.run(plan(), client=client, task=task)
    same_table(res, reference)
    # its chunk, and any other chunk the scheduler had already queued on that worker
    retried = {r["first_sample"]: r["reason"] for r in res.run["retried"] if r["by"] == "vart"}
    assert 3 in retried and "KilledWorker" in retried[3]
    assert res.run["failed"] == []
    # allowed-failures 0: the scheduler re-ran nothing itself
    assert [r for r in res.run["retried"] if r["by"] == "dask"] == []


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


def test_command_line_files_nested_too_deeply(tmp_path):
    """Fixed defect (issue 35): a model file nested 100,000 deep raised RecursionError (exit
    status 1 and a traceback); the model file and the study are refused with status 2."""
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "study.json").write_text(json.dumps(STUDY))
    (tmp_path / "model.json").write_text(SM.tilted_spring_arm())
    (tmp_path / "deep.json").write_text(deep)
    out = cli("study.json", "deep.json", "--out", "res", "--workers", "0", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "model file: not JSON: arrays and objects nested more than 500 deep (line 1, " \
           "column 501)" in out.stderr
    out = cli("deep.json", "model.json", "--out", "res", "--workers", "0", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "study 'deep.json': not JSON: arrays and objects nested more than 500 deep" \
        in out.stderr
    assert not (tmp_path / "res").exists()


def test_the_uploaded_core_runs_a_study_by_itself(tmp_path):
    """What Dask workers get (runner.core_archive) imports and runs a study with contacts in a
    fresh interpreter that has only it and numpy: nothing it needs is left out (a module
    missing from it made workers fail to load tasks, and the run wait forever)."""
    import subprocess
    import sys
    import textwrap

    import study_models as SM
    from vart_addon.analysis.runner import core_archive
    core = core_archive(str(tmp_path))
    (tmp_path / "model.json").write_text(SM.sliding_load())
    code = textwrap.dedent(f"""
        import json, sys
        sys.path = [p for p in sys.path if 'work' not in p or 'site-packages' in p]
        sys.path.insert(0, {core!r})
        import vart_addon.analysis as A
        assert A.__file__.startswith({core!r}), A.__file__
        doc = {{"format": "vart-study", "version": 1, "variables": [{{"joint": "slide",
               "grid": {{"start": 0.0, "stop": 1.0, "count": 3}}}}],
               "contacts": [{{"joint": "pin0"}}, {{"joint": "pin1"}}]}}
        res = A.run(A.plan(doc, open({str(tmp_path / 'model.json')!r}).read()), workers=0)
        print(json.dumps(res.column("stable")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert len(json.loads(out.stdout)) == 3


def test_a_study_with_contacts_gives_the_same_table_on_dask():
    """Issue 30, item 5: stability by contact forces (the statics in the workers' core) gives
    on Dask the table this process gives: the same verdicts, the numbers to what the solver
    promises (both run one BLAS thread; stalled solves agree to the stall rule's bound, see
    tests/helpers/solver_tolerances.py; the statics to 1e-6 of the weight on top)."""
    from solver_tolerances import stalled_spring_q, stalled_spring_torque
    from vart_addon.examples import msim_models as MM
    from vart_addon.solver import Settings
    from vart_addon.solver import model_file as MF
    lk, study = MM.step_probe()
    doc = {**study, "chunk": 4,
           "variables": [{"joint": "step", "grid": {"start": 0.0, "stop": 0.02, "count": 11}}]}
    text = MF.dumps(lk)
    here = A.run(A.plan(doc, text), workers=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        there = A.run(A.plan(doc, text), client=client)
    assert [c.name for c in there.columns] == [c.name for c in here.columns]
    assert there.column("stable") == here.column("stable")
    assert here.column("stable")[0] == 1 and here.column("stable")[-1] == 0
    stall = Settings().stall_tol
    weight = 9.81 * sum(link.mass for link in lk.links.values())
    dq = stalled_spring_q(stall, MM.LEG_STIFFNESS)
    force = stalled_spring_torque(stall, MM.LEG_STIFFNESS) / 0.04 + weight * (dq + 1e-6)
    energy = np.array(here.column("energy"))
    np.testing.assert_allclose(there.column("energy"), energy, rtol=0,
                               atol=2 * stall + 1e-14 * np.abs(energy).max())
    # where the heel's limit engages the valley is flat along the contact: only the energy
    # is bounded there (see test_msim_examples.test_the_step_probe_scene_is_the_model)
    heel = np.array(here.column("limit:r_heel.tz"))
    smooth = np.r_[True, heel[1:] == heel[:-1]]
    for c in here.columns:
        if c.unit in ("", "1", "J") or c.name.startswith("d("):
            continue
        tol = force if c.unit == "N" else stalled_spring_torque(stall, MM.LEG_STIFFNESS) + \
            1e-6 * weight if c.unit == "N m" else dq
        np.testing.assert_allclose(np.array(there.column(c.name))[smooth],
                                   np.array(here.column(c.name))[smooth], rtol=0,
                                   atol=tol, err_msg=c.name)
