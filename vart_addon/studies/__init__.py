"""Studies in Blender: the scene as a model file (:mod:`.model_export`) for
:mod:`vart_addon.analysis` (which runs without Blender), and its File > Export entry
(:mod:`.menus`)."""
