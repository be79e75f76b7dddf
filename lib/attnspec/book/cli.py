"""The ``attnspec`` command line: rerun a chapter, list chapters, print a law's numbers,
fetch the pretrained weights."""

from __future__ import annotations

import argparse
import sys

from attnspec.book.parameters import ParameterError


def _rerun(args):
    from attnspec.book.chapters import parse_assignments
    from attnspec.book.rerun import (RerunInterrupted, find_book_root, page_of, rerun_chapter,
                                     resolve_chapter)
    from attnspec.book.rerun_page import PageBuildError

    stem = resolve_chapter(args.chapter, find_book_root(args.book_root)).stem
    values = parse_assignments(stem, args.params)
    print(f"attnspec rerun: chapter {int(stem[:2])} ({stem})", file=sys.stderr)
    from papermill.exceptions import PapermillExecutionError

    try:
        path = rerun_chapter(stem, values, book_root=args.book_root, output_dir=args.output_dir,
                             quick=args.quick, progress_bar=sys.stderr.isatty())
    except PapermillExecutionError as exc:  # its message names the cell that raised
        print(f"attnspec rerun: the chapter failed; nothing was written.\n{exc}", file=sys.stderr)
        return 1
    except RerunInterrupted as exc:
        print(f"attnspec rerun: {exc}; nothing was written and every child process was "
              "stopped.", file=sys.stderr)
        return 128 + exc.signum
    except PageBuildError as exc:
        print(f"attnspec rerun: the chapter ran, but its page could not be built: {exc}",
              file=sys.stderr)
        return 1
    print(path)
    print(f"{page_of(path)}   (open in a browser: the chapter as the book shows it, with "
          "this run's numbers and figures; the folder works when moved or zipped)")
    return 0


def _chapters(args):
    from attnspec.book.chapters import CHAPTERS, describe

    for name in sorted(CHAPTERS):
        print(f"Chapter {int(name[:2])}: {name}\n{describe(name)}\n")
    return 0


class _SplitParams(argparse.Action):
    """``--params "ell=500 betas=[0.5, 1] --quick"``: the text split by
    :func:`attnspec.book.chapters.split_assignments`, its pairs added to the overrides and
    ``--quick`` honoured."""

    def __call__(self, parser, namespace, text, option_string=None):
        from attnspec.book.chapters import split_assignments

        try:
            items = split_assignments(text)
        except ParameterError as exc:
            parser.error(str(exc))
        if "--quick" in items:
            namespace.quick = True
        unknown = [item for item in items if item.startswith("-") and item != "--quick"]
        if unknown:
            parser.error(f"--params may hold name=value pairs and --quick; got {unknown[0]!r}")
        namespace.params_text = [item for item in items if item != "--quick"]


def build_parser():
    """The argument parser of ``attnspec`` (one subcommand per job)."""
    parser = argparse.ArgumentParser(
        prog="attnspec", description="Spectra of random self-attention: the book's command line.")
    sub = parser.add_subparsers(dest="command", required=True)

    rerun = sub.add_parser("rerun", help="execute a chapter with other parameters (papermill)",
                           description="Execute a chapter with other parameters; prints the "
                                       "path of the executed notebook and of its page (the "
                                       "chapter built as the book shows it).")
    rerun.add_argument("chapter", help="the chapter's number as the book shows it (3 or 03), "
                                       "its file name, or a fragment of its name (threshold)")
    rerun.add_argument("params", nargs="*", metavar="NAME=VALUE",
                       help="parameter overrides, e.g. for chapter 3: ell=500 betas=[0.5,1]")
    rerun.add_argument("--params", metavar="TEXT", action=_SplitParams, default=[],
                       dest="params_text",
                       help="parameter overrides as one text, split at spaces outside brackets "
                            "and quotes: --params \"ell=500 betas=[0.5, 1]\" (what make rerun "
                            "PARAMS=... passes; --quick may be part of it)")
    rerun.add_argument("--quick", action="store_true", help="start from the small test sizes")
    rerun.add_argument("--output-dir", default=None, help="default: _build/reruns")
    rerun.add_argument("--book-root", default=None, help="default: found from the current folder")
    rerun.set_defaults(func=_rerun)

    chapters = sub.add_parser("chapters", help="list the chapters and their parameters")
    chapters.set_defaults(func=_chapters)

    from attnspec.book import cli_law as _cli_law
    from attnspec.book import cli_models as _cli_models

    _cli_law.add_parser(sub)
    _cli_models.add_parser(sub)
    return parser


def main(argv=None):
    """Run the command line; return the exit status (2 for bad parameters, 1 if a chapter fails)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "rerun":
        args.params += args.params_text
    if args.command == "rerun" and all("=" in item for item in extra):
        args.params += extra   # `rerun 03 --quick betas=[1.5]`: pairs after an option
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except (ParameterError, FileNotFoundError) as exc:
        print(f"attnspec {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # Ctrl-C outside a chapter run: one line, no traceback
        print(f"attnspec {args.command}: interrupted by SIGINT", file=sys.stderr)
        return 128 + 2


if __name__ == "__main__":
    raise SystemExit(main())
