"""The free-probability core: series, transforms, root finding, the η-ladder, subordination
and the multi-head chains.

``series`` (free cumulants → moments), ``transforms`` (K(g) and free cumulants of ν_∞, the
Marchenko–Pastur edges and moments, the edges of M), ``roots`` (the physical root of a
cubic/quartic and its polishing), ``ladder`` (the one η-continuation ladder),
``subordination`` (Cauchy and R-transforms, subordination, solved down the ladder),
``chains`` (the chain of free convolutions behind :class:`attnspec.MultiHeadLaw`),
``variance_profile`` (the vector Dyson equation of a Gram matrix with a variance profile).
"""
