"""The directory ``evaluate.load`` is given (:func:`semsim.app.hf.module_path`); ``usim.py`` is the
module's script. A package so that setuptools ships the script in the wheel with the rest of
semsim; nothing imports it as ``semsim.app.hf.usim.usim`` but tests (it imports ``evaluate``)."""
