"""Command-line commands that live in their own modules; :mod:`semsim.app.cli` loads each one
lazily, by name, when it is run."""
