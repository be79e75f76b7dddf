"""Samplers: random matrices of the models the book studies (A4 §1, §2, §4, §6).

``softmax`` (single-head softmax attention and the i.i.d.-score model), ``equivalents`` (the
Gaussian-equivalent models), ``multihead`` (multi-head outputs with weight ties), ``ensembles``
(Wigner, Haar, free sums, kernel matrices), ``masked`` (causal attention and its masked
Gaussian equivalent), ``inputs`` (token inputs beyond orthonormal rows). Public names are re-exported by :mod:`attnspec`.
"""
