"""``semsim meta-eval``: how well measures agree with people's judgments of meaning.

Reads a table of sources, outputs and human scores (TMU-GFM, ASSET or a plain TSV), keeps
the outputs that changed their source, scores the pairs with semsim measures of any USim
settings and with the anchors (token Levenshtein, chrF, MiniLM cosine, BERTScore), and
prints Pearson, Spearman and Kendall correlations with bootstrap intervals over sources
(:mod:`semsim.app.metaeval`); ``--per-sentence`` writes every pair with each measure's rank
error, and the commands that explain it with ``semsim explain``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import shlex
import warnings
from collections.abc import Mapping
from typing import Any

import click

from ...kernel.errors import InputError, SemsimError, SettingsError
from ...kernel.limits import MAX_BOOTSTRAP
from ..cli import format_option, parsing_options, quiet_option
from ..metaeval import ANCHOR_MODULES, ANCHORS, RENDERINGS, TABLE_FORMATS, MetaEvaluation
from ..parsing import ParseSettings
from ..report import write_jsonl
from .common import warn_if_untokenized
from .inputs import check_writable, open_output

#: The measures when no --measure is given: semsim's default USim, then every anchor.
DEFAULT_MEASURES = ("paper", *ANCHORS)
#: Named USim measures: their settings.
NAMED = {"paper": {}, "legacy": {"variant": "legacy"}}
_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*")


def measure_spec(spec: str) -> tuple[str, Mapping[str, Any] | None]:
    """``(name, USim settings)`` of a ``--measure``, or ``(anchor, None)``: ``paper``,
    ``legacy``, an anchor's name, or ``NAME:key=value,key=value`` (the keys are USim's
    settings, ``semsim.USim``'s fields or the options' names; numbers and yes/no become
    numbers and booleans, and an option's words its values: ``align=passage``)."""
    if spec in NAMED:
        return spec, NAMED[spec]
    if spec in ANCHORS:
        return spec, None
    name, colon, rest = spec.partition(":")
    if not colon or not _NAME.fullmatch(name) or not rest.strip():
        raise SettingsError(f"--measure {spec!r}: give paper, legacy, an anchor ({', '.join(ANCHORS)}) or "
                            "NAME:key=value,... (USim settings, e.g. para:tokens=paraphrase,leaves=2)")
    if name.lower() in {*NAMED, *ANCHORS}:  # its rows would read as that measure's
        raise SettingsError(f"--measure {spec!r}: {name!r} names a measure already (paper, legacy, "
                            f"{', '.join(ANCHORS)}); call yours something else")
    settings: dict[str, Any] = {}
    for item in rest.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key:
            raise SettingsError(f"--measure {spec!r}: {item.strip()!r} is not key=value")
        key, parsed = _setting(key, value)
        if key in settings:
            raise SettingsError(f"--measure {spec!r}: {key} given twice")
        settings[key] = parsed
    return name, settings


def _setting(key: str, value: str) -> tuple[str, Any]:
    """A setting's field name and value, read through the settings table where it has the
    setting (so ``tie-break``, ``align=passage`` and ``leaves=2`` read as the options do)."""
    from ...kernel.metrics.settings import SETTINGS
    key = key.replace("-", "_")
    setting = next((s for s in SETTINGS if key in (s.name, s.option[2:].replace("-", "_"))), None)
    if setting is not None and value in setting.words:
        return setting.name, setting.words[value]
    return (setting.name if setting else key), _literal(value)


def _literal(value: str) -> Any:
    """``2`` is 2, ``0.5`` is 0.5, ``yes``/``true`` and ``no``/``false`` are booleans, the rest a string."""
    if re.fullmatch(r"[+-]?\d+", value):
        return int(value)
    if value.lower() in ("yes", "true"):
        return True
    if value.lower() in ("no", "false"):
        return False
    try:
        return float(value)
    except ValueError:
        return value


