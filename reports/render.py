"""The Jinja2 environment of the report pages: templates in templates/, autoescaping on, so that
every string a page shows (an engine's name, message or repr) is text unless the page's own code
marks it as markup; an undefined name is an error rather than an empty string."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True)
