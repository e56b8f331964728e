"""semsim's AMR plugin: hook implementations only."""

from __future__ import annotations

from typing import Any

from semsim.hookspecs import hookimpl
from semsim.models import ModelSpec
from semsim.plugins import Metric, Parser, Reader

from .reader import read_penman, read_penman_aligned, sniff_penman


@hookimpl
def register_readers(register):
    register(Reader("penman", (".amr", ".penman"), read_penman, sniff_penman,
                    "AMR graphs in PENMAN notation, blank-line separated, # :: metadata"))
    register(Reader("penman-aligned", (".amr", ".penman"), read_penman_aligned, lambda path, head: False,
                    "PENMAN AMRs anchored to the words of # ::tok (or ::snt) by their ~e.N alignments; "
                    "only with --read-format"))


@hookimpl
def register_parsers(register):
    from . import amrlib_parser  # light: torch, transformers and amrlib are imported on the first parse
    register(Parser("amrlib", "amr", amrlib_parser.parse,
                    "amrlib 0.8.1 sentence-to-AMR models (--model DIR, an amrlib model directory)",
                    model_identity=amrlib_parser.model_identity, serialize=amrlib_parser.serialize))


#: amrlib's released parse models (scores and sizes as amrlib lists them): name, release tag, archive stem
#: (also the directory the archive unpacks into), description.
_AMRLIB_RELEASES = "https://github.com/bjascob/amrlib-models/releases/download"
_AMRLIB_MODELS = (
    ("amrlib-parse-xfm-bart-large-0.1.0", "parse_xfm_bart_large-v0_1_0", "model_parse_xfm_bart_large-v0_1_0",
     "amrlib's BART-large parser (83.7 Smatch on AMR 3.0, 1.4 GB; needs the facebook/bart-large tokenizer)"),
    ("amrlib-parse-xfm-bart-base-0.1.0", "parse_xfm_bart_base-v0_1_0", "model_parse_xfm_bart_base-v0_1_0",
     "amrlib's BART-base parser (82.3 Smatch on AMR 3.0, 492 MB; needs the facebook/bart-base tokenizer)"),
)


@hookimpl
def register_models(register):
    # No SHA-256 is published for amrlib's models: the one computed on first download is
    # recorded and reported (trust on first use). Each archive unpacks into one directory.
    for name, tag, stem, description in _AMRLIB_MODELS:
        register(ModelSpec(name, f"{_AMRLIB_RELEASES}/{tag}/{stem}.tar.gz", "amrlib", None, description,
                           subpath=stem))


@hookimpl
def register_metrics(register):
    from .smatch import smatch_graphs
    register(Metric("smatch", "amr", smatch_graphs, "Smatch (Cai & Knight 2013), deterministic"))


@hookimpl
def to_graph(obj: Any):
    import penman

    from semsim.formats.mrp import is_mrp
    if is_mrp(obj, "amr"):
        from .mrp import mrp_amr_to_graph
        return mrp_amr_to_graph(obj)
    if isinstance(obj, penman.Graph):
        from .adapter import amr_to_graph
        return amr_to_graph(obj)
    return None
