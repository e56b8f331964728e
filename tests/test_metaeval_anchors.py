"""The embedding anchors without torch (issue #58): semsim's numpy MiniLM gives the numbers of
the libraries a reader trusts, ``bert-score`` (P, R and F1) and ``sentence-transformers``, on
the same pinned all-MiniLM-L6-v2, and importing or running them loads no torch."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from semsim.app.metaeval.anchors import BERTScore, MiniLMCosine, greedy_match

#: float32 rounding of six layers, summed over the pieces: measured 1.2e-7 at most
TOLERANCE = 1e-5

PAIRS = [("The cat sat on the mat.", "The cat sat on the mat."),
         ("The cat sat on the mat.", "The cat sat on a mat."),
         ("Islam's rise was fast .", "Islam 's rise was fast ."),
         ("  Café naïve résumé  ", "cafe naive resume"),
         ("He go to school every days .", "He goes to school every day ."),
         ("The cat sat on the mat.", "Interest rates rose sharply in March. " * 60)]  # past 256 and 512 pieces


def _weights() -> str:
    from semsim.kernel.models import pinned_path
    return str(pinned_path("all-MiniLM-L6-v2", "encoder"))


@pytest.mark.slow
@pytest.mark.needs_anchor_libraries
def test_bertscore_is_the_bert_score_librarys():
    import bert_score
    scorer = bert_score.BERTScorer(model_type=_weights(), num_layers=6, lang="en", device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f = scorer.score([o for _, o in PAIRS], [s for s, _ in PAIRS])
    theirs = np.stack([p.numpy(), r.numpy(), f.numpy()], axis=1)
    ours = np.array(BERTScore().scores(PAIRS))
    assert np.abs(ours - theirs).max() < TOLERANCE
    assert BERTScore()(PAIRS) == [row[2] for row in ours.tolist()]


@pytest.mark.slow
@pytest.mark.needs_anchor_libraries
def test_minilm_cosine_is_sentence_transformers():
    import sentence_transformers as st
    model = st.SentenceTransformer(_weights(), device="cpu")
    v = model.encode([t for pair in PAIRS for t in pair], normalize_embeddings=True, convert_to_numpy=True)
    theirs = [float(v[2 * k] @ v[2 * k + 1]) for k in range(len(PAIRS))]
    assert np.abs(np.array(MiniLMCosine()(PAIRS)) - theirs).max() < TOLERANCE


def test_greedy_match_on_known_vectors():
    """Precision over the output's pieces, recall over the source's, [CLS]/[SEP] (ids 0, 9)
    weighing nothing but matchable; an empty side 0, as bert-score sets it."""
    e = np.eye(3)
    source = ([0, 1, 2, 9], np.array([e[0], e[1], e[2], e[0]]))
    output = ([0, 1, 9], np.array([e[0], e[1], e[0]]))
    p, r, f = greedy_match(source, output, {0, 9})
    assert (p, r) == (1.0, 0.5) and f == pytest.approx(2 / 3)
    assert greedy_match(source, ([0, 9], np.array([e[0], e[0]])), {0, 9}) == (0.0, 0.0, 0.0)


@pytest.mark.slow
def test_the_anchors_run_without_torch():
    """What the old anchors needed (sentence-transformers, bert-score) imports torch."""
    _weights()
    code = ("import sys; from semsim.app.metaeval import anchor\n"
            "pairs = [('He go home .', 'He goes home .'), ('', 'x')]\n"
            "print(anchor('bertscore')(pairs)[1], round(anchor('minilm-cosine')(pairs)[0], 2))\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'transformers', 'sentence_transformers', 'bert_score'))\n"
            "assert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    empty, near = out.stdout.split()
    assert float(empty) == 0.0 and 0.5 < float(near) < 1.0
