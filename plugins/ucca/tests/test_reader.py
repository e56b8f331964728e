"""The direct UCCA XML reader: content, and one-line errors naming file and line."""

from __future__ import annotations

import pytest

import semsim
from semsim import InputError
from semsim_ucca.scheme import UCCA


def test_figure1_source(examples):
    g = semsim.read(examples / "fig1-source.xml")
    assert g.scheme is UCCA and g.id == "fig1-source"
    assert [t.text for t in g.tokens] == ["He", "gva", "an", "apple", "for", "john", "."]
    assert g.tokens[-1].punct and not g.tokens[0].punct
    assert g.units[g.root].id == "1.1"
    labels = sorted(lab for e in g.edges for lab in e.labels)
    assert labels == sorted(["H", "U", "A", "P", "A", "A", "E", "C", "R", "C"])
    assert g.sentence_ends == (7,)
    assert g.meta["source"].endswith("fig1-source.xml")


def test_figure1_numbers_from_xml(examples):
    s = semsim.usim(examples / "fig1-source.xml", examples / "fig1-correction.xml")
    c = s.parts["s->r"]
    assert (c.matched1, c.total1, c.matched2, c.total2) == (7, 9, 7, 7)  # punctuation not counted


def test_remote_implicit_and_categories(examples, tmp_path):
    g = semsim.read(examples / "fig1-source.annotator2.xml")
    assert [u.id for u in g.units if u.implicit] == ["1.12"]
    assert [(g.units[e.parent].id, g.units[e.child].id) for e in g.edges if e.remote] == [("1.8", "1.3")]
    # new-style <category> children, two categories on one edge
    text = (examples / "fig1-correction.xml").read_text().replace(
        '<edge toID="1.4" type="P">\n        <attributes />',
        '<edge toID="1.4" type="P">\n        <attributes />\n        <category tag="P" />\n'
        '        <category tag="D" />')
    f = tmp_path / "multi.xml"
    f.write_text(text)
    g = semsim.read(f)
    assert ("D", "P") in [e.labels for e in g.edges]


_H_EDGE = b'<edge toID="1.2" type="H">\n        <attributes />\n      </edge>\n'


def _broken(tmp_path, examples, name, transform):
    f = tmp_path / name
    f.write_bytes(transform((examples / "fig1-source.xml").read_bytes()))
    return f


@pytest.mark.parametrize("name, transform, message", [
    ("truncated.xml", lambda b: b[: len(b) // 2], r"truncated.xml:\d+: malformed XML: no element found"),
    ("malformed.xml", lambda b: b.replace(b"</node>", b"</nod>", 1), r"malformed.xml:7: malformed XML: mismatched tag"),
    ("other.xml", lambda b: b"<?xml version='1.0'?>\n<html><body/></html>\n",
     r"other.xml:2: not a UCCA XML passage: top element is <html>"),
    ("dangling.xml", lambda b: b.replace(b'toID="1.3"', b'toID="1.99"'),
     r"dangling.xml:\d+: edge to unknown node '1.99'"),
    ("latin1.xml", lambda b: b.replace(b'text="john"', 'text="jöhn"'.encode("latin-1")),
     r"latin1.xml:\d+: malformed XML: not well-formed \(invalid token\)"),
    ("noterm.xml", lambda b: b.replace(b'paragraph_position="3" ', b""),
     r"noterm.xml:\d+: terminal '0.3' lacks a valid position, text, paragraph or paragraph_position"),
    ("dupid.xml", lambda b: b.replace(b'<node ID="1.4"', b'<node ID="1.3"'), r"dupid.xml:\d+: duplicate node ID '1.3'"),
    ("selfloop.xml", lambda b: b.replace(b'toID="1.3"', b'toID="1.2"'), r"selfloop.xml:\d+: edge from '1.2' to itself"),
    ("dupedge.xml", lambda b: b.replace(_H_EDGE, _H_EDGE * 2), r"dupedge.xml:\d+: duplicate edge '1.1' -> '1.2'"),
    ("twoparents.xml", lambda b: b.replace(b'toID="1.9"', b'toID="1.3"'),
     r"twoparents.xml:\d+: unit '1.3' has two primary parents \('1.2' and '1.8'\)"),
])
def test_bad_xml(tmp_path, examples, name, transform, message):
    with pytest.raises(InputError, match=message):
        semsim.read(_broken(tmp_path, examples, name, transform))


def test_empty_passage(tmp_path):
    f = tmp_path / "empty.xml"
    f.write_text('<root passageID="e"><attributes /><layer layerID="0"><attributes /></layer>'
                 '<layer layerID="1"><attributes /><node ID="1.1" type="FN"><attributes /></node></layer></root>')
    with pytest.raises(InputError, match=r"empty\.xml: empty passage: no terminals"):
        semsim.read(f)


def test_pickle_needs_opt_in(tmp_path, monkeypatch):
    f = tmp_path / "p.pickle"
    f.write_bytes(b"\x80\x04N.")
    monkeypatch.delenv("SEMSIM_ALLOW_PICKLE", raising=False)
    with pytest.raises(InputError, match="refusing to unpickle"):
        semsim.read(f)
