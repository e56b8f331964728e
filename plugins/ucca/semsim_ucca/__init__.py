"""semsim's UCCA plugin: hook implementations only; the work is in the modules."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from semsim.kernel.graph import Graph
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Download, ParaphraseJudge, Parser, Reader, WordEncoder, Writer
from semsim.kernel.scheme import Scheme

from .reader import read_pickle, read_xml, sniff_xml

#: the plugin API this plugin is written for (semsim refuses it under another major version)
SEMSIM_PLUGIN_API = "1.0"


@hookimpl
def register_readers(register: Callable[[Reader], None]) -> None:
    register(Reader("ucca-xml", (".xml",), read_xml, sniff_xml, "UCCA XML passage (one per file)"))
    register(Reader("ucca-pickle", (".pickle", ".pkl"), read_pickle, None,
                    "ucca Passage pickle (only with --allow-pickle: unpickling runs code)"))


@hookimpl
def register_parsers(register: Callable[[Parser], None]) -> None:
    from . import span, tupa  # light: torch, spaCy and TUPA are imported on the first parse
    register(Parser(span.NAME, "ucca", span.parse,
                    "semsim's span-based UCCA parser (default; --model FILE.safetensors, see docs/parser.md)",
                    model_identity=span.model_identity, serialize=span.serialize, model_name=span.model_name,
                    default=True, shipped=span.shipped_models))
    register(Parser("tupa", "ucca", tupa.parse, "TUPA 1.4.2 transition-based UCCA parser (--model PREFIX; "
                    "loading a model runs code from it: trusted models only)",
                    model_identity=tupa.model_identity, serialize=tupa.serialize,
                    model_name=lambda model: tupa.resolve_model(model).name))


@hookimpl
def register_writers(register: Callable[[Writer], None]) -> None:
    from .passage import write_xml
    register(Writer("xml", "ucca", ".xml", write_xml, "UCCA XML passage files (one graph per file)"))


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .commands import ucca
    cli.add_command(ucca)


@hookimpl
def register_downloads(register: Callable[[Download], None]) -> None:
    # TUPA's published English model (BiLSTM, trained on the UCCA Wiki corpus). No SHA-256
    # is published for it: the one computed on first download is recorded and reported.
    register(Download("tupa-ucca-bilstm-1.3.10",
                       "https://github.com/huji-nlp/tupa/releases/download/v1.3.10/ucca-bilstm-1.3.10.tar.gz",
                       "tupa", None, "TUPA's pretrained English UCCA model (BiLSTM, ~1 GB unpacked)",
                       subpath="models/ucca-bilstm"))


@hookimpl
def register_paraphrase_judges(register: Callable[[ParaphraseJudge], None]) -> None:
    from .paraphrase import JUDGE  # light: the encoder loads on the judge's first query
    register(JUDGE)


@hookimpl
def register_word_encoders(register: Callable[[WordEncoder], None]) -> None:
    from .vectors import WORD_ENCODER  # light: the encoder loads on its first sentence
    register(WORD_ENCODER)


@hookimpl
def register_schemes(register: Callable[[Scheme], None]) -> None:
    from .scheme import UCCA
    register(UCCA)


@hookimpl
def to_graph(obj: Any) -> Graph | None:
    from semsim.kernel.formats.mrp import is_mrp
    if is_mrp(obj, "ucca"):
        from .mrp import mrp_ucca_to_graph
        return mrp_ucca_to_graph(obj)
    core = sys.modules.get("ucca.core")  # no ucca imported: obj cannot be a Passage
    if core is not None and isinstance(obj, core.Passage):
        from .passage import passage_to_graph
        return passage_to_graph(obj)
    return None
