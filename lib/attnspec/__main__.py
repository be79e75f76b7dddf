"""``python -m attnspec``: the same as the ``attnspec`` command."""

from attnspec.book.cli import main

raise SystemExit(main())
