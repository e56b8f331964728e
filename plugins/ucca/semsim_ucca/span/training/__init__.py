"""Training the span parser and assessing it (``semsim ucca train``, ``semsim ucca evaluate``):
the torch network (``network``), the training loop (``train``), UCCA corpora and their splits
(``data``), learner errors injected into gold trees (``noise``, with ``learner_errors.json``)
and the official UCCA evaluation (``evaluation``).

Built on :mod:`..inference` (the model file, features, trees), which never imports from here.
"""
