"""The shape of semsim's application glue, measured (prints figures).

    python scripts/code_shape.py [ROOT]

What issue #36 asked to see before and after the application layer was made as regular as
the kernel, each counted with :mod:`ast` over ``semsim/`` (the layers as
``tests/test_architecture.py`` places them):

* lines of code (neither blank nor comment-only) per layer;
* the longest parameter lists (functions of either layer, ``self``/``cls`` not counted);
* format dispatchers: functions that compare something named ``fmt``/``format``/``output_format``
  with a string literal (each is a place that decides how a result is written);
* the places that turn text into graphs: functions outside the route itself that call
  ``parse_sentences`` or open a ``ParseCache`` for parsing.

And what issue #48 asked to see (over ``semsim/`` and the plugins' ``plugins/*/semsim_*``,
found by walking the tree, so they follow modules wherever they move):

* copies of text-to-scores outside the route: functions that call the route from text to
  graphs (``parse_texts``) and score lines themselves (``score_lines``, or a fallback score
  ``Score.fixed``), other than the route from text to scores (a function named ``score_texts``,
  or ``--route NAME``);
* graph constructions per parsed sentence: ``Graph`` objects made while the default parser
  parses a sentence (in one process, no cache), counted by running it (every ``Graph.__init__``
  counted, by caller), as no static count can follow a graph through a parser plugin, its
  conversion hook and a serialisation wherever they move; ``n/a`` if it cannot run;
* string-signature sites: ``"|".join(...)``, ``.split("|")`` (``rsplit``, ``partition``,
  ``rpartition``) and f-strings gluing two values with a bare ``|``
  (``f"{a}|{b}"``, ``f"{a}|parser:{b}"``); a ``" | "`` (a table's column rule) is not one;
* modules shadowing the standard library: a module or package whose own name is in
  ``sys.stdlib_module_names`` (before #48, ``semsim/tokenize.py`` shadowed ``tokenize`` when its
  folder was on ``sys.path``: ``python semsim/cli.py``);
* mypy errors on ``semsim`` and on the plugins (``mypy`` on ``PATH``, or ``--mypy PATH``;
  ``n/a`` without one), with the checkout's own configuration;
* functions longer than 80 lines (``def`` to last line) and parameter lists longer than 8.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

FORMAT_NAMES = {"fmt", "format", "output_format", "out_format"}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(name: str, kernel: set[str]) -> str:
    return "kernel" if name in kernel or name == "semsim.kernel" or name.startswith("semsim.kernel.") \
        else "application"


def kernel_modules(root: Path) -> set[str]:
    """The kernel as the architecture test declares it (its ``KERNEL`` set, read, not imported);
    with the layers as folders (``semsim/kernel/``) the set may be gone: the folder says it."""
    tree = ast.parse((root / "tests" / "test_architecture.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) and node.value is not None else []
        if any(getattr(t, "id", "") == "KERNEL" for t in targets):
            try:
                return set(ast.literal_eval(node.value))  # type: ignore[union-attr]
            except ValueError:
                break  # computed, not listed: the folder says it
    if (root / "semsim" / "kernel").is_dir():
        return set()
    raise SystemExit("tests/test_architecture.py has no KERNEL set and there is no semsim/kernel/")


def package_files(root: Path) -> list[Path]:
    """semsim's and the plugins' Python files, wherever in their packages they are."""
    bases = [root / "semsim", *sorted((root / "plugins").glob("*/semsim_*"))]
    return sorted(p for base in bases for p in base.rglob("*.py"))


def package_module(root: Path, path: Path) -> str:
    """A package file's module name (``semsim_ucca.span.tree`` for plugins/ucca/semsim_ucca/...)."""
    rel = path.relative_to(root)
    return module_name(root / Path(*rel.parts[:2]), path) if rel.parts[0] == "plugins" else module_name(root, path)


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


