"""Make a two-paragraph variant of a one-paragraph UCCA XML passage (for the legacy quirk)."""

from __future__ import annotations

import re


def split_paragraphs(xml: str, after: int) -> str:
    """Start paragraph 2 at terminal position ``after + 1`` (paragraph positions restart)."""
    def fix(m: re.Match[str]) -> str:
        pos = int(m.group(1))
        if pos <= after:
            return m.group(0)
        return m.group(0).replace('paragraph="1"', 'paragraph="2"').replace(
            f'paragraph_position="{m.group(2)}"', f'paragraph_position="{pos - after}"')
    return re.sub(r'<node ID="0\.(\d+)" type="\w+">\s*<attributes paragraph="1" paragraph_position="(\d+)"',
                  fix, xml)
