"""``python -m semsim``: the command line."""

from .app.cli import main

main()
