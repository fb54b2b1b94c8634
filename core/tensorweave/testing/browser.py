"""A real headless browser for a pack's tests of a web page (a dashboard, a tracking UI).

Tests that a page a user opens really shows what it should drive Chromium (Debian's
``chromium`` + ``chromium-driver``, which ``.ci/run`` installs) through Selenium, with the flags
this closed network needs (no background connections, no sandbox as root, a fresh profile)::

    from tensorweave.testing.browser import open_browser, wait_for_text, check_not_blank

    def test_dashboard_lists_the_trials(tmp_path, dashboard_url):
        with open_browser() as browser:
            browser.get(dashboard_url)
            wait_for_text(browser, "trial 0", timeout=30)
            check_not_blank(browser, tmp_path / "dashboard.png")

``open_browser`` raises :class:`BrowserMissingError` (saying what to install) when Chromium,
its driver or Selenium is absent; a test can turn that into a skip with
``pytest.importorskip("selenium")`` only where skipping is acceptable: CI has all three.

>>> BrowserMissingError.__mro__[1].__name__
'TensorweaveError'
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tensorweave.errors import TensorweaveError

__all__ = ["BrowserMissingError", "open_browser", "wait_for_text", "check_not_blank"]

_CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
_DRIVER = ("chromedriver",)
_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


class BrowserMissingError(TensorweaveError):
    """Chromium, chromedriver or Selenium is not installed where a browser test runs."""


def _which(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@contextlib.contextmanager
def open_browser(*, page_load_timeout: float = 60.0) -> Iterator[Any]:
    """A headless Chromium driven by Selenium, closed (with its profile folder) on exit.

    Yields a ``selenium.webdriver.Chrome``. Raises :class:`BrowserMissingError` naming what
    to install when something is absent.
    """
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        raise BrowserMissingError(
            "browser tests need Selenium: pip install 'selenium>=4.20'"
        ) from exc
    binary, driver = _which(_CHROMIUM), _which(_DRIVER)
    if binary is None or driver is None:
        raise BrowserMissingError(
            "browser tests need Chromium and its driver: "
            "apt-get install -y chromium chromium-driver (Debian), as .ci/run does"
        )
    profile = tempfile.mkdtemp(prefix="tw-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in _FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    browser.set_page_load_timeout(page_load_timeout)
    try:
        yield browser
    finally:
        try:
            browser.quit()
        finally:
            shutil.rmtree(profile, ignore_errors=True)


def wait_for_text(browser: Any, text: str, *, timeout: float = 30.0) -> str:
    """Wait until ``text`` is in the page's visible text (pages that render with scripts take
    a moment); return that text. Raises ``AssertionError`` with the page's text on timeout."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            seen = browser.find_element("tag name", "body").text
            if text in seen:
                return seen
        time.sleep(0.25)
    raise AssertionError(
        f"{text!r} did not appear within {timeout:.0f} s at {browser.current_url}; "
        f"the page shows: {seen[:2000]!r}"
    )


def check_not_blank(browser: Any, path: str | Path, *, min_colors: int = 8) -> Path:
    """Save a screenshot to ``path`` and assert it is not blank (a page that rendered has
    more than ``min_colors`` distinct colours). Returns the path, for the test's report."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not browser.save_screenshot(str(path)):
        raise AssertionError(f"the browser could not save a screenshot to {path}")
    import numpy as np
    import tensorflow as tf

    pixels = tf.io.decode_png(tf.io.read_file(str(path)), channels=3).numpy()
    colors = np.unique(pixels.reshape(-1, 3), axis=0)
    if len(colors) <= min_colors:
        raise AssertionError(
            f"the screenshot {path} is blank ({len(colors)} colours): the page did not render"
        )
    return path
