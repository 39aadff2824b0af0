"""Corrupted scenes (issue 19, "keep it caught"): any one stored value of ``ob["vart"]``
deleted, retyped, NaN, infinite, huge, dangling or resized makes a sync-and-solve either work
or refuse with a SchemaError / BridgeError naming the object, and a refusal changes nothing.
A few hundred cases in ``make test``; ``VART_FUZZ_EXAMPLES`` for more."""
from __future__ import annotations

import os

import bpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blender_scenes as BS
from vart_addon.bridge import BridgeError, SceneBridge
from vart_addon.solver import Settings, VartError

EXAMPLES = int(os.environ.get("VART_FUZZ_EXAMPLES", "200"))
BAD_VALUES = [None, "x", float("nan"), float("inf"), 1e39, -1, 0, True, [], [1.0] * 17,
              {"a": 1}, [float("nan")] * 16]


def _leaves(group, path=()):
    """Every key path of a stored ``["vart"]`` group (groups and their values)."""
    for k in group.keys():
        v = group[k]
        yield path + (k,)
        if hasattr(v, "keys"):
            yield from _leaves(v, path + (k,))


@pytest.fixture(scope="module")
def fourbar():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obs, _ = BS.parented_fourbar(Settings(tol=1e-10))
    originals = {n: ob["vart"].to_dict() for n, ob in obs.items()}
    paths = [(n, p) for n, ob in obs.items() for p in _leaves(ob["vart"])]
    return obs, originals, paths


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.data())
def test_one_corrupted_value_is_solved_or_refused_and_a_refusal_changes_nothing(fourbar, data):
    obs, originals, paths = fourbar
    for n, ob in obs.items():  # every example starts from the intact scene
        ob["vart"] = originals[n]
    name, path = data.draw(st.sampled_from(paths))
    action = data.draw(st.sampled_from(["delete"] + list(range(len(BAD_VALUES)))))
    group = obs[name]["vart"]
    for k in path[:-1]:
        group = group[k]
    if action == "delete":
        del group[path[-1]]
    else:
        group[path[-1]] = BAD_VALUES[action]
    before = repr(BS.scene_snapshot())
    try:
        bridge = SceneBridge(bpy.context.scene)
        bridge.solve()
        bridge.write_back()
    except (BridgeError, VartError) as e:
        assert repr(BS.scene_snapshot()) == before, (name, path, action, str(e))
        text = str(e)
        assert text and "object '" in text or "joint '" in text or "link '" in text, text
