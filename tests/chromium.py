"""Headless Chromium for the page tests (tests/test_browser*.py) and the docs' screenshots
(docs/make_*_screenshot.py): where the browser and its driver are, and a driver started
with the flags they share."""

from __future__ import annotations

import shutil
from pathlib import Path


def _program(*names: str) -> str | None:
    for name in names:
        if Path(name).is_absolute() and Path(name).exists():
            return name
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _program("chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium")
DRIVER = _program("/usr/bin/chromedriver", "chromedriver")


def missing() -> str | None:
    """Why no headless browser can start here (one line), or None."""
    if CHROMIUM is None:
        return "Chromium is not installed (Debian: apt-get install chromium)"
    if DRIVER is None:
        return "chromedriver is not installed (Debian: apt-get install chromium-driver)"
    return None


def start(size: str = "1300,1000", flags: tuple[str, ...] = ("--disable-gpu",)):
    """A headless Chromium driver of window ``size`` (WIDTH,HEIGHT), its console kept for
    ``driver.get_log("browser")``; ``flags`` added to the shared ones."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 f"--window-size={size}", *flags):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, read back
    return webdriver.Chrome(service=Service(DRIVER), options=options)
