"""``semsim-gecmetrics-eval``: gec-metrics' own command line, with USim in its registry.

gec-metrics' ``gecmetrics-eval --metric NAME`` takes its choices from a fixed registry and
has no plugin entry points, so a third-party metric cannot appear there by being installed.
This command registers :class:`~semsim.app.metric.USimMetric` as ``usim`` and then runs
gec-metrics' unchanged ``main``: same arguments, same YAML config, same output::

    semsim-gecmetrics-eval --src conll14.src --hyps AMU.txt CAMB.txt --metric usim --config usim.yaml

(``python -m semsim.app.gec.cli`` is the same). A wrapper rather than a patch: semsim never
changes another package's state on import.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...kernel.errors import InputError, SemsimError
from ..metric import register


def _lines(path: str) -> list[str]:
    """A file's lines as gec-metrics reads them (``read().rstrip().split("\\n")``), through
    semsim's reader: a missing, binary or non-UTF-8 file is one error naming it (and the line)."""
    from ...kernel.files import read_text
    text = read_text(path).rstrip()
    if not text:
        # gec-metrics would read one empty line and USim score it 1.0 against an empty source
        raise InputError("no sentences", path)
    return text.split("\n")


def _check_inputs(argv: list[str]) -> None:
    """What gec-metrics' ``main`` would meet as a traceback, or score silently, refused first in
    one line: unreadable files, a hypothesis file whose lines do not match the source's, and a
    config key USim's Config does not have."""
    ap = argparse.ArgumentParser(add_help=False)
    for option in ("--src", "--metric", "--config"):
        ap.add_argument(option)
    ap.add_argument("--hyps", nargs="+", default=[])
    ap.add_argument("--refs", nargs="+", default=[])
    args, _ = ap.parse_known_args(argv)
    if args.src is None or not args.hyps or args.metric != "usim":
        return  # gec-metrics' own usage message, or another metric's business
    sources = _lines(args.src)
    for hyp in args.hyps:
        n = len(_lines(hyp))
        if n != len(sources):
            raise InputError(f"{n} lines but the source {args.src} has {len(sources)}; files must be line-parallel",
                             hyp, min(n, len(sources)) + 1)
    if args.config is not None:
        _check_config(args.config, args.metric)


def _check_config(path: str, metric: str) -> None:
    import dataclasses

    import yaml

    from ...kernel.files import read_text
    from ..metric import USimMetric
    class Loader(yaml.SafeLoader):
        """``safe_load`` without aliases: a config of flat settings never needs one, and nine
        levels of ``*alias`` (a "billion laughs" file) expand past any memory in whatever
        walks the result (gec-metrics' main ran out of memory after a minute)."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise yaml.composer.ComposerError(None, None, "an alias (*name): a config takes none",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)

    try:
        config: Any = yaml.load(read_text(path), Loader=Loader)  # a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', None) or exc}", path,
                         mark.line + 1 if mark else None) from None
    except RecursionError:
        raise InputError("not a config: nested too deep", path) from None
    if not isinstance(config, dict) or not isinstance(config.get(metric), dict):
        raise InputError(f"no mapping under {metric!r} (gecmetrics-eval reads the config of --metric {metric})", path)
    known = {f.name for f in dataclasses.fields(USimMetric.Config)}
    unknown = sorted(set(config[metric]) - known)
    if unknown:
        raise InputError(f"unknown {metric} setting {', '.join(map(str, unknown))}: choose from "
                         f"{', '.join(sorted(known))}", path)


def gecmetrics_eval() -> None:
    """Register ``usim`` with gec-metrics, then run its ``gecmetrics-eval`` on ``sys.argv``,
    with its inputs checked first and semsim's errors as one line and exit status 1."""
    register()
    from gec_metrics.cli.evaluate import main
    try:
        _check_inputs(sys.argv[1:])
        main()
    except SemsimError as exc:
        print(f"semsim-gecmetrics-eval: error: {exc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    gecmetrics_eval()
