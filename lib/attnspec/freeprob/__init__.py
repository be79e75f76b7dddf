"""The free-probability core: root finding, subordination solvers and the multi-head chains.

``roots`` (the physical root of a cubic/quartic and its polishing), ``subordination`` (Cauchy
and R-transforms, subordination, solved down an η-ladder), ``chains`` (the chain of free
convolutions behind :class:`attnspec.MultiHeadLaw`).
"""
