"""Physics without Blender (numpy, and MuJoCo imported lazily).

Statics: :mod:`.static_model` (the real robot's tree, floating base, loops), :mod:`.statics`
(contact forces and torques of a pose, by :mod:`.qp`), :mod:`.support` (support polygons,
friction pyramids); over a range of poses, :mod:`.ground_contacts` (contacts, slip) and
:mod:`.feasibility`. MuJoCo: :mod:`.model` builds a MuJoCo model of a URDF robot through
``MjSpec`` (:mod:`.closures`: loops and ball joints); :mod:`.replay` plays a joint trajectory
on it (:mod:`.trajectory`, :mod:`.contacts`, :mod:`.replay_result`) and measures what happens;
:mod:`.mjcf_export` writes the model, posed at a configuration, as an MJCF file."""
