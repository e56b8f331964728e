"""A Griffe extension for the API reference (docs only, not part of semsim).

semsim's docstrings are written for people reading the source, in Google style with a
few reStructuredText habits: roles such as ``:class:`~semsim.kernel.graph.Graph``` and a
paragraph ending in ``::`` before an indented example. Markdown shows those literally, so
this extension rewrites them, in the rendered copy only:

* ``:role:`target``` becomes a link to ``target`` when that object is documented in the
  reference, plain code otherwise (an *optional* autoref, which never warns); a leading
  ``~`` shows only the last component, as in Sphinx; other names are looked up where the
  docstring is (its class, its module, the module's imports);
* a line ending in ``::`` ends in ``:`` (the indented block after it is already code).

Loaded from mkdocs.yml (``extensions:`` of the mkdocstrings Python handler).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|obj|exc|const):`(~?)([\w.]+)(?:\(\))?`(?:\\ )?")
_LITERAL = re.compile(r"(?<=\S)::[ \t]*$", re.M)


def _resolve(obj: griffe.Object, target: str) -> str:
    """The full path of ``target`` as named in ``obj``'s docstring (in its scope, imports included)."""
    head, _, rest = target.partition(".")
    if head == obj.package.name:
        return target
    try:
        path = obj.resolve(head)
    except griffe.NameResolutionError:
        path = f"{obj.module.path}.{head}"
    return f"{path}.{rest}" if rest else path


def _rewrite(text: str, obj: griffe.Object) -> str:
    def role(m: re.Match[str]) -> str:
        short, target = m.group(1), m.group(2)
        identifier = _resolve(obj, target)
        title = target.rsplit(".", 1)[-1] if short else target
        return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

    return _LITERAL.sub(":", _ROLE.sub(role, text))


def _walk(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = _rewrite(obj.docstring.value, obj)
    for member in obj.members.values():
        if not member.is_alias:
            _walk(member)


class RstRoles(griffe.Extension):
    """Rewrite every docstring of a package once it is loaded (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # Griffe 2
        _walk(pkg)

    def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # Griffe 1
        _walk(pkg)
