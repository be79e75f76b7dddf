"""attnspec: spectra of random self-attention and their Gaussian equivalents.

The executable companion library of the book reproducing Hayase, Collins & Karakida (2025) and
Hayase & Karakida (2026). Import everything from the top level::

    import attnspec
    A = attnspec.softmax_attention(ell=500, d_qk=500, beta=1.0, rng=0)

Names are loaded lazily (on first use), so ``import attnspec`` is cheap and the command line
starts fast. The mathematics each function computes is specified in the book's appendix A4
(``chapters/A4_specification.md``); docstrings cite its sections as "A4 §N".
"""

from importlib import import_module as _import_module

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
    "STEPWISE_KEYS": "sampling.equivalents",
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
    # experiments: operator norms (A4 §1, §3), row sums (§5), the prior model (§2)
    "stationary_edge": "experiments.operator_norm",
    "edge_approximations": "experiments.operator_norm",
    "linear_model_norms": "experiments.operator_norm",
    "attention_norms": "experiments.operator_norm",
    "measure_row_sum_fluctuation": "experiments.row_sums",
    "prior_model_spectra": "experiments.prior_model",
    "prior_model_distances": "experiments.prior_model",
    # experiments.thresholds: scales of the threshold for linearisation (A4 §5)
    "threshold_scales": "experiments.thresholds",
    "row_sum_fluctuation": "experiments.row_sums",
    # sampling.masked: causal attention and its masked Gaussian equivalent (chapter 8)
    "causal_attention": "sampling.masked",
    "causal_centered": "sampling.masked",
    "causal_linear_equivalent": "sampling.masked",
    # sampling.inputs: token inputs beyond orthonormal rows (chapter 8)
    "gaussian_tokens": "sampling.inputs",
    "scores_linear_model": "sampling.inputs",
    "reweighted_linear_model": "sampling.inputs",
    # freeprob.variance_profile: the vector Dyson equation of a variance profile (chapter 8)
    "variance_profile_density": "freeprob.variance_profile",
    "triangular_profile": "freeprob.variance_profile",
    # laws.variance_profile: the closed-form causal-profile law (chapter 8)
    "TriangularProfileLaw": "laws.variance_profile",
    # experiments.realistic: the theorem's assumptions relaxed one at a time (chapter 8)
    "relaxation_study": "experiments.realistic",
    "relaxation_spectra": "experiments.realistic",
    "RELAXATIONS": "experiments.realistic",
    "ks_distance_resolved": "experiments.realistic",
    # sweeps: seeded parameter sweeps over executors
    "sweep": "sweeps",
    # pretrained: all-MiniLM-L6-v2 read with numpy (chapter 9)
    "minilm_attention": "pretrained.minilm",
    "minilm_forward": "pretrained.minilm",
    "minilm_head_attention": "pretrained.minilm",
    "minilm_passages": "pretrained.passages",
    # book.chapters: chapter parameters for papermill reruns
    "check_parameters": "book.chapters",
    # the library's exceptions (all are ValueErrors)
    "ParameterError": "_validation",
    "ParameterTypeError": "_validation",
    "UnresolvedLawError": "laws.multihead",
    "LawAccuracyError": "laws.base",
    "SweepError": "sweeps",
    "WeightsError": "pretrained.cache",
}

# modules and packages reachable as attributes (``attnspec.plotting.book_style()``)
_SUBMODULES = {"hermite", "spectra", "sweeps", "plotting", "sampling", "freeprob", "laws",
               "experiments", "book", "pretrained"}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _SUBMODULES:
        value = _import_module(f"attnspec.{name}")
        globals()[name] = value
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'attnspec' has no attribute {name!r}")
    value = getattr(_import_module(f"attnspec.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
