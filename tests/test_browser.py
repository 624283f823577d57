"""One real-browser test: JupyterLab + Debian chromium driven by Playwright.

A JupyterLab server starts on 127.0.0.1 (free port, token) with this venv's
kernel; chromium opens a small notebook that shows a Workbench, runs it, clicks
Step and waits for the new row. The screenshot goes to artifacts/. The browser
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

CELLS = [
    "from workbench import Workbench\n"
    "TOOLS = [{'type': 'function', 'function': {'name': 'get_weather', 'parameters': "
    "{'type': 'object', 'properties': {'city': {'type': 'string'}}}}}]\n"
    "wb = Workbench(tools=TOOLS)\n"
    "wb.step()  # loads vLLM in the kernel; the browser then clicks Step\n"
    "wb",
]


def _notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


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
    _notebook(root / "step.ipynb")
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
    (nb_settings / "tracker.jupyterlab-settings").write_text(json.dumps({"autoStartDefaultKernel": True}))
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
    page.goto(f"{base}/lab/tree/step.ipynb?token={token}", timeout=60_000)
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
    rows = page.locator("table.wb-table tr[data-step]")
    rows.first.wait_for(timeout=90_000)
    assert rows.count() == 1
    page.locator("button.widget-button", has_text="Step").first.click()
    page.wait_for_function(
        "() => document.querySelectorAll('table.wb-table tr[data-step]').length === 2",
        timeout=60_000)
    assert page.locator("table.wb-table tr[data-step='2']").count() == 1
    assert "2/26 deltas" in page.locator(".wb-status").first.inner_text()
    page.locator(".jp-OutputArea-output").first.screenshot(path=str(ARTIFACT))
