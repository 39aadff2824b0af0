"""Joint trajectories out of and into a Blender scene: the bpy side of
:mod:`vart_addon.formats.trajectory.model` and :mod:`vart_addon.formats.trajectory.files`.

- :mod:`.joint_columns`: the scene's joint columns (names, kinds, limits, velocity limits), and
  what the other modules share (:class:`TrajectoryError`, the file formats).
- :mod:`.sampling`: :func:`sample_trajectory`, every column at every frame of a range.
- :mod:`.exporting`: :func:`export_trajectory`, a sampled frame range written to a file
  (of one SRDF planning group's joints, :mod:`.joint_groups`, when asked), and
  :func:`export_timing`, the re-timing such an export gives the range, without a file.
- :mod:`.importing`: :func:`read_trajectory`, :func:`apply_trajectory` and
  :func:`import_trajectory`, a file keyed onto the joints and baked.
"""
from __future__ import annotations

# The names used from outside (operators, demo, tests), importable from the package as they
# were from the single module it replaces.
from .exporting import export_timing, export_trajectory
from .importing import apply_trajectory, import_trajectory, read_trajectory
from .joint_columns import TrajectoryError, columns
from .sampling import sample_trajectory

__all__ = ["TrajectoryError", "columns", "sample_trajectory", "export_trajectory", "export_timing",
           "read_trajectory", "apply_trajectory", "import_trajectory"]
