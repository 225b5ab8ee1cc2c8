"""mkdocs hook: the README (as ``guide.md``) and ``CONTRIBUTING.md``, which stay at the
repository's root where people look for them, become pages of the site together with the files
they link to (pictures, each other), so that their links work on the site as in the repository
and a broken one fails the strict build. ``mkdocs.yml`` names this file under ``hooks``.

>>> linked_files("[map](CONTRIBUTING.md#the-packages), ![window](docs/images/gui.png), [w](https://x.org)")
['CONTRIBUTING.md', 'docs/images/gui.png']

A picture in HTML (``<img src="...">``, for a width) is followed too: the build checks no HTML, so
such a file would otherwise be missing from the site, and a target that does not exist is
reported as a warning (which fails the strict build) rather than left as a broken picture.

>>> linked_files('<img src="experiments/elo.png" alt="Elo" width="49%"> <img src="https://x.org/a.png">')
['experiments/elo.png']

A link to a page of ``docs/`` (``docs/reference/agents.md``) becomes a link to that page of the
site, whose path drops the ``docs/`` (the docs folder is the site's root): copying the page
would render its API reference a second time, and each object would then have two addresses.

>>> site_text("[agents](docs/reference/agents.md#the-arena), ![window](docs/images/gui.png)")
'[agents](reference/agents.md#the-arena), ![window](docs/images/gui.png)'
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel

__all__ = ["PAGES", "linked_files", "on_files", "site_text"]

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"README.md": "guide.md", "CONTRIBUTING.md": "CONTRIBUTING.md"}
"""Each root file made a page -> its path on the site (``README.md`` would become the site's
index, which is ``docs/index.md``)."""

# the target of a markdown link or picture, without its #anchor (the build checks anchors itself)
_TARGET = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
# the file of an HTML picture, which the build neither copies nor checks by itself
_HTML_PICTURE = re.compile(r"""<img\s[^>]*?src=["']([^"'#]+)["']""", re.IGNORECASE)
# a link from a root page to a page of docs/, which is on the site already, at its path less docs/
_DOCS_PAGE = re.compile(r"\]\(docs/([^)\s#]+\.md)")
# "mkdocs." loggers' warnings are counted by the strict build
_LOG = logging.getLogger("mkdocs.hooks.repository_pages")


def linked_files(text: str) -> list[str]:
    """The relative link and picture targets of the markdown ``text``, HTML pictures included (web
    addresses left out)."""
    return [target for target in _TARGET.findall(text) + _HTML_PICTURE.findall(text) if ":" not in target]


def site_text(text: str) -> str:
    """The root page's markdown ``text`` as the site shows it: its links to pages of ``docs/`` point
    at those pages where the site has them."""
    return _DOCS_PAGE.sub(r"](\1", text)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the root pages and, following their links, the files they reach (a Markdown file
    reached so is a page outside the navigation, whose own links are followed too); a target
    that does not exist is left out, so the link to it warns."""
    pending = list(PAGES)
    for name, site_path in PAGES.items():
        files.append(File.generated(config, site_path, content=site_text((ROOT / name).read_text(encoding="utf-8"))))
    while pending:
        page = pending.pop()
        for target in linked_files((ROOT / page).read_text(encoding="utf-8")):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
            if page in PAGES and _DOCS_PAGE.search(f"]({target}"):
                continue  # site_text points it at the page of the site
            if not (ROOT / path).exists():
                _LOG.warning(f"{page} links to {target}, which does not exist")
            if path in PAGES or files.get_file_from_path(path) is not None or not (ROOT / path).is_file():
                continue
            files.append(
                File.generated(config, path, abs_src_path=str(ROOT / path), inclusion=InclusionLevel.NOT_IN_NAV)
            )
            if path.endswith(".md"):
                pending.append(path)
    return files
