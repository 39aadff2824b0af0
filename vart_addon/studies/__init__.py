"""Studies in Blender: the scene as a model file (:mod:`.model_export`) for
:mod:`vart_addon.analysis` (which runs without Blender), and its File > Export entry
(:mod:`.menus`); the sidebar's study settings as a study document (:mod:`.study_doc`); a
study run on the scene and keyed over frames, one sample per frame (:mod:`.keyed`)."""
