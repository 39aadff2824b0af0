"""Sweeps and Monte Carlo studies without Blender (issue 23, item 1), on mechanisms with known
answers (tests/helpers/study_models.py): a compliant hinge's deflection, torque and its
sensitivity to a swept tilt against the equilibrium K d = m g L cos(tilt + d); where its limit
first becomes active; a sliding load's stability margin and where stability is lost; Monte
Carlo draws from each distribution; bad studies refused before any solve; CSV and JSON."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import study_models as SM
from vart_addon import analysis as A
from vart_addon.analysis import results as R
from vart_addon.physics.support import support_margin
from vart_addon.solver import model_file as MF


def grid(joint, start, stop, count, **kw):
    return {"format": "vart-study", "version": 1,
            "variables": [{"joint": joint, "grid": {"start": start, "stop": stop,
                                                     "count": count}}], **kw}


def arm_results(chunk=4):
    return A.run(A.plan(grid("tilt", -0.6, 0.6, 25, chunk=chunk), SM.tilted_spring_arm()),
                 workers=0)


def test_deflection_torque_and_limit_of_a_compliant_hinge():
    res = arm_results()
    tilt = np.array(res.column("value:tilt"))
    expected = np.array([SM.arm_deflection(t) for t in tilt])
    d = np.array(res.column("deflection:hinge"))
    assert np.abs(d - expected).max() < 1e-6
    assert np.allclose(res.column("torque:hinge"), SM.K * d)
    assert np.allclose(res.column("q:tilt"), tilt, atol=1e-9)
    # the hinge's upper limit: active exactly where the free deflection would pass it
    free = [SM.arm_deflection(t) >= SM.HINGE_UPPER - 1e-6 for t in tilt]
    assert [x == 1 for x in res.column("limit:hinge")] == free
    first = next(e for e in res.derived["limits"] if e["value"] == "hinge")
    assert first["side"] == "upper" and not first["at_start"]
    assert first["values"]["tilt"] == tilt[free.index(True)]
    assert set(res.column("unmet")) == {""}


def test_sensitivity_by_finite_differences_matches_the_analytic_one():
    res = arm_results()
    tilt = np.array(res.column("value:tilt"))
    sens = np.array(res.column("d(deflection:hinge)/d(tilt)"))
    d = np.array(res.column("deflection:hinge"))
    free = d < SM.HINGE_UPPER - 1e-6
    # analytic: dd/dphi = -s / (K + s), s = m g L sin(phi + d); central differences inside
    s = SM.M * SM.G * SM.L * np.sin(tilt + d)
    analytic = -s / (SM.K + s)
    inner = free & np.roll(free, 1) & np.roll(free, -1)
    inner[[0, -1]] = False
    h = tilt[1] - tilt[0]
    assert inner.sum() > 10
    assert np.abs(sens[inner] - analytic[inner]).max() < 0.02 * h / 0.05  # O(h^2)


def test_results_do_not_depend_on_chunks():
    a, b = arm_results(chunk=4), arm_results(chunk=25)
    assert np.abs(np.array(a.column("q:hinge")) - np.array(b.column("q:hinge"))).max() < 1e-6


def test_stability_margin_and_where_it_is_lost():
    doc = grid("slide", 0.0, 1.0, 11, contacts=[{"joint": f"pin{i}"} for i in range(4)])
    res = A.run(A.plan(doc, SM.sliding_load()), workers=0)
    x = np.array(res.column("value:slide"))
    assert np.allclose(res.column("margin"), SM.HALF - x, atol=1e-8)
    assert np.allclose(res.column("com.x"), x, atol=1e-8)
    assert res.column("support") == [4] * 11
    st = res.derived["stability"]
    assert st["first_stable"]["sample"] == 0
    # decided by the contact forces (issue 30, item 5): with the load over the edge the
    # centre of pressure is on it (held, marginally); beyond it the pins would have to pull,
    # and what they cannot give is the load's moment about the edge
    assert st["lost_at"]["values"]["slide"] == pytest.approx(SM.HALF + 0.1)
    weight = 1.0 * SM.G
    np.testing.assert_allclose(res.column("unsupported_moment"),
                               weight * np.maximum(0.0, x - SM.HALF), atol=1e-6 * weight)
    np.testing.assert_allclose(res.column("unsupported_force"), 0.0, atol=1e-6 * weight)
    loads = np.array([res.column(f"load:pin{i}") for i in range(4)])
    held = x <= SM.HALF
    np.testing.assert_allclose(loads.sum(axis=0)[held], weight, rtol=1e-6)
    # the far pins (x = +HALF: pin1, pin2) carry (HALF + x) / (2 HALF) of it, shared
    np.testing.assert_allclose((loads[1] + loads[2])[held], weight * (SM.HALF + x[held]) / (2 * SM.HALF),
                               rtol=1e-6, atol=1e-6 * weight)
    # the load rides on the plate through a virtual slide: the model's guide holds its weight
    np.testing.assert_allclose(res.column("guide_force"), weight, rtol=1e-6)


def test_support_polygon_margin_cases():
    square = [(0, 0), (1, 0), (1, 1), (0, 1), (0.5, 0.5)]
    assert support_margin((0.5, 0.2), square) == pytest.approx(0.2)
    assert support_margin((1.5, 0.5), square) == pytest.approx(-0.5)
    assert support_margin((0.5, 1.0), [(0, 0), (1, 0)]) == pytest.approx(-1.0)
    assert support_margin((3.0, 4.0), [(0, 0)]) == pytest.approx(-5.0)
    assert np.isnan(support_margin((0, 0), []))


@pytest.mark.parametrize("dist, check", [
    ({"uniform": {"low": -0.2, "high": 0.3}}, lambda v: v.min() >= -0.2 and v.max() <= 0.3),
    ({"normal": {"mean": 0.1, "std": 0.05}}, lambda v: abs(v.mean() - 0.1) < 0.02),
    ({"truncnormal": {"mean": 0.0, "std": 0.3, "low": -0.1, "high": 0.2}},
     lambda v: v.min() >= -0.1 and v.max() <= 0.2),
])
def test_monte_carlo(dist, check):
    doc = {"format": "vart-study", "version": 1, "samples": 40, "seed": 3,
           "variables": [{"joint": "tilt", **dist}]}
    p = A.plan(doc, SM.tilted_spring_arm())
    res = A.run(p, workers=0)
    v = np.array(res.column("value:tilt"))
    assert len(v) == 40 and check(v)
    again = A.run(A.plan(doc, SM.tilted_spring_arm()), workers=0)
    assert again.column("value:tilt") == res.column("value:tilt")  # the seed decides
    (slope,) = res.derived["sensitivity"]
    s = SM.M * SM.G * SM.L * np.sin(0.05 + SM.arm_deflection(0.05))
    assert slope["slope"] == pytest.approx(-s / (SM.K + s), abs=0.05)


def test_sensitivities_are_in_the_deflections_unit_per_the_swept_values_unit():
    """Fixed gap (issue 35): the sensitivities' unit was never checked (a mutant naming
    another column's unit survived). The arm rides a cart on a prismatic ``slide``: its
    hinge's deflection (rad) per the cart's position (m) is in rad/m, on a grid (the table's
    column and the summary) and by Monte Carlo (the least-squares slope: 0 here, the cart's
    position does not load the hinge)."""
    lk = SM.tilted_spring_arm_linkage()
    lk.unlock_joint("tilt")
    lk.add_link("cart")
    lk.add_joint("slide", "prismatic", None, "cart", virtual=True, lower=[-1.0], upper=[1.0])
    lk.make_ground_link("base")  # hang the arm's base on the cart (tilt fixed at 0)
    lk.remove_joint("tilt")
    lk.add_joint("on_cart", "fixed", "cart", "base")
    model = MF.dumps(lk)
    res = A.run(A.plan(grid("slide", -0.2, 0.2, 5), model), workers=0)
    col = next(c for c in res.columns if c.name == "d(deflection:hinge)/d(slide)")
    (summary,) = res.derived["sensitivity"]
    assert col.unit == summary["unit"] == "rad/m"
    mc = {"format": "vart-study", "version": 1, "samples": 12, "seed": 1,
          "variables": [{"joint": "slide", "uniform": {"low": -0.2, "high": 0.2}}]}
    (slope,) = A.run(A.plan(mc, model), workers=0).derived["sensitivity"]
    assert slope["unit"] == "rad/m" and slope["slope"] == pytest.approx(0.0, abs=1e-6)
    assert slope["of"] == "deflection:hinge" and slope["by"] == "slide"


def bad(edit):
    doc = grid("tilt", -0.5, 0.5, 5)
    edit(doc)
    return doc


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["variables"][0].update(joint="nope"), "variables[0].joint: joint 'nope' is not"),
    (lambda d: d["variables"][0]["grid"].update(stop=-0.5), "the range is empty"),
    (lambda d: d["variables"][0]["grid"].update(count=0), "count"),
    (lambda d: d["variables"][0]["grid"].update(stop=5.0), "outside joint 'tilt'"),
    (lambda d: d["variables"][0].update(dof=1), "variables[0].dof"),
    (lambda d: d.update(version=2), "version: 2 is newer"),
    (lambda d: d.update(variables=[]), "variables: expected a non-empty list"),
    (lambda d: d.update(variables=[{"joint": "tilt", "normal": {"mean": 0, "std": 0}}],
                        samples=5), "normal.std: expected a number > 0"),
    (lambda d: d.update(variables=[{"joint": "tilt", "normal": {"mean": 0, "std": 1}}]),
     "needs the number of samples"),
    (lambda d: d.update(variables=[{"joint": "tilt", "uniform": {"low": 1, "high": 1}}],
                        samples=5), "the range is empty"),
    (lambda d: d.update(variables=[{"joint": "tilt", "truncnormal": {
        "mean": 0, "std": 0.01, "low": 1, "high": 2}}], samples=5), "6 standard deviations"),
    (lambda d: d.update(contacts=[{"joint": "foot"}]), "contacts[0].joint: joint 'foot'"),
    (lambda d: d.update(chunk=0), "chunk"),
])
def test_bad_study_refused_before_any_solve(edit, message, monkeypatch):
    from vart_addon.analysis import sweep
    monkeypatch.setattr(sweep.Solver, "solve", lambda *a, **k: pytest.fail("solved"))
    with pytest.raises(A.StudyError) as e:
        A.plan(bad(edit), SM.tilted_spring_arm())
    assert message in str(e.value)


def test_csv_and_json_files(tmp_path):
    res = arm_results()
    csv_path, json_path = R.write(res, tmp_path / "out", "arm")
    with open(csv_path, newline="") as f:
        table = list(csv.reader(f))
    assert table[0][:3] == ["sample [1]", "value:tilt [rad]", "q:tilt [rad]"]
    assert len(table) == 26
    i = table[0].index("deflection:hinge [rad]")
    assert [float(r[i]) for r in table[1:]] == res.column("deflection:hinge")
    doc = json.loads(open(json_path).read())
    assert doc["format"] == "vart-study-results"
    assert [c["name"] for c in doc["columns"]] == [c.name for c in res.columns]
    assert doc["rows"] == res.rows
    assert doc["derived"]["limits"][1]["value"] == "hinge"


def test_a_quantity_appended_after_unmet_keeps_error_rows_and_counts_right(monkeypatch):
    """Issue 34, item 3: columns are found by name. A new quantity appended at the end (after
    ``unmet``, where it falls naturally) leaves a failed sample's status, message and numbers
    in their own columns, the sensitivities before the status, and the failures counted."""
    from vart_addon.analysis import quantities as Q
    from vart_addon.analysis import sweep
    from vart_addon.solver import Solver, VartError

    init, row = Q.Recorder.__init__, Q.Recorder.row

    def with_energy(self, *a):
        init(self, *a)
        self.columns = self.columns + [Q.Column("energy", "J")]
        self.index = Q.index_of(self.columns)

    monkeypatch.setattr(Q.Recorder, "__init__", with_energy)
    monkeypatch.setattr(Q.Recorder, "row", lambda self, *a: row(self, *a) + [1.5])
    solve = Solver.solve
    calls = []

    def failing(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise VartError("the third sample cannot be solved")
        return solve(self, *a, **kw)

    monkeypatch.setattr(sweep.Solver, "solve", failing)
    res = A.run(A.plan(grid("tilt", -0.6, 0.6, 7, chunk=10), SM.tilted_spring_arm()),
                workers=0)
    names = [c.name for c in res.columns]
    assert names[-1] == "energy" and names.index("d(deflection:hinge)/d(tilt)") < \
        names.index("status")
    status, unmet = res.column("status"), res.column("unmet")
    assert status[2] == "error" and unmet[2] == "error: the third sample cannot be solved"
    assert "error" not in status[:2] + status[3:]
    assert np.isnan(res.column("energy")[2]) and res.column("energy")[0] == 1.5
    assert np.isnan(res.column("deflection:hinge")[2])
    assert res.column("value:tilt")[2] == pytest.approx(-0.2)
    assert res.failed() == 1
