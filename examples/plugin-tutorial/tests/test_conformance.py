"""semsim's conformance kit on this plugin: pytest tests/ (the plugin installed, pip install -e .)."""

from pathlib import Path

from semsim.app.testing import conformance_tests

HERE = Path(__file__).resolve().parents[1]

TestConformance = conformance_tests("deps", examples=[HERE / "a.conllu", HERE / "b.conllu"],
                                    sentences=["He gave an apple to John .", "Dogs bark ."])
