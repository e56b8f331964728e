"""semsim's conformance kit (``semsim.app.testing.conformance_tests``) on the UCCA plugin, with the
passages of the paper's Figure 1 (and its second annotation).

Without sentences: the parser's part of the kit finds that a parsed graph's tokens have no
paragraph positions (``para_pos`` 0, unknown) while the XML writer writes 1..n, which read
back as known. No score changes (the legacy variant takes an unknown position as the token's
place, which is the same number here), but the graphs differ in that field; until the parser
sets the positions, `test_parsed_graphs_survive_every_route` would fail on the XML writer."""

from pathlib import Path

from semsim.app.testing import conformance_tests

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

TestUccaConformance = conformance_tests(
    "ucca", examples=[EXAMPLES / "fig1-source.xml", EXAMPLES / "fig1-correction.xml",
                      EXAMPLES / "fig1-source.annotator2.xml"],
    skip={"test_reader_refuses_bad_bytes": "fuzzed at a larger budget by test_fuzz_xml.py"})
