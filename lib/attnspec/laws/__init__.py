"""Limiting spectral laws as scipy-like objects (A4 §3, §6).

``base`` (:class:`~attnspec.laws.base.SpectralLaw`, the shared machinery), ``classical``
(Marchenko–Pastur, the score product, the semicircle), ``attention`` (ν_∞(β, c)), ``multihead``
(the law of the multi-head output), ``variance_profile`` (the causal-profile law). Public
names are re-exported by :mod:`attnspec`.
"""
