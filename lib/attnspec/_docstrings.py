"""Numpydoc entries that several docstrings share, written once (scipy's ``doccer`` idea).

A docstring line that holds only ``%(name)s`` stands for the entry ``DOCS[name]``, indented
as that line. :func:`fill_docstring` substitutes the entries once, when the module that uses
it is imported, so ``help()``, Sphinx autodoc (the API page) and the doctests all read the
full text. An unknown name raises ``KeyError`` at import.
"""

from __future__ import annotations

from ._validation import BETA_MAX

__all__ = ["DOCS", "fill_docstring"]

DOCS = {
    "ell": """\
ell : int
    Number of tokens ℓ ≥ 2.""",
    "d_qk": """\
d_qk : int
    Query/key width d_qk ≥ 1 (c = ℓ/d_qk).""",
    "c": """\
c : float
    Ratio c = ℓ/d_qk > 0; d_qk = round(ℓ/c) (at least 1).""",
    "beta": f"""\
beta : float
    Inverse temperature 0 < β ≤ {BETA_MAX:g} (so that e^{{β²}} is a finite float).""",
    "beta_array": """\
beta : float or array_like
    Inverse temperature 0 < β ≤ :data:`BETA_MAX`. Arrays are evaluated elementwise.""",
    "scores": """\
S : array_like
    ℓ×ℓ real scores, ℓ ≥ 2, finite.""",
    "noise_rng": """\
rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
    Source of the noise Z (ℓ×ℓ i.i.d. N(0, 1)).""",
}


def fill_docstring(func):
    """Replace each ``%(name)s`` line of ``func.__doc__`` by ``DOCS[name]``; return ``func``.

    Works on functions and classes; a missing docstring (``python -OO``) is left alone.
    """
    if func.__doc__:
        lines = []
        for line in func.__doc__.split("\n"):
            key = line.strip()
            if key.startswith("%(") and key.endswith(")s"):
                indent = line[:len(line) - len(line.lstrip())]
                lines += [indent + entry for entry in DOCS[key[2:-2]].split("\n")]
            else:
                lines.append(line)
        func.__doc__ = "\n".join(lines)
    return func
