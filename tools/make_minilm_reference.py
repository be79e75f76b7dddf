"""Make the reference outputs that tests/test_pretrained_minilm.py checks the numpy forward pass against.

Run ONCE, in a throwaway virtual environment outside the book's pins (PyTorch is never a
dependency of the book)::

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch sentence-transformers   # from PyPI
    make models                                                # the book's weights cache
    /tmp/refenv/bin/python tools/make_minilm_reference.py "$(.venv/bin/attnspec models path)"

It loads the same cached files (the folder ``attnspec models path`` prints: model.safetensors,
tokenizer.json, config.json) with sentence-transformers, runs the underlying transformers
``BertModel`` in eager mode with ``output_attentions=True`` and stores, for each sentence
below, the token ids, every head's attention probabilities (6, 12, ℓ, ℓ) and the last hidden
state (ℓ, 384), in float32, to ``tests/data/minilm_reference/reference.npz`` with the
versions used in ``versions.json``.
"""

import json
import platform
import sys
from pathlib import Path

import numpy as np
import sentence_transformers
import tokenizers
import torch
import transformers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "minilm_reference"

SENTENCES = [
    "Attention is a random matrix.",
    "It was the best of times, it was the worst of times.",
    "The squared singular values of the centred attention matrix follow a law that "
    "depends on the inverse temperature and the ratio of tokens to head width.",
]


def main():
    model = sentence_transformers.SentenceTransformer(
        sys.argv[1], device="cpu", model_kwargs={"attn_implementation": "eager"})
    bert = model[0].auto_model.eval()
    arrays = {}
    for i, text in enumerate(SENTENCES):
        features = model.tokenize([text])
        with torch.no_grad():
            out = bert(input_ids=features["input_ids"],
                       attention_mask=features["attention_mask"],
                       token_type_ids=features["token_type_ids"], output_attentions=True)
        arrays[f"ids_{i}"] = features["input_ids"][0].numpy().astype(np.int32)
        arrays[f"attention_{i}"] = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)
        arrays[f"hidden_{i}"] = out.last_hidden_state[0].numpy().astype(np.float32)
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT / "reference.npz", **arrays)
    versions = {
        "sentences": SENTENCES,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "numpy": np.__version__,
        "attn_implementation": "eager",
        "dtype": "float32",
        "script": "tools/make_minilm_reference.py",
    }
    (OUT / "versions.json").write_text(json.dumps(versions, indent=2) + "\n")
    print(json.dumps(versions, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
