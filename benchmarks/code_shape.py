"""The shape of semsim's application glue, measured (prints figures).

    python benchmarks/code_shape.py [ROOT]

What issue #36 asked to see before and after the application layer was made as regular as
the kernel, each counted with :mod:`ast` over ``semsim/`` (the layers as
``tests/test_architecture.py`` places them):

* lines of code (neither blank nor comment-only) per layer;
* the longest parameter lists (functions of either layer, ``self``/``cls`` not counted);
* format dispatchers: functions that compare something named ``fmt``/``format``/``output_format``
  with a string literal (each is a place that decides how a result is written);
* the places that turn text into graphs: functions outside the route itself that call
  ``parse_sentences`` or open a ``ParseCache`` for parsing.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FORMAT_NAMES = {"fmt", "format", "output_format", "out_format"}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(name: str, kernel: set[str]) -> str:
    return "kernel" if name in kernel else "application"


def kernel_modules(root: Path) -> set[str]:
    """The kernel as the architecture test declares it (its ``KERNEL`` set, read, not imported)."""
    tree = ast.parse((root / "tests" / "test_architecture.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KERNEL" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise SystemExit("tests/test_architecture.py has no KERNEL set")


def code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def n_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    return len([n for n in names if n not in ("self", "cls")]) + bool(a.vararg) + bool(a.kwarg)


def is_format_dispatch(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in FORMAT_NAMES
                and any(isinstance(c, (ast.Constant, ast.Tuple, ast.Set)) for c in node.comparators)):
            return True
    return False


def parses_text(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("parse_sentences", "ParseCache"):
                return True
    return False


def main(root: Path) -> None:
    kernel = kernel_modules(root)
    lines = {"kernel": 0, "application": 0}
    params: list[tuple[int, str]] = []
    dispatchers: list[str] = []
    routes: list[str] = []
    files = sorted((root / "semsim").rglob("*.py"))
    extra = [p for d in ("scripts", "benchmarks") for p in sorted((root / d).glob("*.py"))]
    for path in [*files, *extra]:
        text = path.read_text(encoding="utf-8")
        in_semsim = path.is_relative_to(root / "semsim")
        name = module_name(root, path)
        if in_semsim:
            lines[layer(name, kernel)] += code_lines(text)
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            where = f"{name}.{fn.name}"
            if in_semsim:
                params.append((n_params(fn), where))
                if is_format_dispatch(fn):
                    dispatchers.append(where)
            if parses_text(fn) and name not in ("semsim.pipeline", "semsim.app.parsing", "semsim.app.cache",
                                                 "semsim.app.commands.cache", "benchmarks.code_shape"):
                routes.append(where)
    print(f"lines of code: kernel {lines['kernel']}, application {lines['application']}")
    params.sort(reverse=True)
    print("longest parameter lists: " + ", ".join(f"{w} ({n})" for n, w in params[:8]))
    print(f"format dispatchers: {len(dispatchers)}: " + ", ".join(dispatchers))
    print(f"text-to-graphs code outside the route: {len(routes)}: " + ", ".join(routes))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
