"""Feedback pages that are safe for the instructor (and the learner) to open.

nbgrader writes the feedback page inside the notebook's sandbox, so the grader treats it
as learner-written HTML: a markdown cell or `display(HTML(...))` can hold `<script>`,
`onerror=` handlers, `javascript:` links or iframes. `safe_page` runs the whole page
through bleach (the HTML sanitiser nbconvert itself uses) with an allow-list of tags,
attributes and CSS properties: no script element, no event handler, no link or image
that is not plain http(s), a fragment or an inline raster image. A Content-Security-Policy
that allows no script and no network request is added as a second line of defence.
Math is shown as its TeX source (MathJax is a script, so it is not loaded).
"""
from __future__ import annotations

import re

import bleach
from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
       "form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
HEAD = (f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        "<style>pre, .output_text pre { white-space: pre-wrap; word-break: break-word; }</style>\n")

TAGS = {
    "title", "style", "div", "span", "p", "pre", "code", "kbd", "samp", "var", "br", "hr",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "img", "em", "strong", "b", "i", "u", "s", "del", "ins", "mark",
    "small", "sub", "sup", "blockquote", "q", "abbr", "cite", "dl", "dt", "dd", "ul", "ol", "li", "table", "thead",
    "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col", "details", "summary", "figure", "figcaption",
    "main", "section", "article", "header", "footer", "nav", "aside",
}
COMMON_ATTRS = ("class", "id", "title", "style", "lang", "dir", "role", "aria-label")
_IMAGE = re.compile(r"^data:image/(png|jpe?g|gif|webp);base64,[A-Za-z0-9+/=\s]*$", re.I)
_LINK = re.compile(r"^(https?://|#|mailto:)", re.I)
# Properties that can fetch something (url(...)) are not in bleach's list: background, etc.
_CSS = CSSSanitizer(allowed_css_properties=ALLOWED_CSS_PROPERTIES - {"background", "background-image"})


def _attribute(tag: str, name: str, value: str) -> bool:
    if name in COMMON_ATTRS:
        return True
    if tag == "a" and name == "href":
        return bool(_LINK.match(value.strip()))
    if tag == "img" and name == "src":
        return bool(_IMAGE.match(value.strip()))
    if tag == "img" and name in ("alt", "width", "height"):
        return True
    if tag in ("td", "th") and name in ("colspan", "rowspan", "align"):
        return True
    if tag == "ol" and name in ("start", "type"):
        return True
    return tag == "details" and name == "open"


def safe_page(html: str) -> str:
    """The page with everything that could run or fetch removed, and a strict CSP."""
    clean = bleach.clean(html, tags=TAGS, attributes=_attribute, protocols=["http", "https", "mailto", "data"],
                         css_sanitizer=_CSS, strip=True, strip_comments=True)
    # bleach parses a fragment: the page's own <html>/<head> are gone, its <style>s and body
    # remain. The new head comes first, so the CSP holds for everything after it.
    return f"<!DOCTYPE html>\n<html><head>{HEAD}</head><body>{clean}</body></html>"
