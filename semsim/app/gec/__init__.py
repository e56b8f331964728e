"""GEC evaluation with USim: the seed papers' studies and the bridges to GEC metric suites.

``conservatism`` (Choshen & Abend 2018a: how much outputs change their sources), ``m2`` and
``sensitivity`` (M2 gold edits applied one by one, USim's change per error type, §4.4), and
``cli`` (gec-metrics' command with USim registered). USim as a gec-metrics metric is
:mod:`semsim.app.metric` and the meta-evaluation against people :mod:`semsim.app.metaeval`
(both serve simplification and MT as well as GEC). Comparing systems' outputs is
:mod:`semsim.app.systems`; the faithfulness benchmark's data generator is in ``benchmarks/``.
"""
