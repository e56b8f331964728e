"""What a number depends on, as ordered fields: the :class:`Signature` every score carries.

A signature reads ``usim|variant:paper|dir:both|...|version:0.1.0|parser:ucca-span|model:...``:
a name (the measure), then ``key:value`` fields in the order they were added. sacrebleu keeps
its metrics' signatures as objects (``sacrebleu.metrics.base.Signature``) and renders them
once; semsim does the same, so that a metric, a parser plugin, the route from text and the
commands each *add* their fields, and only :meth:`Signature.format` writes the separators.
The keys are already short (the settings table names them: ``dir``, ``tie``, ``denom``), so
there is no second, long rendering.

Scores and reports keep the rendered string (``Score.signature``: JSON, TSV, tables);
:meth:`Signature.parse` reads one back exactly, for a caller that extends a rendered
signature or for a plugin that still names its model with a plain ``"name|key:value"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: one field: a key and its value, or a bare name (``usim``, ``f1``) with no value
Field = tuple[str, str | None]

_SEP, _KV = "|", ":"


def _text(value: object) -> str:
    """A value as a signature writes it: a flag ``yes``/``no``, anything else ``str()``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@dataclass(frozen=True)
class Signature:
    """Ordered fields, rendered ``name|key:value|key:value``.

    >>> sig = Signature.of("usim", {"variant": "paper", "remote": True})
    >>> str(sig.add("version", "0.1.0"))
    'usim|variant:paper|remote:yes|version:0.1.0'
    >>> str(sig + Signature.of(None, {"parser": "ucca-span"}))
    'usim|variant:paper|remote:yes|parser:ucca-span'
    >>> Signature.parse("usim|variant:paper").info
    {'variant': 'paper'}

    Fields are kept as given, duplicates and order included, and written as given: the
    rendering is the contract (scores, reports and papers quote it), so the object never
    reorders or escapes it. A name that holds ``|`` or ``:`` (a model file's) renders as
    it always did; :meth:`parse` may then group its text into other fields, rendered alike.
    """

    fields: tuple[Field, ...] = ()

    @classmethod
    def of(cls, name: str | None = None, info: Mapping[str, object] | Iterable[tuple[str, object]] = ()) -> Signature:
        """``name`` (a bare first field, if given) then each ``key:value`` of ``info`` in order."""
        items = info.items() if isinstance(info, Mapping) else info
        head: tuple[Field, ...] = ((name, None),) if name is not None else ()
        return cls(head + tuple((k, _text(v)) for k, v in items))

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The fields of a rendered signature: ``format(parse(s)) == s`` for every string
        (each ``|``-separated field is a key, up to its first ``:``, and a value, or a bare
        name). The way in for signatures made elsewhere: a stored score, an old plugin."""
        if not text:
            return cls()
        return cls(tuple((k, v if sep else None) for k, sep, v in (f.partition(_KV) for f in text.split(_SEP))))

    def add(self, key: str, value: object = None) -> Signature:
        """This signature with one more field (``value`` None: a bare name)."""
        return Signature((*self.fields, (key, None if value is None else _text(value))))

    def renamed(self, key: str, new: str) -> Signature:
        """This signature with every field ``key`` called ``new`` (its value and place kept)."""
        return Signature(tuple((new if k == key else k, v) for k, v in self.fields))

    def __add__(self, other: Signature) -> Signature:
        return Signature(self.fields + other.fields)

    def __bool__(self) -> bool:
        return bool(self.fields)

    @property
    def name(self) -> str | None:
        """The leading bare field (the measure's name), if there is one."""
        return self.fields[0][0] if self.fields and self.fields[0][1] is None else None

    @property
    def info(self) -> dict[str, str]:
        """The keyed fields as a mapping (the last value of a key that repeats)."""
        return {k: v for k, v in self.fields if v is not None}

    def head(self) -> Signature:
        """The first field alone (a model's name before the fields it adds)."""
        return Signature(self.fields[:1])

    def tail(self) -> Signature:
        """Every field but the first."""
        return Signature(self.fields[1:])

    def parts(self) -> list[str]:
        """Each field as written (``key:value``, or a bare name), in order."""
        return [k if v is None else f"{k}{_KV}{v}" for k, v in self.fields]

    def format(self) -> str:
        """The signature as scores, reports and papers carry it."""
        return _SEP.join(self.parts())

    def __str__(self) -> str:
        return self.format()
