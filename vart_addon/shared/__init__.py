"""Blender-side state and helpers shared by everything above the bridge.

Operators, panels, menus, examples, the animation and I/O packages all read the same things:
which joint and link are active, the joints' names, the display units of per-DoF values, the
cached scene bridge, and the current frame kept across work that steps the scene. They live
here, in public modules below all of those, so none of them imports another's internals:

- :mod:`.selection`: ``joint_names``, ``joints_of_link``, ``active_link``, ``active_joint``,
  ``stored``, ``joint_type_of`` and the 3D cursor's pose (``cursor_pose``);
- :mod:`.units`: per-DoF values between display units and metres / radians;
- :mod:`.bridge_cache`: the one cached :class:`~vart_addon.bridge.SceneBridge` per scene and
  the solve settings of a scene (``solve_kw``);
- :mod:`.frames`: :func:`~.frames.kept_frame`, the scene's frame and subframe restored
  after work that steps through frames, whatever happens in it; :func:`~.frames.set_frame`,
  a frame change after which animated values are exact;
- :mod:`.preferences`: the add-on's preferences (*Package Search Paths*, read by every robot
  import), registered with the add-on.
"""
