"""semsim-deps: word-to-word dependencies for semsim (the plugin of docs/plugins.md's tutorial)."""

from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Parser, Reader, Writer

from . import adapter, conllu, parser, writer

#: the plugin API this plugin is written for: semsim refuses it under another major version
SEMSIM_PLUGIN_API = "1.0"


@hookimpl
def register_readers(register):
    register(Reader("conllu", (".conllu",), conllu.read, conllu.sniff, "CoNLL-U dependency trees"))


@hookimpl
def register_parsers(register):
    register(Parser("spacy-deps", "deps", parser.parse, "spaCy's en_core_web_sm on the given tokens",
                    model_identity=parser.model_identity, model_name=parser.model_name, default=True))


@hookimpl
def register_writers(register):
    register(Writer("conllu", "deps", ".conllu", description="CoNLL-U, every graph in one file",
                    write_all=writer.write))


@hookimpl
def register_schemes(register):
    register(adapter.DEPS)


@hookimpl
def to_graph(obj):
    return adapter.to_graph(obj) if isinstance(obj, conllu.Sentence) else None
