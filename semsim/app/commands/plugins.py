"""``semsim plugins``: what is loaded, and what each plugin registered."""

from __future__ import annotations

import click

from ...kernel.scheme import Scheme
from ...kernel.signature import Signature
from ..cli import format_option, quiet_option
from ..plugins import scheme_plugin
from ..report import Report, write


@click.command()
@format_option(["text", "json"])
@quiet_option
def plugins(fmt: str, quiet: bool) -> None:
    """List loaded plugins, their hooks, readers, writers, parsers, metrics, paraphrase judges and schemes."""
    from ...kernel.scheme import scheme_fields
    from ..plugins import metrics, paraphrase_judges, parsers, plugin_info, readers, scheme_owners, schemes, writers
    info = plugin_info()
    owners = scheme_owners()
    signed = {n: Signature.of(None, scheme_fields(s, scheme_plugin)).format() for n, s in schemes().items()}
    rs, ws, ps, ms, js = readers(), writers(), parsers(), metrics(), paraphrase_judges()
    document = {"plugins": info,
                "readers": {n: {"plugin": r.plugin, "suffixes": list(r.suffixes), "description": r.description}
                            for n, r in rs.items()},
                "writers": {n: {"plugin": w.plugin, "representation": w.representation, "suffix": w.suffix,
                                "one_file_per_graph": w.write is not None,
                                "many_graphs_per_file": w.write_all is not None, "description": w.description}
                            for n, w in ws.items()},
                "parsers": {n: {"plugin": p.plugin, "representation": p.representation, "default": p.default,
                                "description": p.description} for n, p in ps.items()},
                "metrics": {n: {"plugin": m.plugin, "scheme": m.representation, "description": m.description}
                            for n, m in ms.items()},
                "paraphrase_judges": {n: {"plugin": j.plugin, "language": j.language, "description": j.description}
                                      for n, j in js.items()},
                "schemes": {n: {"plugin": owners[n], "signature": signed[n],
                                **_scheme_document(s)} for n, s in schemes().items()}}
    lines = [*([] if info else ["no plugins loaded (install one, e.g. `pip install -e plugins/ucca`)"]),
             *(f"{p['name']} {p['version'] or ''}: hooks {', '.join(p['hooks'])}" for p in info),
             *(f"  reader {n} ({', '.join(r.suffixes)}) from {r.plugin}: {r.description}"
               for n, r in sorted(rs.items())),
             *(f"  writer {n} [{w.representation}] ({w.suffix}) from {w.plugin}: {w.description}  "
               f"(semsim parse --format {n}{' -o FILE' if w.write is None else ''})" for n, w in sorted(ws.items())),
             *(f"  parser {n} [{p.representation}{', default' if p.default else ''}] from {p.plugin}: {p.description}"
               for n, p in sorted(ps.items())),
             *(f"  metric {n} [{m.representation}] from {m.plugin}: {m.description}" for n, m in sorted(ms.items())),
             *(f"  paraphrase judge {n} [{j.language}] from {j.plugin}: {j.description}"
               for n, j in sorted(js.items())),
             *(f"  scheme {n} from {owners[n]}: {_scheme_summary(s)}  (signed "
               f"{signed[n]})" for n, s in sorted(schemes().items()))]
    write(Report(document=lambda _: document, parts=lambda _, __: lines, formats=("text", "json")), fmt)


def _scheme_document(s: Scheme) -> dict[str, object]:
    """What a scheme declares, as JSON (``semsim plugins --format json``)."""
    return {"equivalences": sorted(sorted(g) for g in s.equivalences), "ignored_labels": sorted(s.ignored_labels),
            "ignored_kinds": sorted(s.ignored_kinds), "label_groups": {k: list(v) for k, v in s.label_groups.items()},
            "label_weights": dict(s.label_weights)}


def _scheme_summary(s: Scheme) -> str:
    """What a scheme declares that changes numbers, in a few words."""
    parts = [f"{len(s.equivalences)} equivalence(s)" if s.equivalences else "",
             f"ignores labels {', '.join(sorted(s.ignored_labels))}" if s.ignored_labels else "",
             f"ignores kinds {', '.join(sorted(s.ignored_kinds))}" if s.ignored_kinds else "",
             f"{len(s.label_groups)} label group(s)" if s.label_groups else "",
             f"{len(s.label_weights)} label weight(s)" if s.label_weights else ""]
    return "; ".join(p for p in parts if p) or "declares nothing"
