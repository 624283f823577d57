"""The real model's folder is held to models.lock.toml: a tokenizer load checks all but the
weights, an engine start checks the weights on a thread beside vLLM's own load of them."""

from __future__ import annotations

import shutil

import pytest

from workbench.core import models
from workbench.errors import WorkbenchError


@pytest.fixture
def copy(tmp_path, monkeypatch):
    folder = tmp_path / "smollm2-135m"
    shutil.copytree(models.ensure("smollm2", convert=False, weights=False), folder)
    monkeypatch.setattr(models, "folder_of", lambda name: folder)
    return folder


def test_changed_weights_are_refused_by_the_engines_check_not_the_tokenizers(copy):
    with (copy / "model.safetensors").open("r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    assert models.ensure("smollm2", weights=False) == copy  # a tokenizer reads no weights
    wait = models.verify_later("smollm2")
    with pytest.raises(WorkbenchError, match=r"model\.safetensors: sha256 .* does not match the lock for model smollm2"):
        wait()


def test_a_changed_tokenizer_file_is_refused_at_once(copy):
    (copy / "tokenizer_config.json").write_text("{}")
    with pytest.raises(WorkbenchError, match=r"tokenizer_config\.json: sha256 .* does not match the lock"):
        models.ensure("smollm2", weights=False)
    models.verify_later("smollm2")()  # the weights themselves are the lock's


def test_a_checked_file_is_hashed_again_only_when_it_changed(copy, monkeypatch):
    from workbench.core.tokenizers import wheels

    hashed = []
    real = wheels.sha256_file
    monkeypatch.setattr(wheels, "sha256_file", lambda path: hashed.append(path.name) or real(path))
    models.verify("smollm2", copy)  # a copied folder: new inodes, nothing vouched for
    assert "model.safetensors" in hashed
    wheels._HASHED.clear()  # as a new process
    hashed.clear()
    models.verify("smollm2", copy)
    assert hashed == []
    assert models.verify_later("smollm2")() is None and hashed == []
    with (copy / "model.safetensors").open("r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    with pytest.raises(WorkbenchError, match=r"model\.safetensors: sha256 .* does not match"):
        models.verify_later("smollm2")()
    assert hashed == ["model.safetensors"]
