"""MkDocs hook: links from the docs to repository files outside docs/.

The pages link to files such as ``../CONTRIBUTING.md`` so that they work where the Markdown is
read (GitHub, an editor). MkDocs cannot serve those files and would report each link as
missing, so this hook checks each one instead: the file must exist, and an anchor must name
one of its headings; otherwise it logs a warning, which fails ``mkdocs build --strict``. In
the built site the link goes to ``repo_url`` when mkdocs.yml sets one, else it becomes the
path in code type.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.agentgym_repo_links")

LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
FENCE = re.compile(r"(^```.*?^```[ \t]*$)", re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_\[\]()]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.MULTILINE)}


def on_page_markdown(markdown: str, page, config, files) -> str:
    docs_dir = Path(config["docs_dir"]).resolve()
    root = docs_dir.parent
    source = Path(page.file.abs_src_path).resolve().parent
    repo_url = (config.get("repo_url") or "").rstrip("/")

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)  # a URL or an anchor on this page: MkDocs' own business
        path_text, _, fragment = target.partition("#")
        path = (source / path_text).resolve()
        if path.is_relative_to(docs_dir):
            return match.group(0)  # a page or file of the site: MkDocs validates it
        where = page.file.src_uri
        if not path.is_relative_to(root) or not path.exists():
            log.warning("%s links to %s, which is not a file of the repository", where, target)
            return match.group(0)
        if fragment and path.suffix == ".md" and fragment not in anchors(path):
            log.warning("%s links to %s: %s has no heading #%s", where, target,
                        path.relative_to(root), fragment)
        relative = path.relative_to(root).as_posix()
        if repo_url:
            return f"[{text}]({repo_url}/blob/HEAD/{relative}{'#' + fragment if fragment else ''})"
        return f"`{relative}`" if text.strip("`") == relative else f"{text} (`{relative}`)"

    parts = FENCE.split(markdown)
    # Odd parts are fenced code: left as they are.
    return "".join(part if i % 2 else LINK.sub(rewrite, part) for i, part in enumerate(parts))
