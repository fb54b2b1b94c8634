"""tensorweave.testing.browser drives a real headless Chromium: it reads a page served on
localhost and refuses a blank screenshot."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tensorweave.testing.browser import check_not_blank, open_browser, wait_for_text


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    (tmp_path / "page.html").write_text(
        "<h1 style='color:#c03'>tensorweave</h1><p style='background:#39f'>a page</p>"
    )
    (tmp_path / "blank.html").write_text("<html><body></body></html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()


def test_reads_a_page_and_saves_a_screenshot_that_is_not_blank(served):
    url, folder = served
    with open_browser() as browser:
        browser.get(f"{url}/page.html")
        assert "a page" in wait_for_text(browser, "tensorweave", timeout=20)
        shot = check_not_blank(browser, folder / "shots" / "page.png", min_colors=2)
        assert shot.stat().st_size > 0


def test_a_blank_page_and_missing_text_fail_with_what_was_seen(served):
    url, folder = served
    with open_browser() as browser:
        browser.get(f"{url}/blank.html")
        with pytest.raises(AssertionError, match="is blank"):
            check_not_blank(browser, folder / "blank.png", min_colors=2)
        with pytest.raises(AssertionError, match="did not appear within 1 s"):
            wait_for_text(browser, "never there", timeout=1)
