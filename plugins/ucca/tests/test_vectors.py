"""The UCCA plugin's MiniLM models of words: the word vectors of ``--tokens contextual`` and
the paraphrase judge that reads the same loaded model."""

from __future__ import annotations

import numpy as np
import pytest

from semsim_ucca import paraphrase, vectors

# every test here loads MiniLM (seconds, paid by whichever runs first), one imports torch too
pytestmark = pytest.mark.slow


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


def test_the_vectors_need_neither_torch_nor_transformers_and_equal_theirs():
    """--preset meaning runs where the default parser runs (ONNX Runtime): a fresh process
    encodes without importing torch or transformers, and gets transformers' layer to float32
    rounding (the figure the module's docstring quotes)."""
    import subprocess
    import sys
    code = ("import sys; from semsim_ucca import vectors; vectors.MiniLMWords()('He gave John an apple .'.split()); "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stderr
    text = "the good student must know how to understand and work hard to get the iede ."
    words = text.split(" ")
    _, tokenizer, model = vectors.minilm(vectors.LAYER)
    import torch
    batch = tokenizer(words, is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        states = model(**batch, output_hidden_states=True).hidden_states[vectors.LAYER][0].double().numpy()
    expected = np.zeros((len(words), states.shape[1]))
    count = np.zeros(len(words))
    for piece, word in enumerate(batch.word_ids()):
        if word is not None:
            expected[word] += states[piece]
            count[word] += 1
    assert np.abs(vectors.MiniLMWords()(words) - expected / count[:, None]).max() < 1e-4
    assert vectors.MiniLMWords().pieces(["iede", "idea"]) == [len(tokenizer.tokenize("iede")), 1]


def test_identity_names_the_weights_and_the_layer():
    assert vectors.identity() == f"minilm-l6@53aa51172d14,layer{vectors.LAYER}"


def test_the_judge_reads_the_shared_model_as_before():
    # the figure docs/faithfulness.md quotes for know how / be able
    a = paraphrase.load().encode("good student must know how to understand and")
    b = paraphrase.load().encode("good student must be able to understand and")
    assert float(a @ b) == pytest.approx(0.937, abs=0.0005)
