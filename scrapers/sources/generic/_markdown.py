"""A page written in Markdown (a vendor's docs or activity page kept as ``.md``) read as the
HTML it renders to, so its pipe tables are tables like any other.

markdown-it-py does the rendering (CommonMark with GFM tables and strikethrough, as GitHub
and most docs sites render these pages): a table written by hand is a grammar with escapes,
alignment rows and inline markup, which a library already reads right.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from scrapers.rows import ParseError

# A GFM table: a row of cells between pipes, then its delimiter row ("|---|:--:|").
_TABLE = re.compile(rb"^\s*\|?.*\|.*\n\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.M)
_MARKUP_START = re.compile(rb"^\s*(?:\xef\xbb\xbf)?\s*<", re.S)
_RENDERER = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def is_markdown(body: bytes) -> bool:
    """Whether ``body`` is a Markdown text with a pipe table (not an HTML page)."""
    return not _MARKUP_START.match(body[:64]) and _TABLE.search(body) is not None


def as_html(body: bytes, url: str) -> bytes:
    """The HTML ``body`` renders to (raw HTML inside it is shown as text, never run)."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: Markdown page is not UTF-8 ({exc})") from None
    return f"<html><body>{_RENDERER.render(text)}</body></html>".encode()
