"""Conservatism of corrections: how much a correction changes its source.

Choshen & Abend (2018), *Inherent biases in reference-based evaluation for grammatical
error correction*, §2 ("Measures of Conservatism"), compare the changes correctors make to
their sources with the changes references make, by three measures, shown in their Figure 1:

* **WordChange** — after a word alignment cast as weighted bipartite matching with edit
  distances as weights, "the number of unaligned words and aligned words that were changed
  in any way" (words altered, deleted or added);
* **word order** — Spearman's ρ between the order of the source's words and the order of
  their aligned words in the correction (ρ = 1: the same order);
* **sentence splits and concatenations** — how many source sentences were split, and how
  many concatenated, by the correction.

§2 excludes "all non-alphanumeric characters, both within tokens or as tokens of their own",
to focus on substantial changes; so does this module. Text is tokenized already and split on
whitespace. The reading decisions the paper leaves open (documented in
``docs/conservatism.md``):

* **Alignment.** The alignment is USim's, :func:`semsim.kernel.align.tokens.align_tokens`, over the
  whole line (a line is one source "sentence" of the parallel files, which a correction may
  split): case-insensitive, and *partial* — two words sharing no character (``the``/``a``)
  are not aligned, so such a substitution counts 2 (one deleted, one added word), while a
  related one (``goes``/``go``) counts 1.
* **Changed** means the two words' alphanumeric characters differ, case included ("changed
  in any way"); ``ignore_case=True`` treats ``i``/``I`` as unchanged.
* **ρ** is undefined (``None``) for a pair with fewer than two aligned words: there is no
  order to compare. Such pairs are left out of the ρ mean and distribution and counted
  apart (``rho_undefined``). Aligned positions are distinct on both sides (the alignment is
  one-to-one), so ranks are never tied and never constant once two words are aligned.
* **Sentences** are counted at sentence-final punctuation tokens (``.``, ``!``, ``?`` and
  runs of them, optionally followed by closing quotes/brackets, and their CJK forms); a run
  of such tokens, or one with no word since the previous end, closes one sentence only, and
  words after the last one form a sentence of their own. Only standalone tokens count
  (``etc.`` and ``Mr.`` are words in tokenized text). A pair is a **split** when the
  correction has more sentences than a source with at least one, a **concatenation** when it
  has fewer but at least one; an empty side is neither (a deleted or inserted line is not a
  split or merge), and its words count in WordChange as deleted or added.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...kernel.align.tokens import align_tokens
from ...kernel.errors import InputError, SemsimError
from ...kernel.files import atomic_write
from ...kernel.limits import LimitError
from ...kernel.signature import Signature, signature
from ...kernel.stats import correlation
from ..tokenization import with_tokenizer

#: Thresholds at which :class:`SystemSummary` reports the ρ CDF (Figure 1, bottom).
RHO_THRESHOLDS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99)

_SENTENCE_END = re.compile(r"^[.!?。！？]+[\"'”’»)\]]*$")


#: what is not alphanumeric (``\w`` is what ``str.isalnum`` accepts, and ``_``: re's documentation)
_NOT_ALNUM = re.compile(r"[\W_]+")


def words(text: str) -> list[str]:
    """The words of a tokenized line with every non-alphanumeric character removed (§2);
    tokens left empty (punctuation) are dropped."""
    return [w for w in (_NOT_ALNUM.sub("", token) for token in text.split()) if w]


def count_sentences(text: str) -> int:
    """Sentences of a tokenized line, closed by sentence-final punctuation tokens; a run of
    them closes one sentence, and trailing words without one form the last sentence."""
    n, open_words = 0, False
    for token in text.split():
        if _SENTENCE_END.match(token):
            if open_words:
                n += 1
                open_words = False
        elif any(c.isalnum() for c in token):
            open_words = True
    return n + open_words


@dataclass(frozen=True)
class SentenceConservatism:
    """The §2 measures for one source line and its correction (``line`` is 1-based)."""

    line: int
    source_words: int
    output_words: int
    aligned: int
    changed: int  # aligned words whose alphanumeric characters differ
    deleted: int  # source words left unaligned
    added: int  # correction words left unaligned
    word_change: int  # changed + deleted + added (WordChange)
    rho: float | None  # Spearman ρ through the alignment; None with < 2 aligned words
    source_sentences: int
    output_sentences: int
    split: bool
    concatenated: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def spearman_order(pairs: Sequence[tuple[int, int]]) -> float | None:
    """Spearman's ρ between source positions and their aligned correction positions (§2);
    ``None`` with fewer than two pairs (no order to compare)."""
    if len(pairs) < 2:
        return None
    src, out = zip(*sorted(pairs))
    if all(a < b for a, b in itertools.pairwise(out)):
        return 1.0  # exactly 1, not 1 - ε from the floating-point formula
    rho = correlation("spearman", src, out)[0]
    return None if math.isnan(rho) else rho


def word_change(source: str, output: str) -> int:
    """WordChange (§2) of one line pair alone, as :func:`sentence_conservatism` counts it:
    what the systems table needs of each line, without the word order and sentence counts.
    Lines of the same words change none (their identity alignment is the only one of cost 0),
    and are not aligned: most lines of a GEC system's output are unchanged."""
    a, b = words(source), words(output)
    if a == b:
        return 0
    pairs = align_tokens(a, b)
    return sum(a[i] != b[j] for i, j in pairs) + len(a) + len(b) - 2 * len(pairs)


