"""GEC evaluation with USim: the seed papers' studies and the bridges to GEC metric suites.

``conservatism`` (Choshen & Abend 2018a: how much outputs change their sources), ``m2`` and
``sensitivity`` (M2 gold edits applied one by one, USim's change per error type, §4.4),
``metaeval`` (correlation with people's meaning judgments; its tables in ``metaeval_tables``,
its anchor measures in ``metaeval_anchors``), and ``metric`` / ``cli`` (USim as a gec-metrics
metric, and gec-metrics' command with it registered). Comparing systems' outputs is
:mod:`semsim.app.systems`; the faithfulness benchmark's data generator is in ``benchmarks/``.
"""
