"""USim (Choshen & Abend, NAACL 2018) as a Hugging Face ``evaluate`` metric.

Load it by path, ``evaluate.load(semsim.app.hf.module_path())``: evaluate copies this file into
its modules cache and imports it from there, so every import of semsim here is absolute, and
the work is done by semsim.app.hf (settings, scoring), which is not copied and so cannot go stale.
evaluate looks at the imports of this file with a regular expression: a relative import or
a "From:" comment after one would make it fetch a file, so there is neither.
"""

from __future__ import annotations

import inspect
from typing import Any

import datasets
import evaluate

import semsim.app.hf

_CITATION = """\
@inproceedings{choshen-abend-2018-reference,
    title = "Reference-less Measure of Faithfulness for Grammatical Error Correction",
    author = "Choshen, Leshem and Abend, Omri",
    booktitle = "Proceedings of the 2018 Conference of the North American Chapter of the Association for
                 Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)",
    year = "2018",
    address = "New Orleans, Louisiana",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/N18-2020",
    doi = "10.18653/v1/N18-2020",
    pages = "124--129",
}
"""

_DESCRIPTION = """\
USim measures how faithfully a text keeps the meaning of its source: both are parsed into
semantic graphs (UCCA by default), tokens are aligned by edit distance, the alignment is
extended to units, and the F-score of matching labeled units is reported. It needs no
reference, so it scores grammatical error correction outputs (predictions) against their
inputs (sources). Computed by semsim; every result carries a signature of the settings,
parser and model that produced it. This module never downloads anything.
"""

_KWARGS_DESCRIPTION = """
Args:
    sources (`list` of `str`): the input sentences, one per example.
    predictions (`list` of `str`): the outputs (corrections), one per source.
    Settings (keywords of `compute` or `evaluate.load`, or `config_name`: default, legacy,
    weak, unlabeled, meaning, meaning-splits): any field of `semsim.app.metric.USimMetric.Config`, e.g.
    `parser`, `model`, `variant` (paper|legacy), `preset` (none|meaning|meaning-splits: the settings
    that agree best with people's meaning judgments; -splits for outputs that move or split
    clauses), `order` (kept|scenes|splits), `labels` (labeled|weak|unlabeled), `direction`,
    `tie_break`, `remote`, `tokens` (edit|lexical|ordered|paraphrase|contextual), `edge_weights`
    (uniform|height|scheme|capped|none), `units` (yield|dice), `denominator` (yield|aligned),
    `leaves` (0|1|2|3|8), `tokenize` (none|spacy: split untokenized text, such as LLM outputs,
    with spaCy's rule-based tokenizer first), `jobs`, `batch_size`, `cache`,
    `use_cache`; docs/evaluate.md lists them all.
Returns:
    scores (`list` of `float`): each prediction's USim F against its source, in [0, 1]
        (1 when both are empty, 0 when only one is).
    usim (`float`): their mean (the figure the paper reports; `semsim score`'s macro_f).
    signature (`str`): the settings, semsim's version, the parser and its model (and the
        tokenizer, `tok:spacy-X.Y`, with `tokenize="spacy"`).
Examples:
    >>> import evaluate, semsim.app.hf
    >>> usim = evaluate.load(semsim.app.hf.module_path())
    >>> usim.compute(sources=["He gva an apple ."], predictions=["He gave an apple ."])  # doctest: +SKIP
"""

#: keywords of evaluate's own ``EvaluationModule.__init__`` (cache_dir, keep_in_memory, ...):
#: passed on; every other keyword of ``evaluate.load`` is a USim setting
_MODULE_ARGUMENTS = frozenset(inspect.signature(evaluate.EvaluationModule.__init__).parameters) - {"self", "kwargs"}


class Usim(evaluate.Metric):
    """USim of predictions against their sources (reference-less). Named as evaluate names
    its modules (``Sacrebleu``), so that its ``name`` is ``usim``."""

    def __init__(self, config_name: str | None = None, **kwargs: Any) -> None:
        settings = {k: v for k, v in kwargs.items() if k not in _MODULE_ARGUMENTS}
        # evaluate drops unknown keywords of load() silently: check them, and the values,
        # when the module is loaded rather than at the first compute
        self._settings = semsim.app.hf.resolve_settings(config_name, settings)
        semsim.app.hf.build_metric(self._settings)
        super().__init__(config_name=config_name, **{k: v for k, v in kwargs.items() if k in _MODULE_ARGUMENTS})

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"sources": datasets.Value("string"),
                                        "predictions": datasets.Value("string")}),
            codebase_urls=[],
            reference_urls=["https://aclanthology.org/N18-2020"],
            license="MIT",
        )

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """USim of ``predictions`` against ``sources``; keywords other than the inputs are settings.
        """
        # evaluate's compute drops ``references`` silently when no feature has that name
        if references is not None:
            raise ValueError("USim is reference-less: give sources= and predictions=, not references=")
        if predictions is not None or kwargs.get("sources") is not None:  # else added with add_batch
            semsim.app.hf.check_texts(kwargs.get("sources"), predictions)
        try:
            return super().compute(predictions=predictions, **kwargs)
        except BaseException:
            self._remove_inputs()
            raise

    def _remove_inputs(self) -> None:
        """What evaluate's ``compute`` does once ``_compute`` returns, done when it raises (a
        line the parser fails on, a bad setting): the inputs' Arrow files under
        ``$HF_METRICS_CACHE`` removed and their locks released, as docs/evaluate.md says."""
        import contextlib
        import os
        self.data = self.writer = self.buf_writer = None
        for lock, path in reversed(list(zip(getattr(self, "filelocks", None) or [], self.file_paths or []))):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
            with contextlib.suppress(Exception):
                lock.release()

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """As :meth:`compute`, the inputs checked before evaluate encodes them (a lone
        surrogate failed in its Arrow writer)."""
        if predictions is not None or kwargs.get("sources") is not None:
            semsim.app.hf.check_texts(kwargs.get("sources"), predictions)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(self, sources: list[str], predictions: list[str], **settings: Any) -> dict[str, Any]:
        merged = semsim.app.hf.resolve_settings(self.config_name, self._settings, settings)
        return semsim.app.hf.compute(sources, predictions, merged)