@click.command("meta-eval")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--table-format", type=click.Choice(TABLE_FORMATS), default="auto", show_default=True,
              help="The table's format: TMU-GFM's CSV, ASSET's ratings CSV, source<TAB>output<TAB>score..., "
                   "Sulem et al. 2018's CSV (sulem2018), or columns named with --columns (docs/validity.md); "
                   "auto: by its header and suffix.")
@click.option("--measure", "measure_specs", multiple=True, metavar="SPEC",
              help="A measure (repeatable): paper, legacy, an anchor (levenshtein, chrf, minilm-cosine, bertscore) "
                   "or NAME:key=value,... USim settings (para:tokens=paraphrase,leaves=2), or published:COLUMN[@SET] "
                   "(a column of --published). Default: paper and every anchor installed.")
@click.option("--versus", metavar="NAME",
              help="Also give every other measure's coefficients minus this measure's (one of the measures), "
                   "with intervals from the same resamples: whether it agrees with people better, which two "
                   "intervals side by side cannot say.")
@click.option("--columns", "columns_spec", metavar="ROLE=COLUMN,...",
              help="Read TABLE as a CSV with these columns (table format columns): source, output, score and "
                   "optionally system and id, e.g. source=orig_sent,output=simp_sent,score=meaning,"
                   "system=sys_name,id=sent_id.")
@click.option("--subset", "subsets", multiple=True, type=click.Choice(["split", "changed"]),
              help="Also correlate on a subset of the kept outputs (repeatable): split, the outputs with more "
                   "sentence ends (. ! ? before a space or the end) than their source; changed, those that differ "
                   "from it (with --keep-unchanged).")
@click.option("--system-level/--no-system-level", "system_level", default=None,
              help="Also rank the systems: each system's mean over all its outputs (unchanged ones included) "
                   "against people's, the bootstrap resampling sources. Default: on when the table names each "
                   "output's system (sulem2018, or --columns with system=).")
@click.option("--published", "published", type=click.Path(dir_okay=False),
              help="The releasers' scores of each output (a CSV with sent_id, sys_name[, test_set] and score "
                   "columns, e.g. Sulem et al.'s metrics_structural_simplicity.csv), for --measure "
                   "published:COLUMN[@TEST_SET] (published:samsa, published:bertscore_F1@asset).")
@click.option("--changed-only/--keep-unchanged", default=True, show_default=True,
              help="Keep only the outputs that changed their source beyond tokenization (docs/usage.md): "
                   "copies inflate every measure's correlation.")
@parsing_options
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, MAX_BOOTSTRAP), default=1000, show_default=True,
              help="Bootstrap resamples of the sources for each interval (0: none).")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Confidence of the intervals.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Bootstrap seed.")
@format_option(RENDERINGS, help="Format of the table of correlations.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the table here instead of stdout.")
@click.option("--per-sentence", "per_sentence", type=click.Path(dir_okay=False),
              help="Write every pair as JSON Lines here: human score, each measure's score and rank error, "
                   "and the commands that explain the pair.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write the correlations as one self-contained page, with each measure's scatter against "
                   "people.")
