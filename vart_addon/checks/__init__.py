"""Will it run? Checks of a baked motion in Blender: :mod:`.clearance` (ground penetration and
collisions between links, frame by frame, with Blender's BVH trees)."""
