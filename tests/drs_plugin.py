"""A test plugin for a representation not anchored to words, with its own idea of punctuation.

Discourse Representation Structures in a clause format after the Parallel Meaning Bank's
(``b1 REF x1``, ``b1 male "n.02" x1``, ``b2 Agent e1 x1``), cut down to what the tests need.
What makes it a test of semsim's routes (issue #47) is what its adapter decides for itself:

* **pseudo-tokens**: a concept ``male "n.02"`` is two tokens, the lemma ``male`` and its sense
  ``..n.02``; a constant (``Name x1 "tom"``) is one. They are ordered referent by referent, in
  the order the referents are introduced, so that the order of clauses in a file never matters;
* **punctuation by its own rule**: a sense token is punctuation (it has letters and digits, so
  ``semsim.kernel.adapt.is_punct`` says it is not): senses are left out of the token alignment;
* **unit kinds**: a time referent (``t1``) is of kind ``time``, which the scheme's
  ``ignored_kinds`` leaves out of comparison (tense is not meaning-bearing here), and so is the
  root box.

Its parser turns text into a DRS by rules (capitalised words are named entities, words ending
in ``s`` or ``ed`` are events whose agent is the entity before them, with a tense referent);
its writer writes the clause format back. Loaded through ``SEMSIM_PLUGINS`` in subprocesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from semsim.kernel.errors import InputError
from semsim.kernel.files import read_text, shown
from semsim.kernel.graph import Edge, Graph, Token, Unit
from semsim.kernel.hookspecs import hookimpl
from semsim.kernel.records import Parser, Reader, Writer
from semsim.kernel.scheme import Scheme

DRS = Scheme("drs", equivalences=(frozenset({"EQU", "TPR"}),), ignored_kinds=frozenset({"time", "box"}),
             label_names={"REF": "discourse referent", "Agent": "agent of an event"})

#: one clause: a box, an operator and two arguments, the first or second of which may be a quoted constant
_CLAUSE = re.compile(r'^(b\d+) (\S+) ("[^"]*"|\S+) ("[^"]*"|\S+)$|^(b\d+) REF (\S+)$')


@dataclass(frozen=True)
class Drs:
    """The native graph: its id and its clauses (box, operator, argument, argument)."""

    id: str
    clauses: tuple[tuple[str, str, str, str], ...]
    line: int | None = None  # where it starts in its file: semsim names it in an error of to_graph's


def is_sense(token: str) -> bool:
    """This representation's punctuation: a concept's sense tag (``..n.02``)."""
    return token.startswith("..")


def read(path: Path):
    """DRSs separated by blank lines; ``% text`` comments name nothing; a bad clause is an
    InputError naming its line, in its DRS's place."""
    drs: list[tuple[str, str, str, str]] = []
    start, error, count = 0, None, 0
    lines = read_text(path, "clause files").split("\n")
    for n, line in enumerate([*lines, ""], 1):
        if not line.strip():
            if drs or error:
                count += 1
                yield error or Drs(f"{Path(shown(path)).stem}.{count}", tuple(drs), start)
            drs, error, start = [], None, 0
            continue
        start = start or n
        if line.startswith("%"):
            continue
        m = _CLAUSE.match(line.strip())
        if not m:
            error = error or InputError(f"not a clause: {line.strip()[:40]!r}", shown(path), n)
        else:
            drs.append((m[5], "REF", m[6], "") if m[5] else (m[1], m[2], m[3], m[4]))


