"""The conformance kit (``semsim.app.testing.conformance_tests``) on the DRS test plugin: a
representation not anchored to words, with its own punctuation rule and unit kinds the scheme
leaves out (issue #47.3)."""

from pathlib import Path

from semsim.app.testing import conformance_tests

HERE = Path(__file__).parent

TestDrsConformance = conformance_tests(
    str(HERE / "drs_plugin.py"), inline=True,
    examples=[HERE / "data/drs/tom-sleeps.clf", HERE / "data/drs/tom-slept.clf"],
    sentences=["Tom sleeps .", "A dog barks loudly .", "The dog barked ."])
