"""A study's solver traces (issue 23, item 6): with ``"trace": true`` each sample's
iterations (errors per level, step, damping, time) are kept in the results' JSON, the table
is the same as without, and a trace that is not true or false is refused before any solve."""
from __future__ import annotations

import json

import pytest

import study_models as SM
from vart_addon import analysis as A
from vart_addon.analysis import results as R


def study(**kw):
    return {"format": "vart-study", "version": 1, "chunk": 3,
            "variables": [{"joint": "tilt", "grid": {"start": -0.3, "stop": 0.3, "count": 7}}],
            **kw}


def test_each_sample_keeps_its_iterations_and_the_table_is_unchanged():
    model = SM.tilted_spring_arm()
    plain = A.run(A.plan(study(), model), workers=0)
    traced = A.run(A.plan(study(trace=True), model), workers=0)
    assert plain.rows == traced.rows and not plain.traces
    assert sorted(traced.traces) == list(range(7))
    iterations = traced.column("iterations")
    for sample, rows in traced.traces.items():
        assert [r["iteration"] for r in rows] == list(range(len(rows)))
        assert iterations[sample] - rows[-1]["iteration"] in (0, 1)
        assert rows[-1]["errors"]["lock"] < 1e-9  # the swept value is held
        assert set(rows[0]["damping"]) == set(rows[0]["errors"]) >= {"potential", "lock"}
    # sample 0 starts from the model's tilt 0: its lock asks for -0.3 rad
    assert traced.traces[0][0]["errors"]["lock"] == pytest.approx(0.3)
    doc = json.loads(R.to_json(traced))
    assert doc["trace"]["3"] == traced.traces[3]
    assert "trace" not in json.loads(R.to_json(plain))


def test_a_trace_that_is_not_a_boolean_is_refused():
    with pytest.raises(A.StudyError, match="trace: expected true or false"):
        A.plan(study(trace="yes"), SM.tilted_spring_arm())