def drs_to_graph(d: Drs) -> Graph:
    """Unit 0 is the root box; a unit per referent (kind ``time`` for ``t``-referents, else
    ``ref``), anchored to its concepts' and constants' tokens; roles are remote edges."""
    refs = [c[2] for c in d.clauses if c[1] == "REF"]
    if not refs or len(set(refs)) != len(refs):
        raise InputError(f"DRS {d.id}: {'no referents' if not refs else 'a referent introduced twice'}")
    unit_of = {r: i + 1 for i, r in enumerate(refs)}
    box_of = {c[2]: c[0] for c in d.clauses if c[1] == "REF"}
    words: dict[str, list[str]] = {r: [] for r in refs}
    edges = [Edge(0, unit_of[r], ("REF",)) for r in refs]
    for box, op, a, b in d.clauses:
        if op == "REF":
            continue
        if a.startswith('"') and b in unit_of:  # a concept: lemma "sense" referent
            words[b] += [op, ".." + a.strip('"')]
        elif a in unit_of and b.startswith('"'):  # a constant: Operator referent "value"
            words[a].append(b.strip('"'))
            edges.append(Edge(0, unit_of[a], (op,), remote=True))
        elif a in unit_of and b in unit_of:  # a role: Role referent referent
            edges.append(Edge(unit_of[a], unit_of[b], (op,), remote=True))
        else:
            raise InputError(f"DRS {d.id}: clause {box} {op} {a} {b} names no referent")
    tokens, units = [], [Unit("b0", "box")]
    for r in refs:
        first = len(tokens)
        tokens += [Token(w, punct=is_sense(w)) for w in words[r]]
        units.append(Unit(r, "time" if r.startswith("t") else "ref", tuple(range(first, len(tokens))),
                          label=box_of[r]))
    if not tokens:
        raise InputError(f"DRS {d.id}: no concepts")
    return Graph(tuple(tokens), tuple(units), tuple(edges), scheme=DRS, id=d.id)


def parse(texts, model=None):
    """Text to DRS by rules: capitalised word: a named entity; a word ending in ``s``/``ed``: an
    event (present/past) whose agent is the last entity; any other word with a letter: a concept."""
    out = []
    for text in texts:
        clauses: list[tuple[str, str, str, str]] = []
        last = None
        for i, w in enumerate(text.split(), 1):
            if not any(c.isalpha() for c in w):
                continue
            if w[0].isupper():
                x = f"x{i}"
                clauses += [("b1", "REF", x, ""), ("b1", "Name", x, f'"{w.lower()}"'), ("b1", "entity", '"n.01"', x)]
                last = x
            elif w.endswith(("s", "ed")):
                e, t = f"e{i}", f"t{i}"
                clauses += [("b2", "REF", e, ""), ("b2", w.removesuffix("s").removesuffix("ed"), '"v.01"', e),
                            ("b2", "REF", t, ""), ("b2", "time", '"n.08"', t),
                            ("b2", "EQU" if w.endswith("s") else "TPR", t, '"now"'), ("b2", "Time", e, t)]
                if last:
                    clauses.append(("b2", "Agent", e, last))
            else:
                x = f"x{i}"
                clauses += [("b1", "REF", x, ""), ("b1", w.lower(), '"n.01"', x)]
                last = x
        out.append(Drs("", tuple(clauses)))
    return out


def clauses(g: Graph) -> list[str]:
    """A graph of this plugin as clauses, in the order :func:`drs_to_graph` orders its tokens."""
    out = []
    for u, unit in enumerate(g.units[1:], 1):
        box, var = unit.label, unit.id
        out.append(f"{box} REF {var}")
        words = [g.tokens[t].text for t in unit.anchors]
        constants = [g.edges[i].labels[0] for i in g.incoming[u] if g.edges[i].parent == 0 and g.edges[i].remote]
        k = 0
        while k < len(words):
            if k + 1 < len(words) and is_sense(words[k + 1]):
                out.append(f'{box} {words[k]} "{words[k + 1][2:]}" {var}')
                k += 2
            else:
                out.append(f'{box} {constants.pop(0)} {var} "{words[k]}"')
                k += 1
    out += [f"{g.units[e.parent].label} {e.labels[0]} {g.units[e.parent].id} {g.units[e.child].id}"
            for e in g.edges if e.remote and e.parent != 0]
    return out


def write_all(graphs, path: Path) -> None:
    path.write_text("".join("\n".join(clauses(g)) + "\n\n" for g in graphs), encoding="utf-8")


@hookimpl
def register_readers(register):
    register(Reader("clf", (".clf",), read, None, "DRS clauses (a PMB-like clause format)"))


@hookimpl
def register_parsers(register):
    register(Parser("drs-rules", "drs", parse, "text to DRS by rules", model_identity=lambda model: "rules-1",
                    default=True, own_tokens=True))  # pseudo-tokens: lemmas and senses, not the words


@hookimpl
def register_writers(register):
    register(Writer("clf", "drs", ".clf", description="DRS clauses, every graph in one file", write_all=write_all))


@hookimpl
def register_schemes(register):
    register(DRS)


@hookimpl
def to_graph(obj):
    return drs_to_graph(obj) if isinstance(obj, Drs) else None
