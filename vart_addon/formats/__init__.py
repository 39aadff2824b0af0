"""File formats without Blender: plain Python and numpy, never ``bpy``.

- :mod:`.urdf`: URDF robots (the file model, reading and writing, mesh paths) and the ways
  between a URDF robot and a vart :class:`~vart_addon.solver.Linkage`;
- :mod:`.trajectory`: joint trajectories (the data, decimation, limits) and their files (CSV,
  ROS JointTrajectory JSON, Klampt ``.path``);
- :mod:`.stl`: STL meshes; :mod:`.atomic`: the atomic file writer every format uses.

These import :mod:`vart_addon.solver` (downward) and nothing above it; the Blender halves live
in :mod:`vart_addon.io_urdf` and :mod:`vart_addon.io_trajectory`.
"""
