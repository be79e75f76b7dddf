"""attnspec: spectra of random self-attention and their Gaussian equivalents.

The executable companion library of the book reproducing Hayase, Collins & Karakida (2025) and
Hayase & Karakida (2026). The core is at the top level (samplers, laws, spectra, the Hermite
coefficients, ``sweep`` and the exceptions)::

    import attnspec
    A = attnspec.softmax_attention(ell=500, d_qk=500, beta=1.0, rng=0)

the studies of the chapters as ``attnspec.experiments.<topic>`` (``attnspec.experiments.
thresholds.threshold_scales``), the book's tooling as ``attnspec.book`` (``check_parameters``).
Names are loaded lazily (on first use), so ``import attnspec`` is cheap and the command line
starts fast; ``__init__.pyi`` lists them for type checkers and IDEs. The mathematics each function computes is specified in the book's appendix A4
(``chapters/A4_specification.md``); docstrings cite its sections as "A4 §N".
"""

from ._lazy import lazy_attributes as _lazy_attributes

__version__ = "0.1.0"

# public name -> module that defines it (one job per module; the layers: docs/ARCHITECTURE.md)
_EXPORTS = {
    # hermite: Hermite coefficients of the exponential (A4 §2)
    "total_variance": "hermite",
    "noise_variance": "hermite",
    "alpha": "hermite",
    "truncated_noise_variance": "hermite",
    "hermite_coefficients": "hermite",
    "hermite_he": "hermite",
    # sampling.softmax: samplers of softmax attention (A4 §1, §6)
    "softmax_attention": "sampling.softmax",
    "attention_from_weights": "sampling.softmax",
    "orthonormal_input": "sampling.softmax",
    "centered": "sampling.softmax",
    "iid_score_attention": "sampling.softmax",
    # sampling.equivalents: Gaussian-equivalent models (A4 §2, §4)
    "linear_equivalent": "sampling.equivalents",
    "stepwise_chain": "sampling.equivalents",
    "mp_surrogate": "sampling.equivalents",
    # sampling.multihead: multi-head outputs with weight ties (A4 §6)
    "multihead_output": "sampling.multihead",
    "TIES": "sampling.ties",
    # spectra: squared singular values, distances, moments (A4 §1, §5)
    "squared_singular_values": "spectra",
    "moments_with_se": "spectra",
    "ks_distance": "spectra",
    "wasserstein1": "spectra",
    "inverse_participation_ratio": "spectra",
    # laws: limiting spectral laws (A4 §3, §6)
    "AttentionLaw": "laws.attention",
    "MarchenkoPastur": "laws.classical",
    "Semicircle": "laws.classical",
    "ScoreProductLaw": "laws.classical",
    "multihead_moments": "laws.multihead_moments",
    "MultiHeadLaw": "laws.multihead",
    # sampling.masked: causal attention and its masked Gaussian equivalent (chapter 8)
    "causal_attention": "sampling.masked",
    "causal_centered": "sampling.masked",
    "causal_linear_equivalent": "sampling.masked",
    # sampling.inputs: token inputs beyond orthonormal rows (chapter 8)
    "gaussian_tokens": "sampling.inputs",
    "scores_linear_model": "sampling.inputs",
    "reweighted_linear_model": "sampling.inputs",
    # laws.variance_profile: the closed-form causal-profile law (chapter 8)
    "TriangularProfileLaw": "laws.variance_profile",
    # sweeps: seeded parameter sweeps over executors
    "sweep": "sweeps",
    # the exceptions exported here (all five are ValueErrors)
    "ParameterError": "_validation",
    "ParameterTypeError": "_validation",
    "UnresolvedLawError": "laws.multihead",
    "LawAccuracyError": "laws.base",
    "SweepError": "sweeps",
}

# modules and packages reachable as attributes (``attnspec.plotting.book_style()``)
_SUBMODULES = {"hermite", "spectra", "sweeps", "plotting", "sampling", "freeprob", "laws",
               "experiments", "book", "pretrained"}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_attributes(__name__, _EXPORTS, _SUBMODULES)
