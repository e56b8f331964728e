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


def test_the_kit_names_a_bad_argument_and_its_position(tmp_path):
    """#56: ``examples="a.toy"`` (one string) was taken character by character, ending in
    ``IsADirectoryError: '/'``; a missing file or a sentence that is no string was a traceback."""
    import pytest

    from semsim.kernel.errors import InputError
    example = HERE / "data/drs/tom-sleeps.clf"
    for kwargs, message in [
            ({"examples": str(example)}, r"^conformance_tests: examples: expected a list of files, not '/"),
            ({"examples": [example, tmp_path / "none.clf"]}, r"^conformance_tests: examples\[1\]: .*none\.clf"),
            ({"examples": [tmp_path]}, r"^conformance_tests: examples\[0\]: .* is not a file"),
            ({"examples": []}, r"^conformance_tests: examples: at least one example file is needed"),
            ({"examples": [example], "sentences": ["Tom sleeps .", None]},
             r"^conformance_tests: sentences\[1\]: None is not a string")]:
        with pytest.raises(InputError, match=message):
            conformance_tests(str(HERE / "drs_plugin.py"), inline=True, **kwargs)