def _called(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _functions(tree: ast.AST, prefix: str) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function with its qualified name (``module.Class.method``); a nested function is
    part of the function around it and not listed on its own."""
    out = []

    def visit(node: ast.AST, qual: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((f"{qual}.{child.name}", child))
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{qual}.{child.name}")
            elif not isinstance(child, ast.Lambda):
                visit(child, qual)
    visit(tree, prefix)
    return out


def scores_text(fn: ast.AST) -> bool:
    """Text to graphs (``parse_texts``) and graphs to line scores (``score_lines`` or a
    fallback ``Score.fixed``) in one function: the pipeline written out again."""
    calls = {_called(n) for n in ast.walk(fn) if isinstance(n, ast.Call)}
    return "parse_texts" in calls and bool(calls & {"score_lines", "fixed"})


def _is_bar(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "|"


def _glues(node: ast.AST) -> str | None:
    """The literal text next to a bar if ``node`` joins, splits or glues ``|``-separated
    strings (``""`` for a bare bar), else None; a table's ``" | "`` is not such a place."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        f = node.func
        if (f.attr == "join" and _is_bar(f.value)) or (
                f.attr in ("split", "rsplit", "partition", "rpartition") and node.args and _is_bar(node.args[0])):
            return ""
    elif isinstance(node, ast.JoinedStr):
        values = node.values
        for k, v in enumerate(values):
            if isinstance(v, ast.Constant) and isinstance(v.value, str) and "|" in v.value:
                before = k > 0 and isinstance(values[k - 1], ast.FormattedValue)
                after = k + 1 < len(values) and isinstance(values[k + 1], ast.FormattedValue)
                if (before and re.match(r"\|(?! )", v.value)) or (after and re.search(r"(?<! )\|[\w:]*$", v.value)) \
                        or re.search(r"\|[a-z_-]+:", v.value):
                    return v.value
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        for side in (node.left, node.right):
            if isinstance(side, ast.Constant) and isinstance(side.value, str) \
                    and re.fullmatch(r"\|[\w:.@-]*|[\w:.@-]*\|", side.value):
                return side.value
    return None


SIGNATURE_WORDS = re.compile(r"signature|\bsig\b|signed")


def signature_sites(tree: ast.AST) -> list[int]:
    """Line numbers of the places that glue or split signature strings: a place that joins,
    splits or glues ``|``-separated strings (:func:`_glues`) where the statement or the function
    speaks of a signature (``signature``, ``sig``, ``signed``) or the glued text is a signature's
    ``|name:`` field; not inside a hash's input (``sha256(...)``, ``.update(...)``: a key, not a
    signature), nor in a class named ``Signature`` (the one place meant to render one)."""
    sites: set[int] = set()

    def visit(node: ast.AST, function: str, statement: ast.AST | None, in_hash: bool, in_signature: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.ClassDef) and node.name == "Signature":
            in_signature = True
        if isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.Call) and _called(node) in ("sha256", "sha1", "md5", "blake2b", "update"):
            in_hash = True
        glued = _glues(node)
        if glued is not None and not in_hash and not in_signature and statement is not None:
            text = ast.unparse(statement)  # its code, not its comments
            if SIGNATURE_WORDS.search(function) or SIGNATURE_WORDS.search(text) or re.search(r"\|[a-z_-]+:", glued):
                sites.add(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, function, statement, in_hash, in_signature)
    visit(tree, "", None, False, False)
    return sorted(sites)


def shadowing(root: Path, files: list[Path]) -> list[str]:
    """Modules and packages of semsim and the plugins named like a standard-library module."""
    names = set()
    for path in files:
        for part in path.relative_to(root).with_suffix("").parts:
            if part in sys.stdlib_module_names and part != "__init__":
                names.add(path.relative_to(root).as_posix() if path.stem == part else part + "/")
    return sorted(names)


GRAPHS_PER_SENTENCE = """
import collections, sys
import semsim.kernel.graph as graph_module
from semsim.app.parsing import ParseSettings, parse_texts
made = collections.Counter()
init = graph_module.Graph.__init__
def counting(self, *args, **kwargs):
    caller = sys._getframe(1)
    made[f"{caller.f_globals.get('__name__')}.{caller.f_code.co_name}"] += 1
    init(self, *args, **kwargs)
graph_module.Graph.__init__ = counting
how = ParseSettings(cache=False, progress=False)
parse_texts(["The model is loaded first ."], how)
made.clear()
texts = ["He gave John an apple .", "I agree with this opinion .", "She did n't know what to do ."]
parse_texts(texts, how)
each = ", ".join(f"{k} {v / len(texts):g}" for k, v in sorted(made.items()))
print(f"{sum(made.values()) / len(texts):g} ({each})")
"""


