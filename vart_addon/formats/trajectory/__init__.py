"""Joint trajectories without Blender: :mod:`.model` (the data, unwrapping, waypoint
decimation, limit checks) and :mod:`.files` (CSV, ROS JointTrajectory JSON, Klampt ``.path``)."""
