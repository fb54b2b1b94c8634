"""The gallery's line counter (examples/count_lines.py): blank lines, comments and
docstrings are not code."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import script


def test_count_lines_skips_blanks_comments_and_docstrings(tmp_path: Path) -> None:
    count_lines = script("count_lines.py").count_lines
    source = tmp_path / "x.py"
    source.write_text(
        '"""Doc\nstring."""\n\n# a comment\nx = 1  # code\n\ndef f():\n    """Doc."""\n    return "text"\n'
    )
    toml = tmp_path / "x.toml"
    toml.write_text('# comment\n[run]\nname = "x"\n\n')
    assert (count_lines(source), count_lines(toml)) == (3, 2)
