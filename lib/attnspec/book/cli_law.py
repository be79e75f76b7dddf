"""The ``attnspec law`` subcommand: print the edges, moments and density of ν_∞(β, c)."""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from attnspec.book.parameters import DECIMAL

__all__ = ["add_parser", "run", "report", "MAX_MOMENTS", "MAX_TABLE"]

#: Largest ``--moments K`` (exact moments cost ~K⁴; K = 20 takes ~0.1 s, K = 100 about 30 s).
MAX_MOMENTS = 20
#: Largest ``--table N`` (N points of pdf and cdf; 10⁴ lines is more than any terminal shows).
MAX_TABLE = 10_000


def _ascii(kind):
    """An argparse ``type`` reading an ASCII decimal literal as ``kind`` (float or int):
    ``float`` and ``int`` alone also read "٣" (Arabic-Indic 3) and "1_0"."""
    def parse(text):
        if not (DECIMAL.fullmatch(text) if kind is float else re.fullmatch(r"[+-]?[0-9]+", text)):
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a decimal {'number' if kind is float else 'integer'} "
                "(ASCII digits, no underscores)")
        return kind(text)
    parse.__name__ = kind.__name__
    return parse


class _Once(argparse.Action):
    """Store an option's value, refusing it given twice (which would keep the last silently)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", set())
        if self.dest in given:
            parser.error(f"argument {option_string}: given twice")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


def add_parser(subparsers):
    """Register ``law`` on an ``argparse`` subparsers object; returns the new parser."""
    parser = subparsers.add_parser(
        "law", help="print the edges, moments and density of the limit law ν_∞(β, c)",
        description="Numbers of the limit law ν_∞(β, c) of the squared singular values of "
                    "√ℓ A^⊥ (A4 §3): support edges, the Marchenko–Pastur edge 4s, exact "
                    "moments and optionally a density table.")
    from attnspec._validation import BETA_MAX
    from attnspec.laws.base import C_MAX, C_MIN

    number, integer = dict(type=_ascii(float), action=_Once), dict(type=_ascii(int), action=_Once)
    parser.add_argument("--beta", default=1.0, **number,
                        help=f"inverse temperature β, 0 < β ≤ {BETA_MAX:g} (default 1)")
    parser.add_argument("--c", default=1.0, **number,
                        help=f"aspect ratio c = ℓ/d_qk, {C_MIN:g} ≤ c ≤ {C_MAX:g} (default 1)")
    parser.add_argument("--moments", default=4, metavar="K", **integer,
                        help=f"print the moments of order 1..K (default 4, at most {MAX_MOMENTS})")
    parser.add_argument("--table", default=0, metavar="N", **integer,
                        help="print the density and CDF at N points of the support "
                             f"(at most {MAX_TABLE})")
    parser.set_defaults(func=run)
    return parser


def report(beta=1.0, c=1.0, moments=4, table=0):
    """The text printed by ``attnspec law`` (a list of lines)."""
    from attnspec._validation import check_int
    from attnspec.laws.attention import AttentionLaw

    moments = check_int("moments", moments, min=0, max=MAX_MOMENTS)
    table = check_int("table", table, min=0, max=MAX_TABLE)
    law = AttentionLaw(beta, c)
    edges = law.edges()
    right = edges[-1]
    lines = [f"{law!r}: squared singular values of sqrt(ell) A_perp (A4 §3)",
             f"  s = e^(beta^2) - 1      {law.s:.10g}",
             f"  alpha^2 (noise)         {law.noise_variance:.10g}",
             f"  support                 {', '.join(f'[{a:.10g}, {b:.10g}]' for a, b in zip(edges[::2], edges[1::2]))}",
             f"  right edge              {right:.10g}",
             f"  MP edge 4s              {law.mp_edge():.10g}",
             f"  ratio                   {right / law.mp_edge():.6f}",
             f"  form                    {law.form} (error bound {law.form_error:.1g})"]
    if moments:
        lines.append("  moments (exact)")
        for k in range(1, moments + 1):
            try:
                lines.append(f"    m{k:<3d}{law.moment(k):>24.12g}")
            except ValueError:                      # beyond the float range (large β)
                lines.append(f"    m{k:<3d}{'beyond the float range':>24s}")
    if table:
        x = np.linspace(0.0, right, table + 2)[1:-1] if table > 0 else np.empty(0)
        pdf, cdf = law.pdf(x), law.cdf(x)
        lines.append(f"  {'x':>16} {'pdf':>16} {'cdf':>16}")
        lines += [f"  {a:16.8g} {b:16.8g} {c_:16.10f}" for a, b, c_ in zip(x, pdf, cdf)]
    return lines


def run(args):
    """Print the report for the parsed ``args`` (``beta``, ``c``, ``moments``, ``table``).

    Returns the exit status: 0, or 2 after a one-line message on stderr for bad parameters.
    """
    try:
        lines = report(args.beta, args.c, getattr(args, "moments", 4), getattr(args, "table", 0))
    except ValueError as exc:
        print(f"attnspec law: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
