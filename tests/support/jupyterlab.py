"""A JupyterLab server on 127.0.0.1 and Debian chromium, for the browser tests and bench.

``lab_server(tmp, root)`` serves ``root`` (free port, a token, this venv's kernel,
settings in ``tmp`` so no user config leaks in); ``open_notebook`` opens one in a
Playwright page and waits for its kernel. The browser is Debian's
(``apt-get install chromium``, done by .ci/run); nothing here downloads one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"
VIEWPORT = {"width": 1280, "height": 900}


def require_chromium() -> None:
    """Skip, saying why, where Debian's chromium is not installed."""
    import pytest

    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium; .ci/run does it)")


@contextlib.contextmanager
def chromium_page(viewport: dict = VIEWPORT):
    """A headless Debian chromium page and the list its uncaught page errors go to."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport=viewport)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()


@contextlib.contextmanager
def lab_page(lab, failure: Path | None = None, clipboard: bool = False):
    """A chromium page for a test on the run's JupyterLab (tests/conftest.py's ``lab``): when
    the test fails inside it, a full-page screenshot goes to ``failure`` (if given) and the
    page's errors are printed; an uncaught page error fails it; the kernels it started are
    shut down. ``clipboard``: the page may read and write the clipboard (Copy JSON)."""
    try:
        with chromium_page() as (page, errors):
            if clipboard:
                page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base)
            try:
                yield page
            except Exception:
                if failure is not None:
                    failure.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(failure), full_page=True)
                print("page errors:", errors)
                raise
            assert errors == [], errors  # an uncaught error in the page (the table's module raised)
    finally:
        lab.shutdown_kernels()


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


def _settings(folder: Path) -> None:
    apputils = folder / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True)
    # Lab's announcements plugin asks about news in a toast; turn it off up front.
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    nb = folder / "@jupyterlab" / "notebook-extension"
    nb.mkdir()
    # render every cell, so the last one is in the DOM
    (nb / "tracker.jupyterlab-settings").write_text(
        json.dumps({"autoStartDefaultKernel": True, "windowingMode": "none"}))


@contextlib.contextmanager
def lab_server(tmp: Path, root: Path, env: dict | None = None):
    """Yields (base_url, token); the server is stopped on exit."""
    port, token = _free_port(), "wb-test-token"
    env = dict(os.environ if env is None else env,
               JUPYTER_CONFIG_DIR=str(tmp / "cfg"), JUPYTER_DATA_DIR=str(tmp / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp / "rt"), JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "ws"), HOME=str(tmp),
               JUPYTER_PATH=str(Path(sys.prefix) / "share" / "jupyter"))
    _settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    log_path = tmp / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             "--allow-root", "--LabApp.extension_manager=readonly", "--LabApp.expose_app_in_browser=True",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(f"{base}/api/status?token={token}", proc, log_path)
            yield base, token
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def write_notebook(path: Path, cells: list[str]) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def open_notebook(page, base: str, token: str, name: str) -> None:
    """Open a notebook, hide the file browser (a 1280 px screen keeps the width), wait for its kernel.
    ``reset``: a fresh workspace, so the notebooks an earlier test opened on the same server
    are not restored beside it (each with its kernel)."""
    page.goto(f"{base}/lab/tree/{name}?token={token}&reset", timeout=60_000)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    select = page.get_by_role("button", name="Select", exact=True)
    try:  # older settings may still ask which kernel to start
        select.wait_for(timeout=3_000)
        select.click()
    except Exception:
        pass
    page.wait_for_selector(IDLE, timeout=60_000)
    if page.locator("#jp-left-stack:visible").count():
        page.keyboard.press("Control+b")


# An execute request queued behind the widgets' messages: the kernel handles a shell
# channel's messages in order, so its reply means every earlier click and pick was handled.
ROUND_TRIP_JS = """async () => {
  const nb = [...window.jupyterapp.shell.widgets('main')].find((w) => w.sessionContext);
  await nb.sessionContext.session.kernel.requestExecute({code: '', silent: true, store_history: false}).done; }"""


def kernel_round_trip(page) -> None:
    """Wait until the notebook's kernel has handled every message the page sent before now."""
    page.evaluate(ROUND_TRIP_JS)


def run_all(page, timeout_ms: int = 300_000) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_timeout(500)
    page.wait_for_selector(IDLE, timeout=timeout_ms)


def set_theme(page, name: str) -> None:
    """Lab's own theme command (what Settings → Theme runs), e.g. "JupyterLab Dark"."""
    page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", name)
    page.wait_for_function(f"document.body.dataset.jpThemeName === {json.dumps(name)}", timeout=30_000)
    page.wait_for_timeout(500)
