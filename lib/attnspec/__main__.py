"""``python -m attnspec``: the same as the ``attnspec`` command."""

from attnspec.cli import main

raise SystemExit(main())