def sentence_conservatism(source: str, output: str, line: int = 1, ignore_case: bool = False) -> SentenceConservatism:
    """WordChange, word-order ρ and split/concatenation of one (tokenized) source line and its
    correction (§2)."""
    a, b = words(source), words(output)
    pairs = align_tokens(a, b)
    if ignore_case:
        changed = sum(a[i].lower() != b[j].lower() for i, j in pairs)
    else:
        changed = sum(a[i] != b[j] for i, j in pairs)
    deleted, added = len(a) - len(pairs), len(b) - len(pairs)
    ns, no = count_sentences(source), count_sentences(output)
    return SentenceConservatism(
        line=line, source_words=len(a), output_words=len(b), aligned=len(pairs), changed=changed,
        deleted=deleted, added=added, word_change=changed + deleted + added, rho=spearman_order(pairs),
        source_sentences=ns, output_sentences=no, split=ns >= 1 and no > ns, concatenated=no >= 1 and no < ns)


def conservatism(source_lines: Sequence[str], output_lines: Sequence[str], ignore_case: bool = False,
                 on_limit: Callable[[int, LimitError], None] | None = None) -> list[SentenceConservatism]:
    """The §2 measures for every pair of line-parallel source and correction lines.

    A pair too long to align (:class:`~semsim.kernel.limits.LimitError`) raises, or with
    ``on_limit`` is passed to it with its 1-based line and left out, and the rest measured."""
    if len(source_lines) != len(output_lines):
        raise InputError(f"{len(output_lines)} corrections for {len(source_lines)} source lines; "
                         "they must be line-parallel")
    out = []
    for i, (s, o) in enumerate(zip(source_lines, output_lines), 1):
        try:
            out.append(sentence_conservatism(s, o, i, ignore_case))
        except LimitError as exc:
            if on_limit is None:
                raise
            on_limit(i, exc)
    return out


def get_signature(ignore_case: bool = False, tokenize: str = "none") -> Signature:
    """The signature of the measures' settings, as a score carries its own: ``ignore_case``
    as given to :func:`conservatism`, and ``tokenize``, how the lines were tokenized before
    (:func:`semsim.app.tokenization.tokenize`; named only when they were)."""
    measures = signature("conservatism", {"case": "ignored" if ignore_case else "mixed"})
    return with_tokenizer(measures, tokenize)


