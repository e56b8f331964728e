"""semsim's conformance kit (``semsim.app.testing.conformance_tests``) on the AMR plugin, with the
AMRs of the paper's Figure 1. The amrlib parser needs a model of hundreds of MB: its part of
the kit (``sentences=``) runs where one is installed (``test_amrlib.py`` checks the parser on a tiny one)."""

from pathlib import Path

from semsim.app.testing import conformance_tests

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

TestAmrConformance = conformance_tests(
    "amr", examples=[EXAMPLES / "fig1-source.amr", EXAMPLES / "fig1-correction.amr"],
    skip={"test_reader_refuses_bad_bytes": "fuzzed at a larger budget by test_fuzz_penman.py"})
