"""``semsim-gecmetrics-eval``: gec-metrics' own command line, with USim in its registry.

gec-metrics' ``gecmetrics-eval --metric NAME`` takes its choices from a fixed registry and
has no plugin entry points, so a third-party metric cannot appear there by being installed.
This command registers :class:`~semsim.gec.metric.USimMetric` as ``usim`` and then runs
gec-metrics' unchanged ``main``: same arguments, same YAML config, same output::

    semsim-gecmetrics-eval --src conll14.src --hyps AMU.txt CAMB.txt --metric usim --config usim.yaml

(``python -m semsim.gec.cli`` is the same). A wrapper rather than a patch: semsim never
changes another package's state on import.
"""

from __future__ import annotations

from .metric import register


def gecmetrics_eval() -> None:
    """Register ``usim`` with gec-metrics, then run its ``gecmetrics-eval`` on ``sys.argv``."""
    register()
    from gec_metrics.cli.evaluate import main
    main()


if __name__ == "__main__":
    gecmetrics_eval()
