"""Headless Chromium for the HTML report's tests: a screenshot, its console, its plots."""

import os
import shutil
import subprocess

import pytest
from PIL import Image


def chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing (CI must run the rendering test): apt-get install -y chromium")
        pytest.skip("SKIPPED LOUDLY: chromium is not installed; the HTML rendering test did not run")
    return exe


def shoot(exe, url, png, tmp_path, height=900):
    """Screenshot of `url`; returns the console messages Chromium logged."""
    p = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
                        f"--window-size=1400,{height}", f"--screenshot={png}", url],
                       capture_output=True, text=True, timeout=120)
    assert png.is_file(), p.stderr
    return [line for line in p.stderr.splitlines() if ":CONSOLE" in line]


def assert_plots_drawn(png, at_least):
    """At least `at_least` plot bands taller than 150 px on the screenshot, each of
    coloured, varied pixels (not blank)."""
    bands = [b for b in plot_bands(png) if b[1] - b[0] > 150]
    assert len(bands) >= at_least, bands
    for top, bottom, sd, coloured in bands:
        assert sd > 15 and coloured > 500, f"plot band {top}-{bottom} looks blank (sd {sd:.1f}, {coloured} coloured)"


def plot_bands(png):
    """Vertical bands of the page that hold coloured pixels (plot lines and bars; the
    tables are grey), each with the grey-level spread inside it."""
    import numpy as np
    rgb = np.asarray(Image.open(png).convert("RGB")).astype(int)
    sat = (rgb.max(axis=2) - rgb.min(axis=2)) > 80
    rows = np.flatnonzero(sat.sum(axis=1) > 3)
    bands, start = [], None
    for i, r in enumerate(rows):
        if start is None:
            start = r
        if i + 1 == len(rows) or rows[i + 1] - r > 60:
            grey = np.asarray(Image.open(png).convert("L").crop((0, start, rgb.shape[1], r + 1)))
            bands.append((start, r, float(grey.std()), int(sat[start:r + 1].sum())))
            start = None
    return bands
