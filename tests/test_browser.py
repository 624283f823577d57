"""One real-browser test: JupyterLab + Debian chromium driven by Playwright.

A JupyterLab server starts on 127.0.0.1 (free port, token) with this venv's
kernel; chromium opens the tour (notebooks/01_tour.ipynb), runs all its cells,
clicks Step on its last workbench ("your turn") and waits for the new row. The screenshot goes to artifacts/. The browser
is Debian's (``apt-get install chromium``, done by .ci/run); no test tool ever
downloads one.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACT = ROOT / "artifacts" / "browser_step.png"

pytestmark = pytest.mark.browser

TOUR = ROOT / "notebooks" / "01_tour.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = "\n".join(log.read_text().splitlines()[-10:])
            raise RuntimeError(f"jupyter lab exited with {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError("jupyter lab did not start")


@pytest.fixture
def lab(tmp_path):
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium; .ci/run does it)")
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(TOUR, root / TOUR.name)
    port, token = _free_port(), "wb-test-token"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"), JUPYTER_DATA_DIR=str(tmp_path / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"), JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"), HOME=str(tmp_path),
               JUPYTER_PATH=str(Path(sys.prefix) / "share" / "jupyter"))
    # Lab's announcements plugin asks about news in a toast; turn it off up front.
    plugin = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab" / "apputils-extension"
    plugin.mkdir(parents=True)
    (plugin / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                         "checkForUpdates": False}))
    nb_settings = plugin.parent / "notebook-extension"
    nb_settings.mkdir()
    (nb_settings / "tracker.jupyterlab-settings").write_text(json.dumps({"autoStartDefaultKernel": True,
                                                                         # render every cell, so the
                                                                         # last one is in the DOM
                                                                         "windowingMode": "none"}))
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--allow-root", "--LabApp.extension_manager=readonly",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(f"{base}/api/status?token={token}", proc, tmp_path / "lab.log")
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_step_in_jupyterlab_adds_a_row(lab):
    from playwright.sync_api import sync_playwright

    base, token = lab
    ARTIFACT.parent.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1400})
            try:
                _drive(page, base, token)
            except Exception:
                page.screenshot(path=str(ARTIFACT.with_name("browser_failure.png")), full_page=True)
                raise
        finally:
            browser.close()
    assert ARTIFACT.stat().st_size > 10_000


def _drive(page, base: str, token: str) -> None:
    page.goto(f"{base}/lab/tree/{TOUR.name}?token={token}", timeout=60_000)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    select = page.get_by_role("button", name="Select", exact=True)
    try:  # older settings may still ask which kernel to start
        select.wait_for(timeout=5_000)
        select.click()
    except Exception:
        pass
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    # The last cell shows a fresh workbench on the embedded engine; the whole tour
    # (vLLM import, engine start, four requests) runs before it.
    last = page.locator(".jp-CodeCell").last
    step = last.locator("button.widget-button", has_text="Step").first
    step.wait_for(state="attached", timeout=300_000)
    last.scroll_into_view_if_needed()
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert page.locator(".jp-OutputArea-output .ansi-red-fg, .jp-RenderedText[data-mime-type="
                        "'application/vnd.jupyter.error']").count() == 0, errors.all_inner_texts()
    rows = last.locator("table.wb-table tr[data-step]")
    assert rows.count() == 0
    step.click()
    rows.first.wait_for(timeout=120_000)
    assert rows.count() == 1 and last.locator("tr[data-step='1']").count() == 1
    step.click()
    last.locator("tr[data-step='2']").wait_for(timeout=60_000)
    assert "2 deltas" in last.locator(".wb-status").first.inner_text()
    last.locator(".jp-OutputArea-output").first.screenshot(path=str(ARTIFACT))
