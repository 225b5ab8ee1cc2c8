"""mkdocs hook: the README (as ``guide.md``) and ``CONTRIBUTING.md``, which stay at the
repository's root where people look for them, become pages of the site together with the files
they link to (pictures, each other), so that their links work on the site as in the repository
and a broken one fails the strict build. ``mkdocs.yml`` names this file under ``hooks``.

>>> linked_files("[map](CONTRIBUTING.md#the-packages), ![window](docs/images/gui.png), [w](https://x.org)")
['CONTRIBUTING.md', 'docs/images/gui.png']
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

__all__ = ["PAGES", "linked_files", "on_files"]

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"README.md": "guide.md", "CONTRIBUTING.md": "CONTRIBUTING.md"}
"""Each root file made a page -> its path on the site (``README.md`` would become the site's
index, which is ``docs/index.md``)."""

# the target of a markdown link or picture, without its #anchor (the build checks anchors itself)
_TARGET = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def linked_files(text: str) -> list[str]:
    """The relative link and picture targets of the markdown ``text`` (web addresses left out)."""
    return [target for target in _TARGET.findall(text) if ":" not in target]


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the root pages and the files they link to; a target that does not exist is left out,
    so the link to it warns."""
    for name, site_path in PAGES.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        files.append(File.generated(config, site_path, content=text))
        for target in linked_files(text):
            if target in PAGES or files.get_file_from_path(target) is not None or not (ROOT / target).is_file():
                continue
            files.append(File.generated(config, target, abs_src_path=str(ROOT / target)))
    return files
