"""attnspec: spectra of random self-attention and their Gaussian equivalents.

The executable companion library of the book reproducing Hayase, Collins & Karakida (2025) and
Hayase & Karakida (2026). Import everything from the top level::

    import attnspec
    A = attnspec.softmax_attention(ell=500, d_qk=500, beta=1.0, rng=0)

Names are loaded lazily (on first use), so ``import attnspec`` is cheap and the command line
starts fast. The mathematics each function computes is specified in the book and in MATH.md.
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"

# public name -> module that defines it (one job per module)
_EXPORTS = {
    # hermite: Hermite coefficients of the exponential (MATH.md §2)
    "noise_variance": "hermite",
    "alpha": "hermite",
    "truncated_noise_variance": "hermite",
    "hermite_coefficients": "hermite",
    "hermite_he": "hermite",
    # models: samplers of softmax attention (MATH.md §1, §6)
    "softmax_attention": "models",
    "attention_from_weights": "models",
    "orthonormal_input": "models",
    "centered": "models",
    "iid_score_attention": "models",
    # equivalents: Gaussian-equivalent models (MATH.md §2, §4)
    "linear_equivalent": "equivalents",
    "stepwise_chain": "equivalents",
    "STEPWISE_KEYS": "equivalents",
    "mp_surrogate": "equivalents",
    # multihead: multi-head outputs with weight ties (MATH.md §6)
    "multihead_output": "multihead",
    "TIES": "multihead",
    # spectra: squared singular values, distances, moments (MATH.md §1, §5)
    "squared_singular_values": "spectra",
    "moments_with_se": "spectra",
    "ks_distance": "spectra",
    "wasserstein1": "spectra",
    "inverse_participation_ratio": "spectra",
    # laws: limiting spectral laws (MATH.md §3)
    "AttentionLaw": "laws",
    "MarchenkoPastur": "laws",
    "Semicircle": "laws",
    "ScoreProductLaw": "laws",
    # multihead_laws: limiting laws of the multi-head output (MATH.md §6)
    "multihead_moments": "multihead_laws",
    "MultiHeadLaw": "multihead_laws",
    # sampling.masked: causal attention and its masked Gaussian equivalent (chapter 9)
    "causal_attention": "sampling.masked",
    "causal_centered": "sampling.masked",
    "causal_linear_equivalent": "sampling.masked",
    # sampling.inputs: token inputs beyond orthonormal rows (chapter 9)
    "gaussian_tokens": "sampling.inputs",
    "scores_linear_model": "sampling.inputs",
    # freeprob.variance_profile: vector Dyson equation, causal-profile law (chapter 9)
    "variance_profile_density": "freeprob.variance_profile",
    "triangular_profile": "freeprob.variance_profile",
    "TriangularProfileLaw": "freeprob.variance_profile",
    # experiments.realistic: the theorem's assumptions relaxed one at a time (chapter 9)
    "relaxation_study": "experiments.realistic",
    "relaxation_spectra": "experiments.realistic",
    "RELAXATIONS": "experiments.realistic",
    # sweeps: seeded parameter sweeps over executors
    "sweep": "sweeps",
    # parameters: chapter parameters for papermill reruns
    "check_parameters": "parameters",
}

# modules reachable as attributes (``attnspec.plotting.book_style()``): those above, and these
_SUBMODULES = set(_EXPORTS.values()) | {"plotting", "chapter_parameters", "rerun", "cli",
                                        "background", "outliers", "multihead_experiments"}

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
