"""Live mode's first pass (issue 21, first defect): the chain's goals (its inputs' targets)
stay on the scene's bridge from one frame change to the next, so the solver analyses them once
per chain, not at every frame (on the 271-link tower that analysis was about 40 ms of each
frame); whoever asks for the bridge next (``bridge_for``: an operator, a bake) gets it without
them, and live mode puts them back at its next new frame with the frames it remembers kept."""
from __future__ import annotations

import bpy
import numpy as np

from vart_addon.animation import live
from vart_addon.bridge import SceneBridge
from vart_addon.shared.bridge_cache import bridge_for
from vart_addon.solver import solver as solver_module


def goals(lk) -> dict:
    """Every joint's target (None or its values and mask)."""
    return {n: None if j.target_q is None else (j.target_q.tolist(), j.target_mask.tolist())
            for n, j in lk.joints.items()}


def test_the_chain_keeps_its_goals_between_frames_and_hands_the_bridge_back_without_them(
        vart_registered, monkeypatch):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.live = True  # solves frame 1: the chain starts and is analysed
    analyses = []
    real = solver_module.analyse
    monkeypatch.setattr(solver_module, "analyse",
                        lambda *a, **k: analyses.append(1) or real(*a, **k))
    for f in range(2, 11):  # as playback does: one new frame per frame change
        scene.frame_set(f)
    assert analyses == []  # the chain's analysis of frame 1 served every frame
    cache = live.cache_of(scene)
    lk = cache.solver.lk
    assert lk.joints["tilt"].target_q is not None  # the chain's input target, kept
    kept = {f: e for f, e in cache.frames.items()}

    bridge = bridge_for(scene)  # as any operator asks for it
    assert bridge.linkage is lk
    fresh = SceneBridge(scene)
    fresh.sync()
    assert goals(lk) == goals(fresh.linkage)  # the scene's own goals only
    assert lk.joints["tilt"].target_q is None

    scene.frame_set(11)  # a new frame: the goals go back on, analysed once
    assert len(analyses) == 1
    assert sorted(cache.frames) == list(range(1, 12))
    assert all(cache.frames[f] is kept[f] for f in kept)  # nothing forgotten
    assert np.isfinite(cache.frames[11].q).all()
    assert scene.vart.status_summary.startswith("Live, frame 11: Converged")
