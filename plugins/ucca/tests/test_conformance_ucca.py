"""semsim's conformance kit (``semsim.app.testing.conformance_tests``) on the UCCA plugin, with the
passages of the paper's Figure 1 (and its second annotation), and with sentences for its
shipped parser (slow: the parser's start). The parser numbers its tokens' paragraph positions
1..n, as the XML writer writes them (#56: it left them 0, unknown, and the kit found the
graphs changed by the XML writer)."""

from pathlib import Path

import pytest

from semsim.app.testing import conformance_tests

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

TestUccaConformance = conformance_tests(
    "ucca", examples=[EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml",
                      EXAMPLES / "fig1-source.annotator2.xml"],
    skip={"test_reader_refuses_bad_bytes": "fuzzed at a larger budget by test_fuzz_xml.py"})

#: the parser's tests alone (the examples' are above)
TestUccaParserConformance = pytest.mark.slow(conformance_tests(
    "ucca", examples=[EXAMPLES / "fig1-source.xml"], sentences=["He gave an apple to John .", "John ate it ."],
    parser="ucca-span",
    skip=["test_self_scores_one", "test_mrp_round_trip", "test_writer_round_trip", "test_signature_names_the_plugin",
          "test_reader_refuses_bad_bytes"]))
