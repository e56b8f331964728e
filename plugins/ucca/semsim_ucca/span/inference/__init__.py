"""The span parser at parse time, torch-free: the model file (``parser``), the network's
forward pass in numpy and on ONNX Runtime (``runtime``, ``onnx_graph``), BERT's forward pass
(``bert``), the encoder's identity (``encoder``), token features from spaCy (``features``),
CKY decoding and the network's sizes (``model``) and span trees to UCCA graphs (``tree``).

Nothing here imports torch or transformers on the default model's path (a test holds it);
:mod:`..training` builds on these modules, never the reverse.
"""
