"""USim as a Hugging Face ``evaluate`` module, shipped inside semsim (issue #21)::

    import evaluate
    import semsim.app.hf
    usim = evaluate.load(semsim.app.hf.module_path())               # or config_name="legacy", labels="weak", ...
    usim.compute(sources=["He gva an apple ."], predictions=["He gave an apple ."], parser="tupa")
    # {"scores": [0.93], "usim": 0.93, "signature": "usim|variant:paper|...|parser:tupa|model:..."}

Why a path and not a Hub name: ``evaluate.load`` given an absolute path to a directory
holding a script of the same name (``.../semsim/app/hf/usim/usim.py``) copies that script into
its modules cache and imports it, and never looks at the Hub: there is nothing to download,
and the module is always the one of the installed semsim. The script itself is a thin shell
(features, metadata); the settings and the scoring are here and in :mod:`semsim.app.metric`,
so that the copy evaluate keeps cannot run stale code after semsim is upgraded.

Settings, lowest precedence first: the ``config_name`` preset (:data:`CONFIG_NAMES`), keyword
arguments of ``evaluate.load``, keyword arguments of ``compute``. Every setting is a field of
:class:`semsim.app.metric.USimMetric.Config` (the parser, its model, the USim variant and
options); any other name is a :class:`~semsim.kernel.errors.SettingsError`.

This module imports neither ``evaluate`` nor the metric until asked to: ``module_path()``
is cheap and works where the ``hf`` extra is not installed.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...kernel.errors import SemsimError, SettingsError
from ...kernel.metrics.settings import PRESETS as _PRESETS

if TYPE_CHECKING:
    from ..metric import USimMetric

#: ``config_name`` presets: a few named settings (a name documents the run in evaluate's own
#: records, which keep the config name but not compute arguments). Anything else is set by keyword.
CONFIG_NAMES: Mapping[str, Mapping[str, Any]] = {
    "default": {},  # the paper's definition (§3), labeled, both directions: semsim score's defaults
    "legacy": {"variant": "legacy"},  # what the authors' released code computes (docs/legacy.md)
    "weak": {"labels": "weak"},  # labels compared by groups (the paper's weak labels)
    "unlabeled": {"labels": "unlabeled"},  # structure only
    # and each USim preset under its own name: ``meaning``, the setting that agrees best with
    # people's meaning judgments (docs/validity.md)
    **{name: {"preset": name} for name in _PRESETS},
}


def module_path() -> str:
    """The directory of the ``evaluate`` module, for ``evaluate.load(module_path())``.

    An absolute path, so that evaluate reads it as local (a relative name with at most one
    slash is looked up on the Hub first)."""
    path = Path(__file__).resolve().parent / "usim"
    if not (path / "usim.py").is_file():
        raise SemsimError(f"semsim's evaluate module is missing ({path / 'usim.py'}): reinstall semsim")
    return str(path)


def setting_names() -> tuple[str, ...]:
    """Every setting the module takes: the fields of ``USimMetric.Config``."""
    from ..metric import USimMetric
    return tuple(f.name for f in dataclasses.fields(USimMetric.Config))


def resolve_settings(config_name: str | None, *layers: Mapping[str, Any]) -> dict[str, Any]:
    """The ``config_name`` preset updated by each mapping of settings in turn (later wins).

    Unknown config names and setting names fail here, naming what exists, instead of being
    dropped: evaluate itself swallows unknown keyword arguments of ``load``, and a score
    computed without a setting the user asked for would be a quiet lie."""
    name = config_name or "default"
    if name not in CONFIG_NAMES:
        raise SettingsError(f"unknown config_name {name!r} for semsim's USim module; choose from "
                            f"{', '.join(CONFIG_NAMES)}, or give settings as keywords (labels='weak')")
    settings = dict(CONFIG_NAMES[name])
    names = setting_names()
    for layer in layers:
        unknown = [k for k in layer if k not in names]
        if unknown:
            hints = [f"{k!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(k, names, 1))
                     else repr(k) for k in unknown]
            raise SettingsError(f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(hints)} for "
                                f"semsim's USim module; the inputs are sources= and predictions=, the "
                                f"settings: {', '.join(names)}", unknown)
        settings.update(layer)
    return settings


def build_metric(settings: Mapping[str, Any]) -> USimMetric:
    """The metric the settings describe; bad values (``variant='nonsense'``, an option the
    variant ignores) raise :class:`~semsim.kernel.errors.SettingsError` here, before any parsing."""
    from ..metric import USimMetric
    return USimMetric(USimMetric.Config(**settings))


def check_texts(sources: Any, predictions: Any) -> None:
    """Refuse inputs that are no lists of sentences before ``evaluate`` casts them (it turns
    ``1`` into ``"1"``, and iterates a bare string as its characters)."""
    from ...kernel.files import checked_sentences
    for name, items in (("sources", sources), ("predictions", predictions)):
        if items is None:
            raise SemsimError(f"no {name}: give sources= and predictions=, two lists of sentences")
        if isinstance(items, (str, bytes)):
            raise SemsimError(f"{name} is one string: give a list of sentences")
        checked_sentences(name, items)  # each a string, no lone surrogate or control character


def compute(sources: Sequence[str], predictions: Sequence[str], settings: Mapping[str, Any]) -> dict[str, Any]:
    """What the module's ``compute`` returns: each prediction's USim F against its source
    (``scores``), their mean (``usim``: ``semsim score``'s ``macro_f``, computed the same way)
    and the ``signature`` of the settings, parser and model."""
    from ...kernel.stats import corpus_score
    check_texts(sources, predictions)
    if len(sources) != len(predictions):
        raise SemsimError(f"{len(predictions)} predictions but {len(sources)} sources")
    if not sources:
        raise SemsimError("no sentences to score")
    metric = build_metric(settings)
    (scores,) = metric.sentence_scores(list(sources), [list(predictions)])
    return {"scores": [s.f for s in scores], "usim": corpus_score(scores).macro, "signature": metric.get_signature()}
