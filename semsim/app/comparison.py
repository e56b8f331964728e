"""The same source/correction pairs under several representations, side by side, with the
correlation between every two columns: what ``semsim compare`` reports
(:mod:`semsim.app.commands.compare`) and :func:`semsim.api.compare` returns, built once here.

Each representation contributes USim (same settings for all) and every metric a plugin
registers for it (``register_metrics``: Smatch for AMR). The core names no representation:
columns are called after the graphs' schemes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..kernel.errors import InputError, SemsimError
from ..kernel.graph import Graph
from ..kernel.signature import Signature
from ..kernel.stats import CorpusScore, Score, corpus_score, correlation
from .parsing import ParseSettings
from .report import Col, Record, Report, Table, num, write
from .scoring import TextMetric


@dataclass(frozen=True)
class Column:
    """One number per pair: a metric under one representation."""

    name: str  # "amr:smatch"
    scores: list[Score]


def columns_for(rep: str, pairs: list[tuple[Graph, Graph]], usim: TextMetric,
                failed: dict[int, str] | None = None, where: Sequence[str] | None = None) -> list[Column]:
    """USim and the plugin metrics of ``rep``'s scheme over the pairs.

    A pair a metric cannot score (too large: :class:`~semsim.kernel.limits.LimitError`; or a graph
    the metric's own parser rejects) raises, or with ``failed`` is recorded there (pair
    index → reason, led by the pair's file and line from ``where``) and scored by no later
    metric; its place in the columns holds a placeholder to drop (:func:`drop_failed`)."""
    from .plugins import metrics
    schemes = {g.scheme.name for pair in pairs for g in pair}
    fns: list[tuple[str, Callable[[Graph, Graph], Score]]] = [("usim", usim.sentence_score)]
    fns += [(m.name, m.score) for m in sorted(metrics().values(), key=lambda m: m.name) if m.representation in schemes]
    columns = []
    for name, fn in fns:
        scores = []
        for i, (a, b) in enumerate(pairs):
            try:
                scores.append(_NOT_SCORED if failed and i in failed else fn(a, b))
            except SemsimError as exc:  # too large (LimitError), or a metric cannot read the pair
                if failed is None:
                    raise
                failed[i] = f"{where[i] if where else rep}: {exc}"
                scores.append(_NOT_SCORED)
        columns.append(Column(f"{rep}:{name}", scores))
    return columns


_NOT_SCORED = Score.fixed(0.0, ["-"], Signature())


def drop_failed(columns: list[Column], failed: Collection[int]) -> list[Column]:
    """The columns without the pairs at ``failed`` positions."""
    return [Column(c.name, [s for i, s in enumerate(c.scores) if i not in failed]) for c in columns]


def correlations(columns: list[Column]) -> list[dict[str, Any]]:
    """Pearson r and Spearman ρ (with p-values) between every two columns; None where a
    column is constant (the coefficient is undefined)."""
    out = []
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            x, y = [s.f for s in a.scores], [s.f for s in b.scores]
            row: dict[str, Any] = {"a": a.name, "b": b.name, "n": len(x)}
            defined = len(x) >= 3 and len(set(x)) > 1 and len(set(y)) > 1
            for key in ("pearson", "spearman"):
                r, p = correlation(key, x, y) if defined else (math.nan, math.nan)
                row[key] = None if math.isnan(r) else float(r)
                row[f"{key}_p"] = None if math.isnan(p) else float(p)
            out.append(row)
    return out


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``NAME[=MODEL]``: a parser and its model."""
    name, _, model = spec.partition("=")
    return name, model or None


#: what a column's scores of parsed text are signed with (:meth:`semsim.app.parsing.Parses.sign`)
Signing = Callable[[Signature], Signature]


def pairs_from_texts(raw_src: list[str], raw_hyp: list[str], parser_specs: Sequence[str], parsing: ParseSettings,
                     source: Any = "source", hyp: Any = "correction"
                     ) -> tuple[list[str], dict[str, list[tuple[Graph, Graph]]], list[InputError],
                                dict[str, list[str]], dict[str, Signing]]:
    """Graph pairs per parser's representation from two line-parallel texts (``source`` and
    ``hyp`` name them in the errors), each parser's through the one step from text to pairs
    (:func:`semsim.app.scoring.parse_pairs`); a line some parser failed on, or too large to
    align, is left out of every representation, so that rows stay aligned. For the Python
    API as for the command."""
    from .scoring import Files, ParsedPairs, parse_pairs
    parsed: dict[str, ParsedPairs] = {}
    signed_by: dict[str, Signing] = {}
    unparsed: list[InputError] = []
    pairs: ParsedPairs | None = None
    for spec in parser_specs:
        name, model = parse_spec(spec)
        pairs = parse_pairs(raw_src, raw_hyp, replace(parsing, parser=name, model=model), Files(source, {"": hyp}),
                            {e.line for e in unparsed if e.line is not None})
        rep = pairs.parses.representation if pairs.parses.representation not in parsed else name
        parsed[rep], signed_by[rep] = pairs, pairs.parses.sign
        unparsed += pairs.skipped
    skip = {e.line for e in unparsed if e.line is not None}
    lines = [i - 1 for i in (pairs.lines if pairs is not None else []) if i not in skip]
    if not lines:
        raise SemsimError(f"{source}: no pair of non-empty lines to compare"
                          + (f" ({len(skip)} could not be parsed or aligned: {unparsed[0]})" if unparsed else ""))
    out = {rep: [p.graphs(i + 1) for i in lines] for rep, p in parsed.items()}
    return ([f"line {i + 1}" for i in lines], out, unparsed, {rep: [f"{hyp}:{i + 1}" for i in lines] for rep in out},
            signed_by)


@dataclass(frozen=True)
class Comparison:
    """What ``semsim compare`` reports, as objects (:func:`semsim.api.compare`): each pair's
    score under each column (``ucca:usim``, ``amr:usim``, ``amr:smatch``...), each column's
    corpus score, the correlations between every two columns, and each column's signature.
    ``not_compared``: the pairs left out of every column (pair name -> reason)."""

    names: list[str]
    columns: dict[str, list[Score]]
    corpus: dict[str, CorpusScore]
    correlations: list[dict[str, Any]]
    signatures: dict[str, str]
    not_compared: dict[str, str]

    def rows(self) -> list[dict[str, Any]]:
        """A row per pair: its name and its F under each column."""
        return [{"name": n, **{c: s[i].f for c, s in self.columns.items()}} for i, n in enumerate(self.names)]

    def report(self) -> Report:
        """The command's report (:func:`semsim.app.report.write` renders it as text, markdown,
        JSON, JSON Lines or TSV)."""
        return _report(self.rows(), self.corpus, self.correlations, self.signatures)

    def table(self, fmt: str = "text") -> str:
        """The command's output in format ``fmt``, as a string."""
        import io
        out = io.StringIO()
        write(self.report(), fmt, out)
        return out.getvalue()

    def __str__(self) -> str:
        return self.table()


def comparison(names: list[str], by_rep: dict[str, list[tuple[Graph, Graph]]], metric: TextMetric,
               where: dict[str, list[str]] | None = None, signed_by: dict[str, Signing] | None = None, *,
               n_bootstrap: int = 1000, seed: int = 12345) -> Comparison:
    """The columns of the pairs of every representation (pairs matched by position), a pair
    that some column cannot score left out of all (:attr:`Comparison.not_compared`; if that is
    every pair, a Comparison of none: :func:`check_compared`), their corpus scores and
    correlations. ``signed_by``: per representation, the parser's fields that scores of parsed
    text carry, as ``score``'s do."""
    if not names:
        raise SemsimError("no pair could be read in every representation")
    failed: dict[int, str] = {}  # pairs too large to score in some representation: left out of all
    columns = []
    for rep, pairs in by_rep.items():
        by = (signed_by or {}).get(rep)
        columns += [c if by is None else Column(c.name, [replace(s, signature=by(s.signature)) for s in c.scores])
                    for c in columns_for(rep, pairs, metric, failed, (where or {}).get(rep))]
    columns = drop_failed(columns, failed)
    kept = [n for i, n in enumerate(names) if i not in failed]
    not_compared = {names[i]: failed[i] for i in sorted(failed)}
    if not kept:  # the caller says why, once it has shown each pair's reason
        return Comparison([], {}, {}, [], {}, not_compared)
    return Comparison(kept, {c.name: c.scores for c in columns},
                      {c.name: corpus_score(c.scores, n_bootstrap=n_bootstrap, seed=seed) for c in columns},
                      correlations(columns), {c.name: c.scores[0].signature.format() for c in columns}, not_compared)


def check_compared(result: Comparison) -> Comparison:
    """``result``, unless no pair could be compared: then one error with the first reason."""
    if not result.names:
        raise SemsimError(f"no pair could be compared: {next(iter(result.not_compared.values()))}")
    return result


def _report(rows: list[dict[str, Any]], corpus: dict[str, Any], corr: list[dict[str, Any]],
            signatures: dict[str, str]) -> Report:
    """A record per pair, its number under each column, then the columns' corpus scores,
    correlations and signatures (the last JSON Lines record; below the text table)."""
    cols = list(signatures)
    summary = {"corpus": {k: v.as_dict() for k, v in corpus.items()}, "correlations": corr,
               "signatures": signatures}

    def parts(_rows: list[Record], _markdown: bool) -> list[Table | str]:
        width = max(len("pair"), *(len(r["name"]) for r in rows))
        cw = max(10, *(len(c) for c in cols))
        cells = [[r["name"], *(num(r[c]) for c in cols)] for r in rows]
        cells.append(["mean", *(num(corpus[c].macro) for c in cols)])
        if any(corpus[c].ci for c in cols):
            cells.append(["95% CI", *(_ci(corpus[c].ci) for c in cols)])
        p = functools.partial(num, tiny=1e-4)  # correlations and their p-values
        return [Table([Col("pair", "<", width), *(Col(c, ">", cw) for c in cols)], cells),
                *(f"{c['a']} ~ {c['b']}: Pearson r {p(c['pearson'])} (p {p(c['pearson_p'])}), "
                  f"Spearman rho {p(c['spearman'])} (p {p(c['spearman_p'])}), n={c['n']}" for c in corr),
                *(f"signature {c}: {s}" for c, s in signatures.items())]

    return Report(rows, trailer=lambda: [summary], document=lambda items: {"pairs": items, **summary},
                  row=lambda r: {"pair": r["name"], **{c: float(r[c]) for c in cols}}, parts=parts)


def _ci(ci: tuple[float, float] | None) -> str:
    return f"{num(ci[0], 3)}-{num(ci[1], 3)}" if ci else ""
