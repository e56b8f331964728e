"""The UCCA plugin's MiniLM models of words: the word vectors of ``--tokens contextual`` and
the paraphrase judge that reads the same loaded model."""

from __future__ import annotations

import numpy as np
import pytest

from semsim_ucca import paraphrase, vectors


def test_one_vector_per_word_whatever_was_encoded_before():
    encode = vectors.MiniLMWords()
    first = encode(["The", "dog", "barks", "."])
    assert first.shape == (4, 384)
    encode(["Something", "else", "entirely", "to", "encode", "first"])
    encode.clear()
    assert np.array_equal(encode(["The", "dog", "barks", "."]), first)


def test_a_word_in_context_is_nearer_its_synonym_than_an_unrelated_word():
    a, b, c = (vectors.load()(s.split()) for s in ("we are striving for peace", "we are aiming for peace",
                                                  "we are volcano for peace"))
    cos = [float(x[2] @ y[2] / np.linalg.norm(x[2]) / np.linalg.norm(y[2])) for x, y in ((a, b), (a, c))]
    assert cos[0] > cos[1]


def test_long_sentences_are_encoded_in_windows():
    words = ["word"] * (vectors.WINDOW + 7)
    assert vectors.load()(words).shape == (len(words), 384)


def test_identity_names_the_weights_and_the_layer():
    assert vectors.identity() == f"minilm-l6@53aa51172d14,layer{vectors.LAYER}"


def test_the_judge_reads_the_shared_model_as_before():
    # the figure docs/faithfulness.md quotes for know how / be able
    a = paraphrase.load().encode("good student must know how to understand and")
    b = paraphrase.load().encode("good student must be able to understand and")
    assert float(a @ b) == pytest.approx(0.937, abs=0.0005)
