"""Command-line commands that live in their own modules; :mod:`semsim.cli` loads each one
lazily, by name, when it is run."""
