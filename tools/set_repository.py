"""Set the repository address of the book (``make repository URL=https://github.com/o/r``).

The address lives in ``_config.yml`` (``repository.url``: launch, issue and source buttons);
``pyproject.toml`` (``[project.urls] Repository``), ``CITATION.cff`` (``repository-code``) and
the BibTeX entry of the landing page's "How to cite" repeat it, and every chapter's install cell installs from it. This script writes all of them
from one argument, then reruns ``tools/normalize_chapters.py``; tests/test_publishing.py fails
if they ever differ.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLACES = {
    "_config.yml": r"(?m)^(\s*url:\s*)\S+(\s*#.*)?$",
    "pyproject.toml": r'(?m)^(Repository\s*=\s*)"[^"]*"(.*)$',
    "CITATION.cff": r'(?m)^(repository-code:\s*)"[^"]*"(.*)$',
    "intro.md": r"(?m)^(\s*url\s*=\s*\{)[^}]*(\}.*)$",       # the book's BibTeX entry
}


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", args[0]):
        print("usage: set_repository.py https://github.com/OWNER/NAME", file=sys.stderr)
        return 2
    url = args[0]
    for name, pattern in PLACES.items():
        path = ROOT / name
        text = path.read_text()
        quote = '"' if name in ("pyproject.toml", "CITATION.cff") else ""
        new, count = re.subn(pattern, lambda m: f"{m[1]}{quote}{url}{quote}{m[2] or ''}",
                             text, count=1)
        if count != 1:
            print(f"{name}: the repository address was not found", file=sys.stderr)
            return 1
        path.write_text(new)
    return subprocess.call([sys.executable, str(ROOT / "tools" / "normalize_chapters.py")])


if __name__ == "__main__":
    sys.exit(main())
