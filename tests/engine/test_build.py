"""The embedded tiny model is built on a fresh machine's first engine start: quietly."""

from __future__ import annotations

import shutil


def test_building_the_tiny_model_draws_no_progress_bar(capfd):
    """transformers' save_pretrained draws "Writing model shards" (a tqdm.auto widget in a
    notebook, past the engine's quiet()): on a clean clone it was in tour 01's first Step."""
    from workbench.engine.tiny_model import ensure_tiny_model

    folder = ensure_tiny_model("qwen3", seed=4242)  # an override: its own folder, built now
    try:
        err = capfd.readouterr().err
        assert (folder / "model.safetensors").is_file()
        assert "Writing model shards" not in err and "it/s]" not in err, err
    finally:
        shutil.rmtree(folder)
