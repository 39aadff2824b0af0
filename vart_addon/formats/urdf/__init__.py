"""URDF without Blender.

- :mod:`.files`: read and write URDF files (the model re-exported: :mod:`.base`,
  :mod:`.geometry`, :mod:`.model`, :mod:`.kinematics`);
- :mod:`.to_linkage`: a URDF robot as a vart linkage; :mod:`.from_linkage`: a linkage back to
  a URDF robot;
- :mod:`.mesh_paths`: where the mesh files a URDF names are (``package://``, ``file://``,
  relative).
"""
