"""Poses of Blender objects for tests that compare them with vart or URDF poses."""

import numpy as np


def rigid(ob) -> np.ndarray:
    """``ob.matrix_world`` as a float64 4x4 with the object's scale divided out of its columns
    (``T_world_object``)."""
    M = np.array(ob.matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M