@dataclass(frozen=True)
class SystemSummary:
    """A system's (or reference's) distribution of the §2 measures over its sentence pairs."""

    system: str
    n: int
    word_change_mean: float
    word_change_total: int
    unchanged: int  # pairs with WordChange 0
    unchanged_share: float
    word_change_counts: tuple[int, ...]  # [k] = pairs with WordChange k (Figure 1, top)
    rho_n: int  # pairs with ρ defined
    rho_undefined: int
    rho_mean: float | None  # §2 reports the average ρ
    rho_median: float | None
    reordered: int  # pairs with ρ < 1
    rho_cdf: dict[str, float]  # share of pairs with defined ρ <= threshold (Figure 1, bottom)
    source_sentences: int
    output_sentences: int
    splits: int  # pairs where the correction splits a sentence (Figure 1, middle)
    concatenations: int
    split_share: float
    concatenation_share: float

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["word_change_counts"] = list(self.word_change_counts)
        return d


def summarise(records: Sequence[SentenceConservatism], system: str = "") -> SystemSummary:
    """Means and distributions of one system's per-sentence measures."""
    n = len(records)
    if not n:
        raise SemsimError(f"{system or 'summary'}: no sentence pairs to summarise")
    wc = np.array([r.word_change for r in records])
    rhos = np.array([r.rho for r in records if r.rho is not None], dtype=np.float64)
    splits = sum(r.split for r in records)
    concats = sum(r.concatenated for r in records)
    unchanged = int((wc == 0).sum())
    return SystemSummary(
        system=system, n=n, word_change_mean=float(wc.mean()), word_change_total=int(wc.sum()),
        unchanged=unchanged, unchanged_share=unchanged / n,
        word_change_counts=tuple(int(c) for c in np.bincount(wc)),
        rho_n=len(rhos), rho_undefined=n - len(rhos),
        rho_mean=float(rhos.mean()) if len(rhos) else None,
        rho_median=float(np.median(rhos)) if len(rhos) else None,
        reordered=int((rhos < 1.0).sum()),
        rho_cdf={f"{t:g}": float((rhos <= t).mean()) if len(rhos) else 0.0 for t in RHO_THRESHOLDS},
        source_sentences=sum(r.source_sentences for r in records),
        output_sentences=sum(r.output_sentences for r in records),
        splits=splits, concatenations=concats, split_share=splits / n, concatenation_share=concats / n)


# -- Figure 1 ------------------------------------------------------------------------------------
PLOT_FORMATS = ("png", "svg", "pdf")


