"""Limiting spectral laws as scipy-like objects (A4 §3, §6).

``base`` (the law classes :class:`~attnspec.laws.base.SpectralLaw` and ``LawSummaries``),
``chebyshev_pieces`` and ``chebyshev_stack`` (the Chebyshev CDF/PPF engine, building and
evaluating), ``classical`` (Marchenko–Pastur, the score product, the semicircle),
``attention`` (ν_∞(β, c)), ``multihead`` (the law of the multi-head output), with
``multihead_moments`` (its moments) and ``multihead_starts`` (its solver's starting points),
``variance_profile`` (the causal-profile law). Public names are re-exported by
:mod:`attnspec`.
"""
