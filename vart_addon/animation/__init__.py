"""Keys and bakes: the Blender side of animating a linkage.

- :mod:`.keying`: Key Pose and the channel paths keys are written to;
- :mod:`.bake`: Bake Range, frame by frame, with its parts :mod:`.bake_inputs` (what is keyed
  becomes goals), :mod:`.bake_keys` (the solved poses written as keys) and :mod:`.bake_result`
  (what a bake reports).

F-curves themselves are reached only through :mod:`vart_addon.bridge.animation`.
"""
