"""Paste a printed command into bash, as a person would, with stand-ins for the programs it
names: each stand-in records its argv (JSON, one line a call) and does nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROGRAMS = ("vllm", "workbench", "pytest")


def paste(line: str, folder: Path) -> list[list[str]]:
    """Run ``line`` with bash in ``folder``; the calls the stand-ins saw. Nothing is left in
    ``folder`` but what was there (the stand-ins live in a sibling folder)."""
    bin_dir = folder.parent / f".{folder.name}-bin"
    bin_dir.mkdir(exist_ok=True)
    calls = bin_dir / "calls.jsonl"
    calls.write_text("")
    for name in PROGRAMS:
        p = bin_dir / name
        p.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                     "with open(os.environ['PASTE_CALLS'], 'a') as f:\n"
                     "    f.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + '\\n')\n")
        p.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PASTE_CALLS": str(calls), "HOME": str(folder), "LANG": "C.UTF-8"}
    done = subprocess.run(["bash", "-c", line], cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (line, done.stderr)
    return [json.loads(x) for x in calls.read_text().splitlines()]


def untouched(folder: Path, before: set[str]) -> bool:
    return set(os.listdir(folder)) == before
