"""Helpers shared by several commands: scoring graph pairs and writing their records
(``usim``, ``dagf``), and naming and reporting the lines of text files (``score``,
``conservatism``, ``compare``, ``parse``)."""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...kernel.errors import GraphError, InputError, SemsimError
from ...kernel.limits import LimitError
from ...kernel.stats import Score, corpus_score
from ..report import Col, Record, Report, Skipped, Table, num, write
from .inputs import GraphPair, check_writable, fail_if_unread, open_output, read_pairs, readable_pairs

_NOT_IN_TABLES = ("name", "source", "correction", "detail", "signature")


def pairs_report(records: Iterable[Record], summary: Callable[[], dict[str, Any] | None]) -> Report:
    """Pair records and the corpus record (``summary``, asked for once the pairs are scored;
    None for a single pair): TSV leaves out the name and the detail; the text table ends with
    the signature, the corpus one (which names the bootstrap) when there is one."""
    def document(rows: list[Record]) -> dict[str, Any]:
        s = summary()
        return {"pairs": rows, **({"corpus": s} if s else {})}

    def parts(rows: list[Record], _markdown: bool) -> list[Table | str]:
        columns = [c for c in rows[0] if c not in _NOT_IN_TABLES] if rows else []
        width = max(len(str(r.get("name", ""))) for r in rows) if rows else 4
        cells = [[str(r.get("name", "")), *(num(v) if isinstance(v := r.get(c, ""), float) else str(v)
                                            for c in columns)] for r in rows]
        out: list[Table | str] = [Table([Col("pair", "<", width), *(Col(c, ">", 8) for c in columns)], cells)]
        s = summary()
        if s:
            ci = f"  {num(s['confidence'], 0, percent=True)} CI [{num(s['macro_ci'][0])}, {num(s['macro_ci'][1])}]" \
                if "macro_ci" in s else ""
            out.append(f"corpus: macro F {num(s['macro_f'])}{ci}  micro F {num(s['micro_f'])}  n={s['n']}")
        if rows:
            out.append(f"signature: {(s or rows[0])['signature']}")
        return out

    return Report(records, trailer=lambda: [s] if (s := summary()) else [], document=document,
                  row=lambda r: {k: v for k, v in r.items() if k not in ("name", "detail")}, parts=parts)


def score_pairs(pairs: list[tuple[Path, Path]], score: Callable[[Any, Any], Score], fmt: str,
                output: str | None, read_format: str | None, quiet: bool, n_bootstrap: int, seed: int,
                score_only: bool = False, inputs: Sequence[str] = ()) -> None:
    """Score every readable pair and write a record per pair (and a corpus record), or with
    ``score_only`` just the number; then report what could not be read or scored (exit 1).
    ``inputs``: the command's arguments, refused as the output as every file of ``pairs`` is."""
    from ...kernel.progress import bar
    check_writable(output, inputs=[*inputs, *(p for pair in pairs for p in pair)])
    read = read_pairs(pairs, read_format, quiet)
    graphs = readable_pairs(read)
    scores: list[Score] = []
    unscored = Skipped()  # pairs beyond a resource bound, or not comparable: reported, the others scored

    def records() -> Iterator[dict[str, Any]]:
        for pair in bar(graphs, desc="scoring", unit="pair", quiet=quiet or len(graphs) < 2):
            try:
                s = score(pair.g1, pair.g2)
            except (LimitError, GraphError) as exc:  # e.g. dagf of two texts: this pair only
                skip_pair(unscored, pair, exc)
                continue
            scores.append(s)
            parts = {f"{k}_f": c.f for k, c in s.parts.items()} if len(s.parts) > 1 else {}
            yield {"name": pair.name, "source": pair.source, "correction": pair.correction, "f": s.f,
                   "precision": s.precision, "recall": s.recall, **parts,
                   "detail": {k: c.as_dict() for k, c in s.parts.items()}, "signature": s.signature.format()}

    def summary() -> dict[str, Any] | None:
        if len(scores) < 2:
            return None
        return {"corpus": True, **corpus_score(scores, n_bootstrap=n_bootstrap, seed=seed).as_dict()}

    pending = records()
    first = next(pending, None)  # the output is opened once there is something to write
    if first is not None:
        rows = itertools.chain([first], pending)
        with open_output(output) as out:
            if score_only:
                done = list(rows)
                out.write(f"{done[0]['f'] if len(done) == 1 else summary()['macro_f']:.6f}\n")  # type: ignore[index]
            else:
                write(pairs_report(rows, summary), fmt, out)
    report_unscored(unscored, read)


def skip_pair(unscored: Skipped, pair: GraphPair, exc: Exception) -> None:
    """Record a pair that a metric could not score, its file first."""
    unscored.add(f"{pair.source}: {exc}", f"pair {pair.name}")


