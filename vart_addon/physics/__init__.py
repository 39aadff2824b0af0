"""Physics without Blender (numpy, and MuJoCo imported lazily): the statics of a pose
(:mod:`.static_model`, :mod:`.statics`, :mod:`.qp`, :mod:`.support`), contacts and slip over a
range of poses (:mod:`.ground_contacts`, :mod:`.feasibility`); :mod:`.model` builds a MuJoCo
model of a URDF robot through ``MjSpec``; :mod:`.replay` plays a joint trajectory on it as
position-actuator targets and measures what happens; :mod:`.mjcf_export` writes the model,
posed at a configuration, as an MJCF file."""
