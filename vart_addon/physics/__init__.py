"""Physics without Blender (numpy, and MuJoCo imported lazily): :mod:`.model` builds a MuJoCo
model of a URDF robot through ``MjSpec``; :mod:`.replay` plays a joint trajectory on it as
position-actuator targets and measures what happens; :mod:`.mjcf_export` writes the model,
posed at a configuration, as an MJCF file."""
