"""Smoke run of the benchmark (bench/run.py's code path): three frames of each problem.

Checks feasibility only (hard residual < 1e-6, and the drag for reachable problems); timing
belongs to bench/, not to tests. Skipped when ../shared/bench is absent.
"""


import numpy as np
import pytest

import vart_bench as vb  # noqa: E402
from repo_paths import load_script

pytestmark = pytest.mark.skipif(not vb.DEFAULT_PROBLEMS.is_dir(),
                                 reason=f"{vb.DEFAULT_PROBLEMS} not present")


@pytest.mark.parametrize("name", vb.PROBLEM_NAMES)
def test_three_frames_are_feasible(name):
    prob = vb.BenchProblem(name)
    hard0, _ = prob.residuals(0)
    assert hard0 < 1e-9  # the closures hold at q0 as built
    res = vb.run_problem(prob, frames=3)
    s = res["summary"]
    assert s["frames"] == 3
    assert s["max_hard"] < vb.FEASIBLE_TOL, res["per_frame"]
    if prob.reachable:
        assert max(res["per_frame"]["drag"]) < vb.FEASIBLE_TOL, res["per_frame"]
    assert s["feasible"] and s["frames_out_of_limits"] == 0


def test_closure_mapping_p2():
    prob = vb.BenchProblem("P2_fourbar_chain")
    closures = [j for j in prob.lk.joints.values() if not j.is_tree]
    assert len(closures) == len(prob.hard) == 10
    assert all(j.jtype.name == "revolute" and not j.virtual for j in closures)
    alt = vb.BenchProblem("P2_fourbar_chain", closure="point-slider")
    assert {j.jtype.name for j in alt.lk.joints.values() if not j.is_tree} == {"point-slider"}
    res = vb.run_problem(alt, frames=2)
    assert res["summary"]["feasible"]


def test_closure_mapping_p1b_and_repeats():
    prob = vb.BenchProblem("P1b_hexapod_overreach")
    kinds = sorted(j.jtype.name for j in prob.lk.joints.values() if not j.is_tree)
    assert kinds == ["cartesian-3"] + ["spherical"] * 6
    assert prob.settings.stall_tol == 1e-5 and prob.settings.tol == 1e-6
    q = prob.get_state()
    res = vb.run_problem(prob, frames=2, repeats=3)
    assert res["summary"]["repeats"] == 3 and res["summary"]["feasible"]
    assert not np.array_equal(prob.get_state(), q)


def test_run_py_smoke(tmp_path, capsys):
    run = load_script("bench/run.py", "vart_bench_run")

    out = tmp_path / "r.json"
    assert run.main(["--problem", "P2_fourbar_chain", "--frames", "2", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| P2_fourbar_chain |" in text and "placo" in text
    assert out.is_file()
    peers = run.peer_figures(vb.DEFAULT_PROBLEMS.parent / "PEERS.md")
    assert peers["P3_tower"][0] == "mink" and peers["P1_hexapod"][0] == "placo"
