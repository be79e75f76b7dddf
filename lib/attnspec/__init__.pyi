"""The names of :mod:`attnspec` for type checkers and IDEs (the package loads them lazily,
on first use: ``__init__.py``). tests/test_public_api.py checks this stub against
``_EXPORTS`` and ``_SUBMODULES``."""

from . import (book as book, experiments as experiments, freeprob as freeprob, hermite as hermite,
               laws as laws, plotting as plotting, pretrained as pretrained, sampling as sampling,
               spectra as spectra, sweeps as sweeps)

from ._validation import ParameterError as ParameterError, ParameterTypeError as ParameterTypeError
from .hermite import (
    alpha as alpha, hermite_coefficients as hermite_coefficients, hermite_he as hermite_he,
    noise_variance as noise_variance, total_variance as total_variance,
    truncated_noise_variance as truncated_noise_variance)
from .laws.attention import AttentionLaw as AttentionLaw
from .laws.base import LawAccuracyError as LawAccuracyError
from .laws.classical import (
    MarchenkoPastur as MarchenkoPastur, ScoreProductLaw as ScoreProductLaw,
    Semicircle as Semicircle)
from .laws.multihead import MultiHeadLaw as MultiHeadLaw, UnresolvedLawError as UnresolvedLawError
from .laws.multihead_moments import multihead_moments as multihead_moments
from .laws.variance_profile import TriangularProfileLaw as TriangularProfileLaw
from .sampling.equivalents import (
    linear_equivalent as linear_equivalent, mp_surrogate as mp_surrogate,
    stepwise_chain as stepwise_chain)
from .sampling.inputs import (
    gaussian_tokens as gaussian_tokens, reweighted_linear_model as reweighted_linear_model,
    scores_linear_model as scores_linear_model)
from .sampling.masked import (
    causal_attention as causal_attention, causal_centered as causal_centered,
    causal_linear_equivalent as causal_linear_equivalent)
from .sampling.multihead import multihead_output as multihead_output
from .sampling.softmax import (
    attention_from_weights as attention_from_weights, centered as centered,
    iid_score_attention as iid_score_attention, orthonormal_input as orthonormal_input,
    softmax_attention as softmax_attention)
from .sampling.ties import TIES as TIES
from .spectra import (
    inverse_participation_ratio as inverse_participation_ratio, ks_distance as ks_distance,
    moments_with_se as moments_with_se, squared_singular_values as squared_singular_values,
    wasserstein1 as wasserstein1)
from .sweeps import SweepError as SweepError, sweep as sweep

__version__: str
__all__: list[str]
