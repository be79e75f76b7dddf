"""Argument checks shared by every public function: named, early, with the allowed range.

Every check raises :class:`ParameterError` (a ``ValueError``; :class:`ParameterTypeError`, also
a ``TypeError``, for a wrong type) whose message names the parameter, the value received and
what is allowed, e.g. ``beta must be a finite number > 0; got beta=-1.0``. The chapter
parameters (:mod:`attnspec.book.parameters`) use the same checks and the same errors.
This is the bottom layer of the package: it imports nothing from ``attnspec``.
"""

from __future__ import annotations

import math
import numbers
import os
import sys

import numpy as np

__all__ = ["ParameterError", "ParameterTypeError", "range_text", "check_int", "check_float",
           "check_choice", "check_rng", "check_matrix", "as_float_array", "scalar_or_array",
           "check_beta", "check_bool", "check_memory", "check_size", "given", "BETA_MAX"]

#: Upper end of the documented domain 0 < β ≤ BETA_MAX of the inverse temperature, so that
#: s = e^{β²} − 1 is a finite float64 (e^{26²} ≈ 1e293 < 1.8e308). It holds for everything
#: that involves e^{β²}, that is the laws, the Gaussian-equivalent samplers, the multi-head
#: samplers and the moment formulas, which refuse β outside it with a ValueError naming
#: ``beta`` (``check_beta``). The single-head softmax samplers accept any finite β > 0 (their
#: rows saturate, never overflow).
BETA_MAX = 26.0


class ParameterError(ValueError):
    """A parameter (of a function or of a chapter) is unknown, missing, of the wrong type or
    out of range. A ``ValueError``, so ``except ValueError`` catches every bad input."""


class ParameterTypeError(ParameterError, TypeError):
    """A parameter of the wrong type. Both a ``TypeError`` and a ``ValueError``, so callers
    that catch bad input as ``ValueError`` (as the book's documentation says) catch it too."""


def range_text(low, high, low_open=False, high_open=False):
    """The allowed range as text: ``range_text(0, 5, True) == "> 0 and <= 5"``."""
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high}")
    return " and ".join(parts)


def _float_or_refuse(name, value, allowed):
    """``float(value)``, or a ParameterError naming ``name`` for an integer beyond the float64
    range (where ``float`` raises a bare OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        raise ParameterError(f"{name} must be {allowed}; got {given(name, value)}") from None


def given(name, value):
    """The ``got ...`` part of a message: ``name=repr(value)``, or for an integer beyond the
    float64 range its size (``name = an integer of about 10^400, ...``), not its 400 digits."""
    if isinstance(value, numbers.Integral) and abs(int(value)) > sys.float_info.max:
        digits = int(value).bit_length() * math.log10(2)
        return (f"{name} = an integer of about 10^{digits:.0f}, beyond the float64 range "
                f"(1.8e308)")
    return f"{name}={value!r}"


def check_int(name, value, *, min=None, max=None):
    """Return ``value`` as ``int`` if it is an integer in ``[min, max]``, else raise.

    ``bool`` is refused (it is an ``int`` subclass but never a size). Integral numpy
    scalars are accepted.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"{name} must be an integer; got {name}={value!r} "
                                 f"({type(value).__name__})")
    value = int(value)
    allowed = f"an integer {range_text(min, max, False, False)}".strip()
    if (min is not None and value < min) or (max is not None and value > max):
        raise ParameterError(f"{name} must be {allowed}; got {name}={value}")
    _float_or_refuse(name, value, allowed)     # every integer parameter is also used as a float
    return value


