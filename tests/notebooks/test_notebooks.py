"""The notebooks run top to bottom (nbclient, this venv's ipykernel), outputs stripped.

Each runs in one fresh kernel (01 builds the one embedded engine of its kernel; 04 starts
SmolLM2 on the CPU), with no error, no stderr and no progress bar in any cell. Each ends with
a "Check yourself" cell that computes its answers from the notebook's objects and asserts
them: a wrong answer is an error in that cell, and fails here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CPU_NOTEBOOKS = ["01_tour.ipynb", "02_author_a_parser.ipynb", "03_reproduce_a_bug.ipynb",
                 "04_real_model.ipynb", "05_harmony.ipynb", "06_one_stream_three_apis.ipynb", "07_python_and_rust.ipynb"]


def execute(name: str, timeout: int = 300):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return nb


def errors(nb) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.output_type == "error"]


# tqdm's bar as text ("Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:00<...]")
# or as its notebook widget, whose text/plain is the same line
PROGRESS = re.compile(r"\d{1,3}%(\s*Completed)?\s*\||\bit/s\]|checkpoint shards|TqdmHBox")


def progress_bars(nb) -> list[str]:
    """Every cell output that is, or holds, a progress bar."""
    found = []
    for c in nb.cells:
        for o in c.get("outputs", []) if c.cell_type == "code" else []:
            texts = [o.get("text", "")] + [v for k, v in o.get("data", {}).items()
                                           if k.startswith("text/") and isinstance(v, str)]
            found += [t[:120] for t in texts if PROGRESS.search(t)]
    return found


def check_cell(nb):
    """The notebook's last cell, after its "## Check yourself" heading."""
    heading, cell = nb.cells[-2:]
    assert heading.cell_type == "markdown" and heading.source.startswith("## Check yourself")
    assert cell.cell_type == "code" and cell.source.startswith("# Check yourself")
    return cell


def test_a_wrong_answer_fails_the_check_cell():
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        from cells_check import CHECK_TAIL
    finally:
        sys.path.remove(str(NOTEBOOKS))
    exec(CHECK_TAIL, {"ANSWERS": {"right": (7, 7)}})
    with pytest.raises(AssertionError, match="wrong: the stream says 6, this notebook says 7"):
        exec(CHECK_TAIL, {"ANSWERS": {"right": (7, 7), "wrong": (6, 7)}})


def test_notebooks_are_built_and_stripped():
    import nbformat

    out = subprocess.run([sys.executable, str(NOTEBOOKS / "build.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name
        assert path.name in CPU_NOTEBOOKS
        assert "CHECK_TAIL" not in check_cell(nb).source and "assert answer == expected" in check_cell(nb).source


@pytest.mark.notebook
@pytest.mark.parametrize("name", CPU_NOTEBOOKS)
def test_notebook_runs_top_to_bottom(name):
    if "rust" in name:  # vllm-rs's one extraction per machine says so on stderr; not what is tested here
        from workbench.rustfe import binary

        binary.ensure()
    nb = execute(name)
    assert errors(nb) == []
    stderr = [o.text for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and o.name == "stderr"]
    assert stderr == [], "start-up noise or a log line reached a cell"
    assert progress_bars(nb) == [], "a progress bar reached a cell (vLLM's weight loading, a lane)"
    widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, "the notebook shows a Workbench"
    check = check_cell(nb)
    questions = re.findall(r"^# \d+\. ", check.source, flags=re.M)
    answered = "".join(o.text for o in check.outputs if o.output_type == "stream").count("✓ ")
    assert questions and answered == len(questions), "every question of Check yourself is answered and checked"
