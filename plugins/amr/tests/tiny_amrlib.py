"""A tiny amrlib parse model built in a second, in amrlib's own directory format.

amrlib's released models are 0.5-1.5 GB and live on GitHub, which is out of reach here;
this builds a randomly initialised one-layer T5 (d_model 16) with ByT5's byte tokenizer
(which needs no vocabulary file) and writes exactly what ``amrlib.load_stog_model`` reads:
``amrlib_meta.json``, ``config.json`` with ``task_specific_params.parse_amr``, the weights,
``generation_config.json`` and the tokenizer's files.

Random weights generate garbage, which amrlib's deserializer turns into ``()``. With
``forced``, the saved generation config carries a ``sequence_bias`` that adds +1000 to each
next token of ``forced`` given the tokens before it, so transformers' real beam search emits
exactly that serialized graph for every sentence: the real load/tokenize/generate/decode/
deserialize path, with an output known in advance. Nothing about parse quality follows.
"""

from __future__ import annotations

import json
from pathlib import Path

#: What the released models' configs name as their tokenizer is a hub id; this one does not exist.
HUB_TOKENIZER = "semsim-tests/tiny-byt5-not-on-any-hub"
#: amrlib's serialization (concepts for variables, as its PenmanSerializer writes) of
#: (w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b)).
WANT_GO = "( want-01 :ARG0 ( boy ) :ARG1 ( go-02 :ARG0 boy ) )"


def build_tiny_model(directory: Path, forced: str | None = None, seed: int = 0, tokenizer: bool = True) -> Path:
    """Write a tiny amrlib parse_xfm model into ``directory`` (see the module docstring)."""
    import torch
    from transformers import ByT5Tokenizer, T5Config, T5ForConditionalGeneration
    tok = ByT5Tokenizer()
    forced_ids = tok(forced)["input_ids"] if forced else []  # ends with </s>
    config = T5Config(vocab_size=len(tok), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_decoder_layers=1,
                      num_heads=2, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                      decoder_start_token_id=tok.pad_token_id,
                      task_specific_params={"parse_amr": {"model_name_or_path": HUB_TOKENIZER, "max_in_len": 128,
                                                          "max_out_len": max(32, len(forced_ids) + 4)}})
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config)
    if forced_ids:
        start = [config.decoder_start_token_id]
        model.generation_config.sequence_bias = [[start + forced_ids[:k + 1], 1000.0]
                                                 for k in range(len(forced_ids))]
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    if tokenizer:
        tok.save_pretrained(directory)
    weights = next(f.name for f in directory.iterdir() if f.suffix in (".safetensors", ".bin"))
    (directory / "amrlib_meta.json").write_text(json.dumps({
        "model_type": "stog", "version": "0.1.0", "date_created": "tiny test model",
        "inference_module": ".parse_xfm.inference", "inference_class": "Inference",
        "model_fn": weights, "kwargs": {}}, indent=2), encoding="utf-8")
    return directory
