"""The API reference builds: ``mkdocs build --strict`` (``mkdocs.yml``, ``docs/``) renders the
public API from the docstrings with no warning, so a broken docstring cross-reference, a link to
a missing page or anchor, or a page left out of the navigation fails here. The build needs the
``docs`` extra; without it these tests skip, saying so (the CI test command installs ``test``
only, which stays light). The pictures of the pages made from root files (the README, CONTRIBUTING)
are checked everywhere: each exists, so the site (whose build copies them) shows it.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "docs" / "hooks"
# the distributions of the docs extra, by the module each installs
DOCS_EXTRA = {"mkdocs": "mkdocs", "material": "mkdocs-material", "mkdocstrings_handlers.python": "mkdocstrings-python"}


def _missing_docs_extra() -> list[str]:
    missing = []
    for module, distribution in DOCS_EXTRA.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # the parent package of a dotted name is absent
            found = False
        if not found:
            missing.append(distribution)
    return missing


needs_docs = pytest.mark.skipif(
    bool(_missing_docs_extra()),
    reason=f"the docs extra is not installed ({', '.join(_missing_docs_extra())} missing): "
    "pip install -c constraints.txt -e '.[docs]'",
)


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about its successor
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def _warnings(run: subprocess.CompletedProcess) -> list[str]:
    return [line for line in (run.stdout + run.stderr).splitlines() if "WARNING" in line or "ERROR" in line]


@needs_docs
def test_the_api_reference_builds_strictly_with_no_warning(tmp_path):
    run = _build(ROOT / "mkdocs.yml", tmp_path)
    assert run.returncode == 0 and not _warnings(run), f"mkdocs build --strict:\n{run.stdout}\n{run.stderr}"
    envs = (tmp_path / "reference" / "envs.html").read_text(encoding="utf-8")
    for name in ("amazons_env.envs.gym_env.AmazonsEnv", "amazons_env.envs.vector_env.AmazonsVectorEnv"):
        assert f'id="{name}"' in envs, f"{name} is not rendered"
    # pygments' prompt token: the doctest examples are highlighted as Python sessions, not read as quotes
    assert '<span class="gp">&gt;&gt;&gt; </span>' in envs and "<blockquote>" not in envs
    guide = (tmp_path / "guide.html").read_text(encoding="utf-8")
    assert 'id="install-the-two-commands"' in guide, "the README is not the user guide"
    for picture in ("docs/images/gui.png", "experiments/expert-iteration-8x8/elo.png"):  # markdown and <img>
        assert (tmp_path / picture).is_file(), f"{picture} is not on the site"


@needs_docs
def test_a_broken_docstring_cross_reference_fails_the_build(tmp_path):
    """The same configuration on one page that renders a module whose docstring refers to a name
    that does not exist: the strict build must stop and name it."""
    import yaml  # mkdocs's own dependency

    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "broken_reference.py").write_text(
        '"""Refers to [the board][amazons_env.board.NoSuchBoard], which does not exist."""\n', encoding="utf-8"
    )
    (docs / "index.md").write_text("# Broken\n\n::: broken_reference\n", encoding="utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    python = config["plugins"][1]["mkdocstrings"]["handlers"]["python"]
    python["paths"] = [str(ROOT), str(tmp_path)]
    python["options"]["extensions"] = [str(ROOT / path) for path in python["options"]["extensions"]]
    config["hooks"] = [str(ROOT / path) for path in config["hooks"]]
    config.update(docs_dir=str(docs), nav=[{"Home": "index.md"}, {"Guide": "guide.md"}, "CONTRIBUTING.md"])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    run = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert run.returncode != 0
    assert any("amazons_env.board.NoSuchBoard" in line for line in _warnings(run)), run.stdout + run.stderr


@needs_docs
@pytest.mark.parametrize("hook", sorted(HOOKS.glob("*.py")), ids=lambda path: path.name)
def test_the_build_hooks_examples_hold(hook):
    """``docs/hooks`` is outside the packages that the suite's doctests cover: run its examples here."""
    result = doctest.testmod(load_script(hook))
    assert result.attempted > 0 and result.failed == 0


def test_every_picture_of_the_root_pages_exists():
    """Markdown pictures and HTML ``<img>`` ones (which the strict build alone would not check):
    each names a file of the repository, relative to the page."""
    import re

    pattern = re.compile(r"""!\[[^\]]*\]\(([^)\s#]+)|<img\s[^>]*?src=["']([^"'#]+)["']""", re.IGNORECASE)
    for page in ("README.md", "CONTRIBUTING.md"):
        targets = [a or b for a, b in pattern.findall((ROOT / page).read_text(encoding="utf-8"))]
        assert targets or page != "README.md"  # the README has pictures: the pattern finds them
        for target in targets:
            if ":" not in target:
                assert (ROOT / page).parent.joinpath(target).is_file(), f"{page}: picture {target} does not exist"


@needs_docs
def test_the_hook_follows_html_pictures():
    """A picture given as ``<img>`` is among the files the hook copies to the site, like a markdown
    one (the README's 8x8 Elo picture was missing from the site)."""
    hook = load_script(HOOKS / "repository_pages.py")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "experiments/expert-iteration-8x8/elo.png" in hook.linked_files(readme)
    assert hook.linked_files('<img src="no/such.png" width="49%">') == ["no/such.png"]
