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


def render() -> str:
    lines = ["# Plugin API reference (plain Markdown)", "",
             "Generated from the code by `python scripts/api_reference.py`; do not edit by hand "
             "(tests/test_api_reference.py checks it). The guide is [Writing a plugin](../plugins.md); the "
             "site renders the same docstrings in [Plugin API](../api/plugins.md).", "",
             *_hooks(), *_records()]
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
