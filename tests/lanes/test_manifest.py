"""A lane tree's manifest (lanes/manifest.py) does not vouch for itself: a file rewritten
with its manifest line (a ``sitecustomize.py`` at the tree's root, an edited module) is
found, against the manifest sha256 the lock states or, without one, the wheel's own."""

from __future__ import annotations

import hashlib
import zipfile

import pytest

from tests.support.lanes import rewrite_manifest
from workbench.lanes import manifest, tree, versions


def _lane(tmp_path, monkeypatch, stated: bool) -> str:
    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = wheels / "vllm-9.9.7-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(w, "w") as zf:
        zf.writestr("vllm/__init__.py", b"__version__ = '9.9.7'\n")
        zf.writestr("vllm/parser/x.py", b"X = 1\n")
        zf.writestr("vllm-9.9.7.dist-info/METADATA", b"Name: vllm\nVersion: 9.9.7\n")
    lock = tmp_path / "vllm-lanes.lock"
    lock.write_text(f"9.9.7  {w.name}  {sha256_file(w)}\n")
    monkeypatch.setattr(versions, "LOCK_FILE", lock)
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    if stated:
        from workbench.rustfe import binary

        entry = versions.locked()["9.9.7"]
        bare = versions.LaneVersion(entry.version, entry.wheel, entry.sha256)
        lock.write_text(f"9.9.7  {w.name}  {entry.sha256}  tree={tree.manifest_sha256(bare)}\n")
        assert versions.locked()["9.9.7"].tree
        assert binary  # the vllm-rs column is optional on its own
    return "9.9.7"


@pytest.mark.parametrize("stated", [True, False], ids=["lock states it", "from the wheel"])
@pytest.mark.parametrize("rel, data", [("sitecustomize.py", b"open('PWNED', 'w')\n"),
                                       ("vllm/parser/x.py", b"X = 2; open('PWNED', 'w')\n")])
def test_a_file_written_with_its_manifest_line_is_found(tmp_path, monkeypatch, stated, rel, data):
    version = _lane(tmp_path, monkeypatch, stated)
    root = tree.ensure(version, progress=lambda m: None)
    (root / rel).write_bytes(data)
    rewrite_manifest(root, rel, data)
    entry = versions.locked()[version]
    why = manifest.problem(root, entry.sha256, tree.manifest_sha256(entry))
    assert why == "its manifest is not the one setup/vllm-lanes.lock states (sha256 differs)"
    said = []
    root = tree.ensure(version, progress=said.append)
    assert any("is not the wheel's" in s for s in said), said
    assert not (root / "sitecustomize.py").exists() and (root / "vllm/parser/x.py").read_bytes() == b"X = 1\n"


def test_a_lock_line_stating_another_manifest_is_refused_at_extraction(tmp_path, monkeypatch):
    version = _lane(tmp_path, monkeypatch, stated=False)
    lock = versions.LOCK_FILE
    lock.write_text(lock.read_text().strip() + "  tree=" + "0" * 64 + "\n")
    with pytest.raises(Exception, match="not the 0{64} setup/vllm-lanes.lock states") as e:
        tree.ensure(version, progress=lambda m: None)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("line, ok", [("1.0  w.whl  " + "a" * 64, True),
                                      ("1.0  w.whl  " + "a" * 64 + "  tree=" + "b" * 64 + "  vllm-rs=" + "c" * 64, True),
                                      ("1.0  w.whl  " + "a" * 64 + "  tree=bad", False),
                                      ("1.0  w.whl  " + "a" * 64 + "  other=" + "b" * 64, False)])
def test_lock_lines(tmp_path, line, ok):
    from workbench.errors import WorkbenchError

    (tmp_path / "l").write_text(line + "\n")
    if ok:
        assert versions.locked(tmp_path / "l")["1.0"].sha256 == "a" * 64
    else:
        with pytest.raises(WorkbenchError, match="line 1: expected VERSION WHEEL SHA256"):
            versions.locked(tmp_path / "l")


def test_the_shipped_lock_states_both_manifests_and_a_check_reads_no_wheel(monkeypatch):
    """With the lock's hashes no wheel is read on a start (hashing one costs about 2 s): the
    check is the manifest's walk, as before (0.3 s)."""
    for entry in versions.locked().values():
        assert entry.tree and entry.vllm_rs, entry.version
    entry = versions.locked()[max(versions.locked())]
    root = tree.tree_path(entry.version)
    if manifest.problem(root, entry.sha256, entry.tree) is not None:
        pytest.skip(f"the {entry.version} lane's tree is not extracted on this machine")
    monkeypatch.setattr(tree, "_wheel", lambda e: pytest.fail("a wheel was read"))
    monkeypatch.setattr(manifest, "_FROM_WHEEL", {})
    assert tree.ensure(entry.version) == root and manifest._FROM_WHEEL == {}
    assert hashlib.sha256((root / manifest.NAME).read_bytes()).hexdigest() == entry.tree
