"""The span parser's decoder: CKY over the network's per-span label scores, the exact search
for the best tree (:func:`cky`; the signatures name it, ``decoder:`` :data:`semsim_ucca.span.DECODER`).
"""

from __future__ import annotations

import numpy as np

from .model import all_spans, span_index


def cky(label_logp: np.ndarray, n: int, root_mask: np.ndarray) -> dict[tuple[int, int], int]:
    """The best bracketing of an n-token sentence under per-span label log-probabilities.

    ``label_logp`` holds one row per span in :func:`all_spans` order; column 0 is "no unit".
    Returns {span: label index} for the labelled spans; the whole sentence always gets the
    best label allowed by ``root_mask`` (the ``ROOT`` labels), every other span a label
    outside it or none.
    """
    starts, ends = all_spans(n)
    inner = np.where(root_mask, -np.inf, label_logp)
    inner[:, 0] = -np.inf
    best_label = inner.argmax(axis=1)
    best_label_score = inner[np.arange(len(best_label)), best_label]
    keep = best_label_score > label_logp[:, 0]
    # A tree's log-probability is that of every span of the sentence: log p(label) for its
    # units, log p(none) for all others. Up to the sum of every span's log p(none), which is
    # the same for all trees, that is the sum over its units of log p(label) - log p(none);
    # a span of the binarisation that is no unit adds 0. (Scoring such a span log p(none)
    # instead rewards trees with more "none" spans: flat ones, every unit under the root.)
    span_score = np.where(keep, best_label_score - label_logp[:, 0], 0.0)
    score = np.full((n + 1, n + 1), -np.inf)
    score[starts, ends] = span_score
    chart = np.full((n + 1, n + 1), -np.inf)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    idx = np.arange(n)
    chart[idx, idx + 1] = score[idx, idx + 1]
    for length in range(2, n + 1):
        i = np.arange(n - length + 1)
        j = i + length
        # candidates k = i+1 .. j-1, one row per start
        ks = i[:, None] + np.arange(1, length)[None, :]
        totals = chart[i[:, None], ks] + chart[ks, j[:, None]]
        arg = totals.argmax(axis=1)
        split[i, j] = ks[np.arange(len(i)), arg]
        chart[i, j] = score[i, j] + totals[np.arange(len(i)), arg]
    root_row = label_logp[span_index(0, n, n)]
    root_label = int(np.where(root_mask, root_row, -np.inf).argmax())
    out = {(0, n): root_label}
    stack = [(0, n)]
    while stack:
        s, e = stack.pop()
        if (s, e) != (0, n):
            k = span_index(s, e, n)
            if keep[k]:
                out[(s, e)] = int(best_label[k])
        if e - s > 1:
            m = int(split[s, e])
            stack.extend([(s, m), (m, e)])
    return out