@quiet_option
def meta_eval(table: str, table_format: str, measure_specs: tuple[str, ...], versus: str | None,
              columns_spec: str | None, subsets: tuple[str, ...], system_level: bool | None, published: str | None,
              changed_only: bool, parsing: ParseSettings, n_bootstrap: int, confidence: float, seed: int, fmt: str,
              output: str | None, per_sentence: str | None, quiet: bool, html_path: str | None = None) -> None:
    """Correlate measures with people's judgments of meaning preservation in TABLE.

    Pearson, Spearman and Kendall of each measure's sentence scores with the human scores,
    with percentile bootstrap intervals that resample sources (their outputs together).
    The anchors (token Levenshtein, chrF, MiniLM cosine, BERTScore) say how much a semsim
    measure adds to what simpler measures already know (docs/validity.md).

    \b
    semsim meta-eval tmu-gfm-dev.csv --tokenize spacy
    semsim meta-eval human_ratings.csv --tokenize spacy --measure paper --measure legacy --measure chrf
    semsim meta-eval ratings.tsv --measure "para:tokens=paraphrase,leaves=2" --per-sentence pairs.jsonl
    semsim meta-eval ratings.tsv --measure "meaning:preset=meaning" --measure bertscore --versus bertscore
    semsim meta-eval structural_simplicity.csv --tokenize spacy --subset split --versus paper \
        --published metrics_structural_simplicity.csv --measure paper --measure published:samsa
    """
    from ..metaeval import USimMeasure, anchor, changed, meta_evaluate, read_judgments
    from ..metaeval.levels import published_spec
    from ..metaeval.tables import parse_columns
    check_writable(output, per_sentence, html_path, inputs=[table, *([published] if published else [])])
    columns = parse_columns(columns_spec) if columns_spec is not None else None
    published_specs = {spec: published_spec(spec) for spec in measure_specs if published_spec(spec)}
    if published_specs and published is None:
        raise SettingsError(f"--measure {next(iter(published_specs))}: give the file with --published")
    specs = [(spec, None) if spec in published_specs else measure_spec(spec) for spec in measure_specs]
    if not specs:
        specs = [measure_spec(s) for s in DEFAULT_MEASURES if s not in ANCHORS
                 or _installed(s, quiet)]
    names = [name for name, _ in specs]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise SettingsError(f"--measure {twice} given twice")
    if versus is not None and versus not in names:
        raise SettingsError(f"--versus {versus}: no such measure; give it with --measure too "
                            f"(the measures: {', '.join(names)})")
    judgments = read_judgments(table, table_format, columns)
    if system_level is None:  # on where each output names its system and its source's id (sulem2018, --columns)
        system_level = all(j.system and j.id for j in judgments)
    nameless = next((j for j in judgments if not j.system), None) if system_level else None
    if nameless is not None:  # before any parse
        raise InputError("no system named: --system-level needs every output's system (a system column, "
                         "or --columns ...,system=COLUMN)", str(table), nameless.row)
    kept = changed(judgments) if changed_only else judgments
    if not kept:
        raise SemsimError(f"{table}: no output differs from its source (--keep-unchanged keeps them)")
    warn_if_untokenized({table: [t for j in kept for t in (j.source, j.output)]}, parsing.tokenize, quiet)
    from ..metric import config_fields  # here, once the table is read: it imports gec-metrics (8 s)
    config = config_fields(parsing)
    measures = {name: _published(published, published_specs[name], judgments) if name in published_specs
                else anchor(name, parsing.tokenize) if settings is None else USimMeasure(settings, **config)
                for name, settings in specs}  # settings are checked here, before any parse
    if system_level or subsets:
        from ..metaeval.levels import Scored
        scored = judgments if system_level else kept  # each measure scored once, on every pair a level needs
        measures = {name: Scored(name, m, [(j.source, j.output) for j in scored], None if quiet else _note)
                    for name, m in measures.items()}
    with warnings.catch_warnings():
        # USimMetric's note on untokenized text is the Python API's; the command said it once above
        warnings.filterwarnings("ignore", message=".*looks untokenized", category=UserWarning)
        report = meta_evaluate(kept, measures, n_bootstrap, confidence, seed,
                               on_measure=None if quiet or system_level or subsets else _note, versus=versus,
                               path=str(table))
        levels = _levels(judgments, kept, measures, subsets, bool(system_level), n_bootstrap, confidence, seed,
                         versus)
    report = dataclasses.replace(report, notes={"table": str(table), "read": len(judgments),
                                                "kept": "changed outputs" if changed_only else "all outputs"},
                                 levels=tuple(levels))
    if per_sentence:
        usim = {name: settings for name, settings in specs if settings is not None}
        with open_output(per_sentence) as out:
            write_jsonl(_sentence_records(report, usim, config), out)
    with open_output(output) as out:
        out.write(report.render(fmt))
    if html_path:
        _write_html(html_path, report)


def _write_html(path: str, report: MetaEvaluation) -> None:
    from ..metaeval.page import render_metaeval
    from .explain import write_atomic
    write_atomic(path, render_metaeval(report))


