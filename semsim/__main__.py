"""``python -m semsim``: the command line."""

from .cli import main

main()