def check_float(name, value, *, min=None, max=None, min_open=False, max_open=False):
    """Return ``value`` as a finite ``float`` in the given range, else raise.

    ``min_open=True`` makes the lower bound strict (``value > min``), likewise ``max_open``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be a real number; got {name}={value!r} "
                                 f"({type(value).__name__})")
    allowed = f"a finite number {range_text(min, max, min_open, max_open)}".strip()
    value = _float_or_refuse(name, value, allowed)
    finite = math.isfinite(value)
    too_low = min is not None and (value <= min if min_open else value < min)
    too_high = max is not None and (value >= max if max_open else value > max)
    if finite and not (too_low or too_high):
        return value
    raise ParameterError(f"{name} must be {allowed}; got {name}={value!r}")


def check_choice(name, value, choices):
    """Return ``value`` if it is one of ``choices``, else raise listing them."""
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ParameterError(f"{name} must be one of {listed}; got {name}={value!r}")
    return value


def check_rng(rng):
    """Normalise ``rng`` (None, an int seed, a SeedSequence or a Generator) to a Generator.

    ``numpy.random.default_rng`` passes a Generator through unchanged, so callers that
    share one stream keep sharing it.
    """
    if isinstance(rng, (bool, np.bool_)) or not (
        rng is None
        or isinstance(rng, (numbers.Integral, np.random.SeedSequence,
                            np.random.Generator, np.random.BitGenerator))
    ):
        raise ParameterTypeError("rng must be None, an int seed, a numpy SeedSequence or a "
                                 f"numpy.random.Generator; got rng={rng!r}")
    if isinstance(rng, numbers.Integral) and rng < 0:
        raise ParameterError(f"rng must be a non-negative seed; got rng={rng}")
    return np.random.default_rng(rng)


def check_matrix(name, value, *, square=False, min_rows=1, finite=False):
    """Return ``value`` as a 2-D float array (no copy for float arrays), else raise.

    Integer arrays are converted to float64; complex, boolean, object and non-2-D input is
    refused with :class:`ParameterTypeError`, a wrong shape (and, with ``finite``, a NaN or
    infinite entry) with :class:`ParameterError`.
    """
    array = np.asarray(value)
    if array.ndim != 2 or not (np.issubdtype(array.dtype, np.floating)
                               or np.issubdtype(array.dtype, np.integer)):
        raise ParameterTypeError(f"{name} must be a 2-D real array; got {name} with shape "
                                 f"{array.shape} and dtype {array.dtype}")
    if square and array.shape[0] != array.shape[1]:
        raise ParameterError(f"{name} must be square; got {name} with shape {array.shape}")
    if array.shape[0] < min_rows:
        raise ParameterError(f"{name} must have at least {min_rows} rows; got {name} with "
                             f"shape {array.shape}")
    if finite and not np.isfinite(array).all():
        raise ParameterError(f"{name} must have only finite entries")
    if not np.issubdtype(array.dtype, np.floating):
        array = array.astype(np.float64)
    return array


def as_float_array(x, name="x"):
    """``x`` as a float64 array; ``None``, strings, objects and complex values raise a
    ``ParameterTypeError`` (a TypeError) naming ``name``."""
    if x is None:
        raise ParameterTypeError(f"{name} must be a real number or an array of real numbers; "
                                 f"got {name}=None")
    arr = np.asarray(x)
    if np.iscomplexobj(arr):
        raise ParameterTypeError(f"{name} must be real; got {name}={x!r} (complex)")
    if arr.dtype.kind not in "biuf":
        raise ParameterTypeError(f"{name} must be a real number or an array of real numbers; "
                                 f"got {name}={x!r} ({type(x).__name__}, dtype {arr.dtype})")
    return arr.astype(np.float64, copy=False)


def check_size(size):
    """``size`` of a random draw: None, a non-negative int or a tuple of non-negative ints."""
    if size is None:
        return None
    if isinstance(size, tuple):
        return tuple(check_int("size", n, min=0) for n in size)
    return check_int("size", size, min=0)


def scalar_or_array(out, x):
    """A Python float for a 0-d input ``x``, the array otherwise (scipy's convention)."""
    return float(out) if np.ndim(x) == 0 else out


def check_beta(beta, name="beta"):
    """Return β as a float if 0 < β ≤ BETA_MAX (so that e^{β²} is a finite float64), else raise."""
    if isinstance(beta, (bool, np.bool_)) or not isinstance(beta, numbers.Real):
        raise ParameterTypeError(f"{name} must be a real number; got {name}={beta!r} "
                                 f"({type(beta).__name__})")
    allowed = (f"a finite number > 0 and <= {BETA_MAX:g} (so that e^({name}^2) is a finite "
               "float64)")
    value = _float_or_refuse(name, beta, allowed)
    if not 0 < value <= BETA_MAX:   # also refuses nan and inf
        raise ParameterError(f"{name} must be {allowed}; got {name}={value!r}")
    return value


def check_bool(name, value):
    """Return ``value`` if it is a bool (numpy bools included), else raise: "no" is not False."""
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{name} must be True or False; got {name}={value!r} "
                                 f"({type(value).__name__})")
    return bool(value)


def physical_memory():
    """Bytes of physical memory of this machine (a generous 2**40 where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 2 ** 40


def check_memory(name, value, nbytes):
    """Refuse a size ``name=value`` whose arrays (``nbytes`` in all) exceed physical memory.

    Raised before anything is allocated, so a typo such as ``ell=10**6`` gets a message
    naming ``ell`` instead of numpy's failure to allocate terabytes.
    """
    available = physical_memory()
    if nbytes > available:
        raise ParameterError(f"{name}={value} needs about {nbytes / 2**30:,.0f} GiB for its arrays; "
                         f"this machine has {available / 2**30:,.0f} GiB of memory")
    return value
