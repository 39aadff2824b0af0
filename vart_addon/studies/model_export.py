"""The scene as a model file (:mod:`vart_addon.solver.model_file`): the linkage the scene's
bridge solves (links, joints, goals, the spanning tree and values as they are now), the
scene's gravity and the solver settings of a one-shot solve (the scene's iterations, at least
:data:`~vart_addon.shared.bridge_cache.ONE_SHOT_ITERATIONS`, no time budget). The file is
written atomically; the scene is not changed."""
from __future__ import annotations

import os

from ..formats.atomic import write_atomic
from ..shared.bridge_cache import bridge_for, solve_kw
from ..solver import model_file as MF


def model_text(scene) -> str:
    """The model file's JSON text of ``scene`` (raises the bridge's SchemaError/BridgeError
    for a scene the bridge refuses)."""
    bridge = bridge_for(scene)
    bridge.sync()
    kw = solve_kw(scene, one_shot=True)
    lk = bridge.linkage
    assert lk is not None  # synced
    old = lk.gravity
    lk.set_gravity(kw["gravity"])  # as every solve of the scene does
    try:
        return MF.dumps(lk, kw["settings"])
    finally:
        lk.set_gravity(old)


def export_model(scene, path) -> str:
    """Write ``scene``'s model file to ``path`` (atomically); returns the path written."""
    path = os.fspath(path)
    write_atomic(path, model_text(scene).encode("utf-8"), "model file")
    return path
