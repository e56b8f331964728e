"""What a number depends on, as ordered fields: the :class:`Signature` every score carries.

A signature reads ``usim|variant:paper|dir:both|...|scheme:ucca@HASH|plugin:...|version:0.1.0``:
a name (the measure), then ``key:value`` fields in the order they were added. sacrebleu keeps
its metrics' signatures as objects (``sacrebleu.metrics.base.Signature``) and renders them
once; semsim does the same: a score carries the object (``Score.signature``), the measure and
the route from text *add* fields, and only :meth:`Signature.format`, called where output is
written, writes the separators. Nothing reads a rendered signature back.

Values come from plugins and files too (a model's name, a parser's fields), so rendering
escapes what would forge structure: ``|`` (a field with no key), ``\\`` (the escape itself),
``:`` in a key, and every control or line-breaking character (a second ``signature:`` line, a
TSV column, a terminal escape), as ``\\|``, ``\\\\``, ``\\:``, ``\\n``, ``\\t``, ``\\xNN``/``\\uNNNN``.
What semsim itself writes holds none of them, so its signatures render as they always did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .scheme import MadeBy, Scheme, scheme_fields
from .version import __version__

#: one field: a key and its value, or a bare name (``usim``, ``f1``) with no value
Field = tuple[str, str | None]

_SEP, _KV = "|", ":"
#: what a value may not hold as it is: the separator, the escape, control and line-breaking
#: characters (C0, DEL, C1: ESC, NUL, U+009B...), and the bidirectional overrides
_UNSAFE = r"\\|\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE_VALUE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_KEY = re.compile(f"[{_UNSAFE}:]")
_NAMED = {"\\": "\\\\", "|": "\\|", ":": "\\:", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


class SignatureClash(ValueError):
    """Fields joined to a signature (:meth:`Signature.extended`) repeat keys it has."""

    def __init__(self, keys: list[str]) -> None:
        super().__init__(f"signature field{'s' if len(keys) > 1 else ''} {', '.join(map(repr, keys))} "
                         "already written")
        self.keys = keys


def escape(text: str) -> str:
    """``text`` as a signature writes a value: one line, no separator, no control character."""
    return _UNSAFE_VALUE.sub(_escape, text)


def _text(value: object) -> str:
    """A value as a signature keeps it: a flag ``yes``/``no``, anything else ``str()``."""
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
    >>> sig.info
    {'variant': 'paper', 'remote': 'yes'}
    >>> str(Signature.of(None, {"model": "a|version:9\\nsignature: forged"}))
    'model:a\\\\|version:9\\\\nsignature: forged'

    Fields are kept as given, duplicates and order included, and written in that order: the
    rendering is the contract (scores, reports and papers quote it). Only what would forge
    structure is escaped, as it is written (the module's docstring).
    """

    fields: tuple[Field, ...] = ()

    @classmethod
    def of(cls, name: str | None = None, info: Mapping[str, object] | Iterable[tuple[str, object]] = ()) -> Signature:
        """``name`` (a bare first field, if given) then each ``key:value`` of ``info`` in order."""
        items = info.items() if isinstance(info, Mapping) else info
        head: tuple[Field, ...] = ((name, None),) if name is not None else ()
        return cls(head + tuple((k, _text(v)) for k, v in items))

    def add(self, key: str, value: object = None) -> Signature:
        """This signature with one more field (``value`` None: a bare name)."""
        return Signature((*self.fields, (key, None if value is None else _text(value))))

    def renamed(self, key: str, new: str) -> Signature:
        """This signature with every field ``key`` called ``new`` (its value and place kept)."""
        return Signature(tuple((new if k == key else k, v) for k, v in self.fields))

    def __add__(self, other: Signature) -> Signature:
        return Signature(self.fields + other.fields)

    def extended(self, other: Signature) -> Signature:
        """This signature, then ``other``'s fields, none of whose keys may be one of this
        one's: where fields someone else chose (a plugin's) join semsim's, a repeated key would
        give two ``version`` or ``model`` fields that no reader could tell apart. Raises
        :class:`SignatureClash`."""
        repeated = sorted(set(self.keys()) & set(other.keys()))
        if repeated:
            raise SignatureClash(repeated)
        return self + other

    def __bool__(self) -> bool:
        return bool(self.fields)

    def __repr__(self) -> str:
        return f"Signature({self.format()!r})"

    @property
    def name(self) -> str | None:
        """The leading bare field (the measure's name), if there is one."""
        return self.fields[0][0] if self.fields and self.fields[0][1] is None else None

    @property
    def info(self) -> dict[str, str]:
        """The keyed fields as a mapping (the last value of a key that repeats)."""
        return {k: v for k, v in self.fields if v is not None}

    def keys(self) -> list[str]:
        """The keys of the keyed fields, in order (a key that repeats, each time)."""
        return [k for k, v in self.fields if v is not None]

    def tail(self) -> Signature:
        """Every field but the first."""
        return Signature(self.fields[1:])

    def parts(self) -> list[str]:
        """Each field as written (``key:value``, or a bare name), in order, escaped."""
        return [_UNSAFE_KEY.sub(_escape, k) if v is None else
                f"{_UNSAFE_KEY.sub(_escape, k)}{_KV}{escape(v)}" for k, v in self.fields]

    def format(self) -> str:
        """The signature as scores, reports and papers carry it: one line, every field escaped."""
        return _SEP.join(self.parts())

    def __str__(self) -> str:
        return self.format()


def signature(metric: str, settings: Mapping[str, object], scheme: Scheme | None = None,
              made_by: MadeBy | None = None) -> Signature:
    """``usim|variant:paper|...|scheme:ucca@HASH|plugin:...|version:0.1.0``: every setting
    that can change a number, then the graphs' representation and who made them
    (:func:`~semsim.kernel.scheme.scheme_fields`, where the measure was given graphs), then
    semsim's version: the one place a measure's signature is assembled, semsim's own measures'
    and plugins' alike."""
    named = scheme_fields(scheme, made_by) if scheme is not None else {}
    return Signature.of(metric, {**settings, **named}).add("version", __version__)