def graphs_per_sentence(root: Path) -> str:
    """Graphs made per sentence the default parser parses, counted in a subprocess of the checkout."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *map(str, sorted((root / "plugins").glob("*")))])}
    try:
        r = subprocess.run([sys.executable, "-c", GRAPHS_PER_SENTENCE], cwd=root, env=env, capture_output=True,
                           text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "n/a (timed out)"
    if r.returncode != 0:
        return f"n/a ({(r.stderr.strip().splitlines() or ['failed'])[-1]})"
    return r.stdout.strip()


def mypy_errors(root: Path, mypy: str | None) -> str:
    """``Found N errors`` of mypy on the core and on the plugins' packages, or n/a."""
    exe = mypy or shutil.which("mypy")
    if not exe:
        return "n/a (no mypy on PATH; --mypy PATH)"
    out = []
    targets = {"semsim": ["semsim"],
               "plugins": [p.relative_to(root).as_posix() for p in sorted((root / "plugins").glob("*/semsim_*"))]}
    for what, paths in targets.items():
        r = subprocess.run([exe, *paths], cwd=root, capture_output=True, text=True)
        found = re.search(r"Found (\d+) errors?", r.stdout)
        n = found.group(1) if found else "0" if r.returncode == 0 else f"? (exit {r.returncode})"
        out.append(f"{what} {n}")
    return ", ".join(out)


def issue48(root: Path, route: str, mypy: str | None, run: bool) -> None:
    """The figures issue #48 asked for (see the module)."""
    files = package_files(root)
    copies: list[str] = []
    signatures: list[str] = []
    long_functions: list[tuple[int, str]] = []
    many_params: list[tuple[int, str]] = []
    for path in files:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        name = package_module(root, path)
        rel = path.relative_to(root).as_posix()
        signatures += [f"{rel}:{line}" for line in signature_sites(tree)]
        for where, fn in _functions(tree, name):
            if scores_text(fn) and fn.name != route:
                copies.append(where)
            length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            if length > 80:
                long_functions.append((length, where))
            if n_params(fn) > 8:
                many_params.append((n_params(fn), where))
    shadows = shadowing(root, files)
    print(f"copies of text-to-scores outside the route ({route}): {len(copies)}: " + ", ".join(copies))
    print("graph constructions per parsed sentence: " + (graphs_per_sentence(root) if run else "n/a (--no-run)"))
    print(f"string-signature sites: {len(signatures)}: " + ", ".join(signatures))
    print(f"modules shadowing the standard library: {len(shadows)}: " + ", ".join(shadows))
    print("mypy errors: " + mypy_errors(root, mypy))
    long_functions.sort(reverse=True)
    many_params.sort(reverse=True)
    print(f"functions > 80 lines: {len(long_functions)}: " + ", ".join(f"{w} ({n})" for n, w in long_functions))
    print(f"parameter lists > 8: {len(many_params)}: " + ", ".join(f"{w} ({n})" for n, w in many_params))


def issue36(root: Path) -> None:
    """The figures issue #36 asked for (see the module)."""
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
                                                 "semsim.app.commands.cache", "scripts.code_shape"):
                routes.append(where)
    print(f"lines of code: kernel {lines['kernel']}, application {lines['application']}")
    params.sort(reverse=True)
    print("longest parameter lists: " + ", ".join(f"{w} ({n})" for n, w in params[:8]))
    print(f"format dispatchers: {len(dispatchers)}: " + ", ".join(dispatchers))
    print(f"text-to-graphs code outside the route: {len(routes)}: " + ", ".join(routes))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--route", default="score_texts", help="the name of the route from text to scores")
    ap.add_argument("--mypy", help="the mypy to run (default: mypy on PATH)")
    ap.add_argument("--no-run", action="store_true", help="static figures only: do not parse to count graphs")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    issue36(root)
    issue48(root, args.route, args.mypy, not args.no_run)


if __name__ == "__main__":
    main()
