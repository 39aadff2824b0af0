"""Will it run? Checks of a baked motion in Blender: :mod:`.clearance` (ground penetration and
collisions between links, frame by frame, with Blender's BVH trees), :mod:`.replay` (the baked
range replayed in MuJoCo) and :mod:`.mjcf_export` (the MuJoCo model of the scene's robot,
at a frame, as an MJCF file)."""