def plot_format(path: str | os.PathLike[str]) -> str:
    """The image format of ``path`` by its suffix; an error for anything else."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in PLOT_FORMATS:
        raise SemsimError(f"{path}: cannot tell the plot format; name it .png, .svg or .pdf")
    return fmt


def require_matplotlib() -> None:
    """Fail early, in one line, when the optional plotting dependency is missing."""
    import importlib.util
    if importlib.util.find_spec("matplotlib") is None:
        raise SemsimError("plotting needs matplotlib: pip install 'semsim[plot]'")


def plot(results: Mapping[str, Sequence[SentenceConservatism]], path: str | os.PathLike[str],
         references: Collection[str] = (), max_word_change: int = 15) -> None:
    """Figure 1 of §2: a heat map of sentence pairs per WordChange (top), split and
    concatenated source sentences (middle, references hatched), and the CDF of ρ (bottom).

    Written through ``path.partial`` and renamed; the same input gives the same bytes (no
    date or software stamp, a fixed SVG hash salt).
    """
    require_matplotlib()
    fmt = plot_format(path)
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import LogNorm
    from matplotlib.figure import Figure

    names = list(results)
    if not names:
        raise SemsimError("nothing to plot")
    top = max(max((r.word_change for r in results[s]), default=0) for s in names)
    k = min(top, max_word_change)
    heat = np.zeros((len(names), k + 1))
    for row, s in enumerate(names):
        counts = np.bincount([r.word_change for r in results[s]], minlength=top + 1)
        heat[row, :k] = counts[:k]
        heat[row, k] = counts[k:].sum()
    colours = {s: matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"](i % 20) for i, s in enumerate(names)}

    with matplotlib.rc_context({"svg.hashsalt": "semsim", "font.size": 9}):
        fig = Figure(figsize=(8.5, 2.2 + 0.32 * len(names) + 5.0), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(3, 1, height_ratios=[0.9 + 0.32 * len(names), 2.3, 2.7])

        ax = axes[0]
        masked = np.ma.masked_equal(heat, 0)
        cmap = matplotlib.colormaps["YlOrRd"].with_extremes(bad="white")
        im = ax.imshow(masked, aspect="auto", cmap=cmap, norm=LogNorm(vmin=1, vmax=max(heat.max(), 2)),
                       interpolation="nearest")
        for (i, j), v in np.ndenumerate(heat):
            if v:
                ax.text(j, i, f"{int(v)}", ha="center", va="center", fontsize=7,
                        color="white" if v > heat.max() ** 0.75 else "black")
        ax.set_xticks(range(k + 1), [*map(str, range(k)), f"≥{k}" if top > k else str(k)])
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("WordChange (words changed, deleted or added)")
        ax.set_title("Sentence pairs by number of word changes", loc="left")
        fig.colorbar(im, ax=ax, label="sentence pairs", pad=0.01)

        ax = axes[1]
        width = 0.8 / len(names)
        most = 0
        for i, s in enumerate(names):
            rs = results[s]
            vals = [sum(r.split for r in rs), sum(r.concatenated for r in rs)]
            most = max(most, *vals)
            x = np.arange(2) - 0.4 + width * (i + 0.5)
            bars = ax.bar(x, vals, width, color=colours[s], edgecolor="black", linewidth=0.5,
                          hatch="//" if s in references else None, label=s)
            ax.bar_label(bars, fontsize=7, padding=1)
        ax.set_xticks([0, 1], ["split", "concatenated"])
        ax.set_ylabel("source sentences")
        ax.set_title("Source sentences split or concatenated", loc="left")
        ax.set_ylim(0, max(most, 1) * 1.35)
        if not most:
            ax.text(0.5, 0.5, "no source sentence was split or concatenated", transform=ax.transAxes,
                    ha="center", va="center", color="0.4")
        ax.legend(fontsize=7, ncols=min(len(names), 4), loc="upper center")

        ax = axes[2]
        pooled = [r.rho for s in names for r in results[s] if r.rho is not None]
        # Most pairs keep their order (ρ = 1): start the axis at the 1st percentile, not the
        # minimum, so that the bulk is readable; the curves still start from 0 at ρ = -1.
        lo = min(0.5, float(np.percentile(pooled, 1))) if pooled else 0.0
        for s in names:
            rhos = np.sort([r.rho for r in results[s] if r.rho is not None])
            if not len(rhos):
                continue
            y = np.arange(1, len(rhos) + 1) / len(rhos) * 100
            ax.step(np.r_[-1.0, rhos, 1.0], np.r_[0.0, y, 100.0], where="post", color=colours[s], label=s,
                    linestyle="--" if s in references else "-")
        ax.set_xlim(math.floor(lo * 20) / 20, 1.005)
        ax.set_ylim(0, 101)
        ax.set_xlabel("Spearman ρ of word order (threshold)")
        ax.set_ylabel("% of sentence pairs with ρ ≤ x")
        ax.set_title("Word order: cumulative distribution of ρ (pairs with ≥ 2 aligned words)", loc="left")
        ax.grid(alpha=0.3)
        if pooled:
            ax.legend(fontsize=7, loc="upper left")
        else:
            ax.text(0.5, 0.5, "no sentence pair has two aligned words", transform=ax.transAxes,
                    ha="center", va="center", color="0.4")

        metadata = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
        with atomic_write(path, binary=True) as f:
            fig.savefig(f, format=fmt, dpi=110, metadata=metadata)
