"""The kernel: what a plugin stands on (the graph model, schemes, the measures, statistics,
the records and hooks a plugin registers with, file primitives, graphs as JSON, the MRP
format). It knows no representation and no command line, and imports nothing from
:mod:`semsim.app` (docs/architecture.md; held by tests/test_architecture.py)."""