def _published(path: str | None, spec: tuple[str, str | None] | None, judgments: list[Any]) -> Any:
    """A ``published:COLUMN[@SET]`` measure: the releasers' scores, joined to every judgment."""
    from ..metaeval.levels import published_measure
    assert path is not None and spec is not None  # the command checked both
    return published_measure(path, spec[0], spec[1], judgments)


def _levels(judgments: list[Any], kept: list[Any], measures: Mapping[str, Any], subsets: tuple[str, ...],
            system: bool, n_bootstrap: int, confidence: float, seed: int, versus: str | None) -> list[Any]:
    """The subsets' and the system level's views (:mod:`semsim.app.metaeval.levels`)."""
    from ..metaeval.levels import subset_levels, system_level
    levels = subset_levels(kept, measures, list(dict.fromkeys(subsets)), n_bootstrap, confidence, seed, versus)
    if system:
        levels.append(system_level(judgments, measures, n_bootstrap, confidence, seed, versus))
    return levels


def _note(measure: str) -> None:
    click.echo(f"semsim: scoring with {measure}", err=True)


def _installed(name: str, quiet: bool) -> bool:
    """Whether a default anchor's library is installed; if not, a note says it is left out."""
    if importlib.util.find_spec(ANCHOR_MODULES[name]) is not None:
        return True
    if not quiet:
        click.echo(f"semsim: anchor {name} left out: it needs {ANCHOR_MODULES[name]} "
                   "(pip install 'semsim[metaeval]')", err=True)
    return False


def _sentence_records(report: MetaEvaluation, usim: Mapping[str, Mapping[str, Any]],
                      config: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = report.rows()
    for row in rows:
        row["explain"] = explain_commands(row["source"], row["output"], f"row{row['row']}", usim, config)
    return rows


def explain_commands(source: str, output: str, stem: str, usim: Mapping[str, Mapping[str, Any]],
                     config: Mapping[str, Any]) -> list[str]:
    """Shell commands that show why each semsim measure scored a pair as it did: ``semsim
    explain`` reads graphs, so the pair is parsed first (from the parse cache, as the
    meta-evaluation parsed it), then explained with each measure's settings."""
    parse_keys = ("parser", "representation", "model", "cache", "tokenize")
    commands: list[str] = []
    parsed: dict[tuple[str, ...], str] = {}
    for name, settings in usim.items():
        how = {**{k: config.get(k) for k in parse_keys}, **{k: v for k, v in settings.items() if k in parse_keys}}
        parse = [f"--{k} {shlex.quote(str(v))}" for k, v in how.items() if v not in (None, "none")]
        if not config.get("use_cache", True):
            parse.append("--no-cache")
        key = tuple(parse)
        if key not in parsed:  # a pair parsed once per parser
            tag = stem if not parsed else f"{stem}.{len(parsed) + 1}"
            parsed[key] = tag
            for side, text in (("src", source), ("out", output)):
                # one line, as it was parsed (whitespace runs, newlines of a quoted CSV field too, are one space)
                text = " ".join(text.split())
                commands.append(f"printf '%s\\n' {shlex.quote(text)} | semsim parse - -q -o {tag}.{side}.mrp"
                                + "".join(f" {p}" for p in parse))
        tag = parsed[key]
        options = [_option(k, v) for k, v in settings.items() if k not in parse_keys and k not in config]
        commands.append(" ".join(["semsim explain", f"{tag}.src.mrp", f"{tag}.out.mrp", *options,
                                  f"--html {stem}.{name}.html"]))
    return commands


def _option(key: str, value: Any) -> str:
    """The ``semsim explain`` option of a USim setting, quoted for a shell (``--direction 's->r'``);
    a setting the table lacks is guessed as ``--its-name VALUE``, as the table's options are named."""
    from ...kernel.metrics.settings import BY_NAME, flag
    setting = BY_NAME.get(key)
    if setting is None:
        return f"--{key.replace('_', '-')} {shlex.quote(str(value))}"
    if not setting.cli_words:
        return flag(key, value)
    return f"{setting.option} {shlex.quote(str(setting.shown(value)))}"