def report_unscored(unscored: Skipped, read: list[GraphPair]) -> None:
    """After the scored pairs were written: the pairs that could not be read or scored, one
    stderr line each (a single pair: the error alone), and exit status 1 with a count that
    does not repeat them."""
    if len(read) == 1 and unscored:
        raise SemsimError(unscored.reasons[0])
    unscored.show()
    fail_if_unread(read)
    unscored.fail(lambda s: f"{len(s)} of {len(read)} pairs not scored (see above)")


def fail_if_unparsed(unparsed: list[InputError]) -> None:
    """After everything else was scored and written: one stderr line per sentence the parser
    could not parse, and exit status 1."""
    skipped = Skipped()
    for err in unparsed:
        skipped.add(err, f"line {err.line}")
    skipped.fail(lambda _: f"{len({e.line for e in unparsed})} line(s) not scored (see above)")


def warn_if_untokenized(files: Mapping[Path, Sequence[str]] | Mapping[str, Sequence[str]], how: str,
                        quiet: bool) -> None:
    """One stderr line if a file read as given (``--tokenize none``) looks untokenized, naming
    it and ``--tokenize spacy`` (:func:`semsim.app.tokenization.warn_untokenized`); none with ``-q``."""
    from ...kernel.files import shown
    from ..tokenization import warn_untokenized
    if not quiet:
        warn_untokenized([(shown(p), lines) for p, lines in files.items()], how)


def system_names(hyps: Sequence[tuple[str | None, Path]], refs: Sequence[tuple[str | None, Path]]) -> dict[Path, str]:
    """Each system's file and the name its rows carry: the one given (``NAME=FILE``), else
    its file name (``ref:`` before a reference's), or its path where file names clash. A file
    given twice as ``--hyp`` (or as ``--ref``), or two systems of one name, is an error: they
    would silently become one row."""
    from ...kernel.files import same_file, shown
    for option, given in (("--hyp", hyps), ("--ref", refs)):
        for i, (_, p) in enumerate(given):
            if any(same_file(p, q) for _, q in given[:i]):
                raise SemsimError(f"{option} {p} given twice: each file is one system")
    ref_paths = [p for _, p in refs]
    hyp_paths = [p for _, p in hyps]
    paths = list(dict.fromkeys([*hyp_paths, *ref_paths]))
    given_names = {p: n for n, p in [*refs, *hyps] if n}  # a --hyp's name wins over a --ref's
    short = [p.name for p in paths]
    use = short if len(set(short)) == len(short) else [str(p) for p in paths]
    names = {p: given_names.get(p) or ("ref:" if p in ref_paths and p not in hyp_paths else "") + n
             for p, n in zip(paths, use)}
    from ..cli import bad_name
    for p, n in names.items():
        if p not in given_names and bad_name(n):
            raise SemsimError(f"{shown(p)!r}: its file name holds {bad_name(n)}, which would break the tab-separated, "
                              "Markdown and -b outputs: give the system a name with NAME=FILE")
    clash = next((n for n in names.values() if list(names.values()).count(n) > 1), None)
    if clash is not None:
        raise SemsimError(f"two systems named {clash!r}: name them apart with NAME=FILE")
    return names



def usim_flag(name: str, value: Any) -> str:
    """The command-line option of a USim setting, quoted for a shell (``--direction 's->r'``,
    ``--no-remote``)."""
    from ...kernel.metrics.settings import BY_NAME, flag
    setting = BY_NAME[name]
    if not setting.cli_words:
        return flag(name, value)
    return f"{setting.option} {shlex.quote(str(setting.shown(value)))}"


def rerun_options(metric: Any, parsing: Any) -> list[str]:
    """The options under which another command (``semsim explain --source --hyp --line``)
    computes this run's numbers: every USim setting of ``metric`` (a :class:`~semsim.USim`)
    not at its default, a preset standing for its own settings; the parser, model,
    representation and tokenizer of ``parsing`` (a :class:`~semsim.app.parsing.ParseSettings`);
    and the parse cache, so that it finds this run's parses rather than parsing again."""
    from ...kernel.metrics.settings import PRESETS, SETTINGS
    preset = PRESETS.get(metric.preset, {})
    values = {s.name: getattr(metric, s.name) for s in SETTINGS}
    out = [usim_flag(s.name, values[s.name]) for s in SETTINGS
           if values[s.name] != s.default and not (s.name in preset and preset[s.name] == values[s.name])]
    for option, value in (("--representation", parsing.representation), ("--parser", parsing.parser),
                          ("--model", parsing.model)):
        if value is not None:
            out.append(f"{option} {shlex.quote(str(value))}")
    if parsing.tokenize != "none":
        out.append(f"--tokenize {shlex.quote(parsing.tokenize)}")
    if parsing.cache is False:
        out.append("--no-cache")
    elif parsing.cache is not True:
        out.append(f"--cache {shlex.quote(str(parsing.cache))}")
    return out


def is_preset(metric: Any, name: str) -> bool:
    """Whether ``metric`` (a :class:`~semsim.USim`) computes preset ``name``'s scores, named or
    given setting by setting."""
    from ...kernel.metrics.settings import PRESETS
    return metric.variant == "paper" and all(getattr(metric, k) == v for k, v in PRESETS[name].items())
