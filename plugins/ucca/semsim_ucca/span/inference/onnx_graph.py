"""ONNX Runtime sessions of graphs built in memory, for the parts of a parse that need speed.

Why ONNX Runtime: its matrix products (MLAS) and its fused LSTM are as fast as torch's on this
project's CPUs, where numpy's BLAS is 20-50% slower, and it imports in 0.1 s where torch
takes 2 s and 190 MB (``docs/parser.md``, *A parse without torch*). Why build the graphs
here: nothing is exported from torch or written to disk; a graph is a few dozen operations
on the weights a model file or the encoder's package already holds, so the model file stays
the one artifact (and hash) there is. Sessions run on the threads :mod:`semsim.kernel.threads`
allows (one, by default: parallelism comes from processes).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np


class Graph:
    """An ONNX graph under construction: weights, constants and operations, each named by
    the value it produces, so a network reads as a chain of calls (:mod:`.bert`)."""

    def __init__(self) -> None:
        from onnx import helper
        self._helper = helper
        self.nodes: list[Any] = []
        self.weights: dict[str, np.ndarray] = {}
        self.constants: list[Any] = []

    def weight(self, name: str, value: np.ndarray, dtype: Any = np.float32) -> str:
        """A weight, handed to the session as an array (never serialised into the graph:
        that copy, and parsing it back, cost MiniLM 0.5 s of every start)."""
        self.weights[name] = np.ascontiguousarray(value, dtype=dtype)
        return name

    def const(self, value: Any, dtype: Any = np.float32) -> str:
        name = f"c{len(self.constants)}"
        h = self._helper
        self.constants.append(h.make_tensor(name, h.np_dtype_to_tensor_dtype(np.dtype(dtype)), np.shape(value),
                                            np.asarray(value, dtype=dtype).ravel().tolist()))
        return name

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        out = f"n{len(self.nodes)}"
        self.nodes.append(self._helper.make_node(kind, list(inputs), [out], **attributes))
        return out

    def session(self, inputs: list[tuple[str, Any, list[Any]]], outputs: list[tuple[str, list[Any]]]) -> Any:
        """An ONNX Runtime session of the graph from ``inputs`` (name, numpy dtype, shape) to
        float32 ``outputs`` (name, shape). The session copies the weights."""
        from onnx import TensorProto

        from semsim.kernel.threads import threads
        ort = onnxruntime()
        h = self._helper
        external = []
        for name, a in self.weights.items():
            t = TensorProto(name=name, dims=a.shape, data_type=h.np_dtype_to_tensor_dtype(a.dtype),
                            data_location=TensorProto.EXTERNAL)
            t.external_data.add(key="location", value="memory")
            external.append(t)
        graph = h.make_graph(
            self.nodes, "semsim", [h.make_tensor_value_info(n, h.np_dtype_to_tensor_dtype(np.dtype(d)), s)
                                   for n, d, s in inputs],
            [h.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs], [*self.constants, *external])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=8)
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads(), 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # no arena: its chunks, sized by the longest batch, are kept for the process's life
        # (a CoNLL-2014 parse peaked at 1.1 GB with it, against 0.8 GB for torch)
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        options.add_external_initializers(list(self.weights), [ort.OrtValue.ortvalue_from_numpy(a)
                                                                for a in self.weights.values()])
        return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def onnxruntime() -> Any:
    """The ``onnxruntime`` module, imported with its telemetry off: as it loads, ONNX Runtime
    (1.2x, Linux) otherwise writes a device id and an event database under
    ``~/.cache/Microsoft/DeveloperTools`` and ``$TMPDIR/.ses``. ``ORT_DISABLE_TELEMETRY`` is
    read at that moment only, so it is set for the import and given back (the caller's
    environment is theirs); a program that imported onnxruntime first keeps its own choice."""
    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    from semsim.kernel.threads import environment_kept
    with environment_kept():
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import onnxruntime
    return onnxruntime
