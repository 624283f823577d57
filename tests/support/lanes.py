"""A whole `workbench` command over one listed vLLM version, its output captured (for a
module-scoped fixture, where the function-scoped ``run_cli`` cannot go)."""

from __future__ import annotations

import contextlib
import io


def run_captured(version: str, argv: list[str]) -> dict:
    """{"rc", "stdout", "stderr"} of `workbench ARGV --vllm VERSION` (the lane, or here)."""
    from workbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([*argv, "--vllm", version])
    return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}


def rewrite_manifest(folder, rel: str, data: bytes) -> None:
    """What an attacker with the cache writes: the file and its manifest line, consistently."""
    import hashlib

    from workbench.lanes import manifest

    m = folder / manifest.NAME
    lines = [ln for ln in m.read_text().splitlines() if not ln.endswith(f"  {rel}")]
    lines.append(f"{hashlib.sha256(data).hexdigest()}  {rel}")
    m.write_text("\n".join(lines[:1] + sorted(lines[1:])) + "\n")
