"""USim's settings, once: the table that the settings object, the CLI's options, the
explanation's settings and the docs' option table are read from.

Each :class:`Setting` says its choices and default, which variant uses it (a setting given
to the other variant is an error, since the score's signature would not show it), its
command-line option and its help. :class:`Settings`, a frozen dataclass with a field per row
of the table, holds one choice of them all, checked once as it is made; every function of USim
takes that one object (:class:`semsim.USim` is one). The signature itself is written by each
variant's metric (:func:`semsim.kernel.metrics.usim.paper_settings`,
:func:`semsim.kernel.metrics.legacy.legacy_settings`) in the order signatures have always had; a
test checks that every setting here reaches it.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..align.tokens import TOKEN_ALIGNMENTS
from ..align.units import TIE_BREAKS, UNIT_WEIGHTS
from ..errors import SettingsError

VARIANTS = ("paper", "legacy")
LABEL_MODES = ("labeled", "weak", "unlabeled")
DIRECTIONS = ("both", "s->r", "r->s")
#: what a unit edge counts; ``none``: nothing, the leaves alone (an ablation: what the units add)
EDGE_WEIGHTS = ("uniform", "height", "scheme", "capped", "none")
#: where an aligned word may stand: ``kept``, as the token alignment says; ``scenes``, a scene the
#: alignment left out matched with one of the other text's wherever it stands (:mod:`semsim.kernel.align.moves`)
ORDERS = ("kept", "scenes", "splits")
#: what a leaf edge (a token's edge from its unit) may weigh; 0: leaves are not counted
LEAF_WEIGHTS = (0, 1, 2, 3, 8)
#: Named settings of the paper variant, each a row's worth of values: ``meaning`` is the
#: measure chosen against human meaning judgments (docs/validity.md): leaves graded by
#: contextual similarity, function words at half weight (their leaves and their edges),
#: edges unlabelled, a change charged once, where it is (a unit's share counts its aligned
#: tokens only, every maximiser of w kept): an inserted or deleted word costs its own edges,
#: not a fraction of every unit above it; and each unit matched with the unit of the other
#: graph that says most nearly the same, no more and no less (``units="dice"``), so that a
#: learner's sentence and its correction bracketed differently cost what differs.
PRESETS: dict[str, dict[str, Any]] = {
    "meaning": {"tokens": "contextual", "labels": "unlabeled", "leaves": 8, "denominator": "aligned",
                "tie_break": "all", "units": "dice", "edge_weights": "capped"},
}
#: ``meaning-splits``: ``meaning``, and a scene that moved or was split off keeps its credit
#: wherever it stands, and a split-off sentence's restated participant counts on neither side
#: (``order="splits"``: :mod:`semsim.kernel.align.moves`); chosen on the simplification
#: judgments (docs/validity.md), level with ``meaning`` on GEC.
PRESETS["meaning-splits"] = {**PRESETS["meaning"], "order": "splits"}


@dataclass(frozen=True)
class Setting:
    """One setting of USim.

    Attributes:
        name: the field of :class:`semsim.USim` (and of ``USimMetric.Config``).
        default: its value when not given.
        choices: the values it takes; empty for a yes/no setting.
        variant: the only variant that uses it, or None for every variant.
        option: the CLI option (a yes/no setting also has ``--no-`` form).
        words: for a setting whose values are no strings (yes/no, a number) given as a
            choice on the command line, the word of each value (``--align sentence`` is
            ``by_sentence=True``, ``--leaves 2`` is ``leaves=2``); also how the explanation
            shows it, under ``key``.
        key: its name in the explanation's settings (the field's name unless ``words``).
        always_shown: False for the §4.4 remedies, shown (in explanations) only when used,
            so that the paper's own outputs stay as they were.
        help: the CLI's help.
    """

    name: str
    default: Any
    choices: tuple[str, ...] = ()
    variant: str | None = "paper"
    option: str = ""
    words: Mapping[str, Any] = field(default_factory=dict)
    key: str = ""
    always_shown: bool = True
    help: str = ""

    @property
    def cli_words(self) -> tuple[str, ...]:
        """The words the command line takes for it; empty for a ``--x/--no-x`` flag."""
        return self.choices or tuple(self.words)

    def shown(self, value: Any) -> Any:
        """The value as the explanation and the CLI write it."""
        return next((w for w, v in self.words.items() if v == value), value)

    def check(self, value: Any) -> None:
        allowed = self.choices or ((True, False) if not self.words else tuple(self.words.values()))
        if value not in allowed or type(value) is not type(self.default):  # 1 is not True here, nor 2.0 2
            raise SettingsError(f"unknown {self.name} {value!r}; choose from {', '.join(map(str, allowed))}")


SETTINGS: tuple[Setting, ...] = (
    Setting("variant", "paper", VARIANTS, None, "--variant",
            help="paper: §3 of the paper; legacy: what the authors' released code computes."),
    Setting("direction", "both", DIRECTIONS, option="--direction",
            help="Whose nodes are aligned onto the other's: both directions averaged (Table 1), or one."),
    Setting("tie_break", "coverage", TIE_BREAKS, option="--tie-break",
            help="How ties of the node weight w(v,u) are resolved (paper variant)."),
    Setting("labels", "labeled", LABEL_MODES, option="--labels",
            help="Edge label matching (weak: the scheme's equivalences)."),
    Setting("remote", True, option="--remote", help="Count remote edges."),
    Setting("by_sentence", True, option="--align", words={"sentence": True, "passage": False}, key="align",
            help="Align tokens sentence by sentence or over the whole text."),
    Setting("denominator", "yield", ("yield", "aligned"), option="--denominator",
            help="|yield(u)| in w(v,u): all tokens, or only aligned ones."),
    Setting("tokens", "edit", TOKEN_ALIGNMENTS, option="--tokens", always_shown=False,
            help="Token alignment: edit (the paper's: any pair sharing a letter), lexical (only the same word "
                 "up to a misspelling or inflection), ordered (lexical, and in order: catches swapped "
                 "arguments), paraphrase (ordered, and rephrasings a plugin's paraphrase judge recognises, "
                 "know how/be able), contextual (in order, every pair graded by how alike a plugin's word "
                 "encoder finds the two words in their sentences). See docs/faithfulness.md, docs/validity.md."),
    Setting("edge_weights", "uniform", EDGE_WEIGHTS, option="--edge-weights", always_shown=False,
            help="What an edge counts: uniform (1, the paper's), height (1 + its child's height), scheme "
                 "(the representation's label weights) or capped (those weights capped at 1, as a leaf weighs: "
                 "UCCA's function words and relators half, every other edge 1) or none (no unit edge counts: the "
                 "leaves alone, with --leaves; the ablation that says what the units add). See docs/faithfulness.md."),
    Setting("units", "yield", UNIT_WEIGHTS, option="--units", always_shown=False,
            help="What a node is aligned by: yield (the paper's w(v,u), the share of u's yield aligned into v) "
                 "or dice (the Dice coefficient of the two yields: a counterpart is charged for what it has "
                 "beyond v too). See docs/validity.md."),
    Setting("order", "kept", ORDERS, option="--order", always_shown=False,
            help="Where aligned words may stand: kept (as the token alignment says) or scenes (a scene the "
                 "alignment left out is matched with a scene of the other text that shares no aligned word, "
                 "wherever it stands, across sentences: a moved or split-off clause keeps its credit). "
                 "See docs/validity.md."),
    Setting("leaves", 0, option="--leaves", words={str(w): w for w in LEAF_WEIGHTS}, always_shown=False,
            help="Count each token's edge from its unit as an edge of this weight, matched when the token "
                 "is aligned: 0 (the paper's reading: units only), 1, 2, 3 or 8. See docs/faithfulness.md."),
    Setting("single_token_units", True, variant="legacy", option="--single-token-units",
            help="Legacy variant: keep units of one token (the 2018 revision drops them)."),
    Setting("preset", "none", ("none", *PRESETS), option="--preset", always_shown=False,
            help="A named set of the settings above: meaning (tokens contextual, labels unlabeled, leaves 8, "
                 "denominator aligned, tie-break all, units dice, edge-weights capped: the setting that agrees "
                 "best with human meaning judgments, docs/validity.md); meaning-splits (meaning, and order "
                 "splits: for outputs that move clauses or split sentences, as simplification does). It refuses "
                 "a setting it sets given another value."),
)
BY_NAME = {s.name: s for s in SETTINGS}


def expand(values: Mapping[str, Any], given: Collection[str] | None = None) -> dict[str, Any]:
    """``values`` with its preset's settings filled in (:data:`PRESETS`). A setting the
    preset sets, given another value than the preset's, is refused: the signature could not
    say which of the two was meant. ``given`` names the settings the user gave (a keyword, an
    option typed, a config's key), so that one restating its default is refused too (``tokens
    ="edit"`` with the preset meaning: the user asked for edit); None (not known): only
    values other than the default count as given."""
    out = dict(values)
    preset = out.get("preset", "none")
    if preset not in PRESETS:
        return out
    clash = [k for k, v in PRESETS[preset].items()
             if (out.get(k, BY_NAME[k].default) != v if given is not None and k in given
                 else out.get(k, BY_NAME[k].default) not in (BY_NAME[k].default, v))]
    if clash:
        raise SettingsError(f"preset {preset!r} sets {', '.join(f'{k}={PRESETS[preset][k]!r}' for k in clash)}; "
                            f"leave {'it' if len(clash) == 1 else 'them'} out, or drop the preset and give every "
                            "setting yourself")
    out.update(PRESETS[preset])
    return out


def variant_ignores(variant: str, named: Sequence[str], settings: Sequence[str], leave: str = "",
                    flags: bool = False) -> SettingsError:
    """The one error for settings the ``variant`` would ignore: ``named`` as the caller gave
    them (``labels='weak'``, or ``--labels weak`` with ``flags``, the command line's words),
    ``settings`` their names, ``leave`` the advice (``at the default``, ``out``)."""
    other = VARIANTS[1 - VARIANTS.index(variant)]
    it = "it" if len(named) == 1 else "them"
    if flags:
        return SettingsError(f"{' '.join(named)}: --variant {variant} ignores {it} (only --variant {other} uses {it})",
                             settings)
    return SettingsError(f"{', '.join(named)}: the {variant} variant does not use {it} (only the {other} variant "
                         f"does); leave {it} {leave}", settings)


def check(values: Mapping[str, Any]) -> None:
    """Refuse unknown values, and settings the chosen variant would ignore (restating a
    default is not an error); :class:`SettingsError` names the ignored settings."""
    for s in SETTINGS:
        if s.name in values:
            s.check(values[s.name])
    variant = values.get("variant", "paper")
    other = VARIANTS[1 - VARIANTS.index(variant)]
    ignored = [s.name for s in SETTINGS if s.variant == other and values.get(s.name, s.default) != s.default]
    if ignored:
        raise variant_ignores(variant, [f"{k}={values[k]!r}" for k in ignored], ignored, "at the default")
    if values.get("edge_weights") == "none" and not values.get("leaves", 0):
        # no ``settings`` list: that names settings a variant ignores (the command line says so)
        raise SettingsError("edge_weights='none' counts no unit edge and leaves=0 no leaf: nothing would be "
                            "compared; give leaves a weight")


_Class = TypeVar("_Class", bound="type[Any]")
_GIVEN: dict[int, frozenset[str]] = {}  # by id() of a live object of a tracked class


def track_given(cls: _Class) -> _Class:
    """Make ``cls`` (a dataclass of the settings) remember which fields its caller gave
    (:func:`given_fields`), for :func:`expand`: a dataclass cannot otherwise tell
    ``tokens="edit"`` from the default it equals. Kept beside the object, not in it, so that
    its attributes stay the plain values a config is made of."""
    init, names = cls.__init__, [f.name for f in dataclasses.fields(cls)]

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if id(self) not in _GIVEN:
            weakref.finalize(self, _GIVEN.pop, id(self), None)
        _GIVEN[id(self)] = frozenset(names[:len(args)]) | frozenset(kwargs)
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    return cls


def given_fields(obj: Any) -> frozenset[str] | None:
    """The fields ``obj``'s maker gave (:func:`track_given`); None if not tracked."""
    return _GIVEN.get(id(obj))


def _settle(self: Settings) -> None:
    """Fill in the preset's settings, then refuse bad values: once, as the object is made,
    so that no function taking it checks again."""
    given = given_fields(self)
    values = expand({s.name: getattr(self, s.name) for s in SETTINGS}, given)
    for name, value in values.items():
        object.__setattr__(self, name, value)
    try:
        check(values)
    except SettingsError as exc:
        preset = values.get("preset", "none")
        from_preset = [k for k in exc.settings if k in PRESETS.get(preset, {}) and (given is None or k not in given)]
        if not from_preset:
            raise
        # name what the caller gave: the preset that set them, not settings never written
        rest = [k for k in exc.settings if k not in from_preset and k != "preset"]
        named = [f"preset={preset!r}", *(f"{k}={values[k]!r}" for k in rest)]
        raise variant_ignores(values.get("variant", "paper"), named, ["preset", *rest], "out") from None


@dataclass(frozen=True)
class Settings:
    """One choice of every USim setting: a frozen dataclass with a field per row
    of :data:`SETTINGS` (its name, type and default), its preset expanded (:func:`expand`) and
    its values checked (:func:`check`, :class:`~semsim.kernel.errors.SettingsError`) as it is made.
    The functions of USim take it as one argument; :class:`semsim.USim` is one."""

    # written out, so that type checkers see the fields; tests/test_settings_signatures.py
    # keeps them (names, types, defaults, order) those of SETTINGS, whose rows are the source
    variant: str = "paper"
    direction: str = "both"
    tie_break: str = "coverage"
    labels: str = "labeled"
    remote: bool = True
    by_sentence: bool = True
    denominator: str = "yield"
    tokens: str = "edit"
    edge_weights: str = "uniform"
    units: str = "yield"
    order: str = "kept"
    leaves: int = 0
    single_token_units: bool = True
    preset: str = "none"

    def __post_init__(self) -> None:
        _settle(self)


track_given(Settings)


def flag(name: str, value: Any) -> str:
    """How the command line gives ``name=value`` (``--tie-break all``, ``--no-remote``)."""
    s = BY_NAME[name]
    if not s.cli_words:
        return s.option if value else "--no-" + s.option[2:]
    return f"{s.option} {s.shown(value)}"


def shown(values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings an explanation lists for ``values``: the variant, then those it uses,
    under their ``key`` (the remedies only when used)."""
    variant = values.get("variant", "paper")
    out: dict[str, Any] = {"variant": variant}
    for s in SETTINGS:
        if s.variant == variant and (s.always_shown or values[s.name] != s.default):
            out[s.key or s.name] = s.shown(values[s.name])
    return out


def markdown_table() -> str:
    """The docs' table of USim options (docs/usage.md quotes it; a test keeps it current)."""
    rows = ["| option | Python (`semsim.USim`) | values (default first) | variant | what it does |",
            "|---|---|---|---|---|"]
    for s in SETTINGS:
        words = list(s.cli_words) or ["yes", "no"]
        default = s.shown(s.default) if s.cli_words else ("yes" if s.default else "no")
        values = ", ".join(f"`{w}`" for w in [default, *(w for w in words if w != default)])
        option = s.option if s.cli_words else f"{s.option} / --no-{s.option[2:]}"
        rows.append(f"| `{option}` | `{s.name}` | {values} | {s.variant or 'both'} | {s.help.replace('|', '&#124;')} |")
    return "\n".join(rows)
