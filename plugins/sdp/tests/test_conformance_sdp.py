"""semsim's conformance kit (``semsim.app.testing.conformance_tests``) on the DM, PSD and EDS plugin:
hand-made graphs of the three frameworks (``sdp_data.py``), a PSD one with a cycle."""

from pathlib import Path

from semsim.app.testing import conformance_tests

TestSdpConformance = conformance_tests(
    "sdp", examples=[Path(__file__).parent / "data" / "sample.mrp"],
    skip={"test_reader_refuses_bad_bytes": "fuzzed at a larger budget by test_fuzz_sdp.py"})
