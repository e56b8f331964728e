"""Write the plugin API reference as plain Markdown, readable without building the docs site.

    python scripts/api_reference.py            # writes docs/reference/plugin-api.md
    python scripts/api_reference.py --check    # exit 1 if that file is not what the code says

The site's API pages (docs/api/, mkdocstrings) render the same docstrings, but only once
built; a plugin author reading the repository, or its page on a code host, reads this file.
It is generated from the code (the hookspecs, the records a plugin registers, the Scheme),
and tests/test_api_reference.py fails when it is stale, so it cannot drift from them.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "reference" / "plugin-api.md"


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def _hooks() -> list[str]:
    from semsim.kernel import hookspecs
    out = ["## Hooks (`semsim.kernel.hookspecs`)", "", _doc(hookspecs), ""]
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if not hasattr(fn, "semsim_spec"):
            continue
        options = getattr(fn, "semsim_spec", {}) or {}
        first = " (first result wins)" if options.get("firstresult") else ""
        out += [f"### `{name}{inspect.signature(fn)}`{first}", "", _doc(fn), ""]
    return out


def _record(cls: type) -> list[str]:
    out = [f"### `{cls.__module__}.{cls.__qualname__}`", "", _doc(cls), "", "| field | type | default |",
           "|---|---|---|"]
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f"`{f.default!r}`"
        elif f.default_factory is not dataclasses.MISSING:
            default = f"`{f.default_factory.__name__}()`"
        else:
            default = "required"
        kind = str(f.type).replace("|", "\\|")
        out.append(f"| `{f.name}` | `{kind}` | {default} |")
    return [*out, ""]


def _records() -> list[str]:
    from semsim.kernel import records, scheme
    out = ["## Records (`semsim.kernel.records`, `semsim.kernel.scheme`)", "", _doc(records), ""]
    classes = [c for _, c in inspect.getmembers(records, inspect.isclass)
               if dataclasses.is_dataclass(c) and c.__module__ == records.__name__]
    for cls in [*classes, scheme.Scheme]:
        out += _record(cls)
    return out


def _signature(fn: Any) -> str:
    return str(inspect.signature(fn)).replace("|", "\\|")


def _first_paragraph(fn: Any) -> str:
    return _doc(fn).split("\n\n")[0].replace("\n", " ")


def _members(cls: type) -> list[str]:
    """A class's public methods and properties, one line each: its signature and its docstring's
    first paragraph (the class is described by what it offers, not by how it is built)."""
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    out = []
    for name, _ in inspect.getmembers(cls):
        if name.startswith("_") or name in fields:
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property):
            line = f"- `{name}` (property): {_first_paragraph(raw.fget)}"
        elif isinstance(raw, classmethod | staticmethod) or callable(raw):
            fn = raw.__func__ if isinstance(raw, classmethod | staticmethod) else raw
            kind = "classmethod " if isinstance(raw, classmethod) else ""
            line = f"- {kind}`{name}{_signature(fn)}`: {_first_paragraph(fn)}"
        else:
            continue
        out.append(line.rstrip().removesuffix(":"))
    return out


def _class(cls: type) -> list[str]:
    """A class: its docstring, its fields (a dataclass) and its public methods."""
    out = _record(cls) if dataclasses.is_dataclass(cls) else [f"### `{cls.__module__}.{cls.__qualname__}`", "",
                                                                 _doc(cls), ""]
    members = _members(cls)
    return [*out, *(["Methods and properties:", "", *members, ""] if members else [])]


def _function(fn: Any) -> list[str]:
    return [f"### `{fn.__module__}.{fn.__name__}{_signature(fn)}`", "", _doc(fn), ""]


def _helpers() -> list[str]:
    """What a plugin author uses beside the hooks: scores, signatures, model hashing, reading
    graphs, the parsing settings, and the conformance kit's options."""
    from semsim.app import parsing, reading
    from semsim.kernel import models, signature, stats
    out = ["## Scores and signatures (`semsim.kernel.stats`, `semsim.kernel.signature`)", "",
           "What a plugin metric's `score(g1, g2)` returns (`register_metrics`): a `Score` of `Counts`, signed.", ""]
    for cls in (stats.Counts, stats.Score, signature.Signature):
        out += _class(cls)
    out += ["## Helpers", ""]
    out += [*_function(models.hash_files), *_function(reading.read_all)]
    out += ["## Parsing from text (`semsim.app.parsing`, also `semsim.api.ParseSettings`)", "",
            *_class(parsing.ParseSettings)]
    from semsim.app import testing  # the kit extra: pytest and hypothesis
    return [*out, "## The conformance kit (`semsim.app.testing`, the `kit` extra)", "",
            *_function(testing.conformance_tests)]


def render() -> str:
    lines = ["# Plugin API reference (plain Markdown)", "",
             "Generated from the code by `python scripts/api_reference.py`; do not edit by hand "
             "(tests/test_api_reference.py checks it). The guide is [Writing a plugin](../plugins.md); the "
             "site renders the same docstrings in [Plugin API](../api/plugins.md).", "",
             *_hooks(), *_records(), *_helpers()]
    return "\n".join(line.rstrip() for line in lines).rstrip() + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is stale instead of writing it")
    args = ap.parse_args()
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python scripts/api_reference.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
