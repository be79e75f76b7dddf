"""The weight ties of multi-head attention: one registry for samplers, laws, studies and figures.

A4 §6 lists the ties: which weights heads share and where the sharing acts. The sampler
(:func:`attnspec.multihead_output`), the law (:class:`attnspec.MultiHeadLaw`), the studies of
chapter 7 and the chapter parameters all read the names, labels and kinds from here.
"""

from __future__ import annotations

__all__ = ["TIES", "ACROSS_HEAD_TIES", "UNTIED_LAW_TIES", "TIE_LABELS", "TIE_KINDS"]

#: Weight-tie variants of A4 §6, in the order of its table.
TIES = ("none", "mqa", "gqa", "shared_values", "cross_kv", "kv", "output_keys", "shared_pattern")

#: Ties that share weights across heads only (kind "across heads"). For the Gaussian-equivalent
#: model their law is the law of independent heads, derived in chapter A1 (except ``cross_kv``
#: with H = 1, which is the kv tie).
ACROSS_HEAD_TIES = ("mqa", "gqa", "shared_values", "cross_kv")

#: Ties for which :class:`attnspec.MultiHeadLaw` returns the law of independent heads, namely
#: the across-head ties and ``output_keys`` (a within-head tie). For ``output_keys`` it is argued
#: in the limit for H = 1 (A1, step 2; chapter 7) and supported by Monte Carlo only for H ≥ 2.
UNTIED_LAW_TIES = ACROSS_HEAD_TIES + ("output_keys",)

#: Human-readable name of every tie of :data:`TIES`.
TIE_LABELS = {
    "none": "independent heads",
    "mqa": "multi-query",
    "gqa": "grouped-query",
    "shared_values": "shared values",
    "cross_kv": "cross key–value",
    "kv": "key–value tie",
    "output_keys": "output tied to keys",
    "shared_pattern": "shared pattern",
}

#: Where each tie acts (the last column of the table of A4 §6).
TIE_KINDS = {
    "none": "baseline",
    "mqa": "across heads",
    "gqa": "across heads",
    "shared_values": "across heads",
    "cross_kv": "across heads",
    "kv": "within a head",
    "output_keys": "within a head (the output depends on the keys)",
    "shared_pattern": "contrast case",
}
