"""Is the local tokenizer the server's? Checked on the prompt before any replay.

Every id must be in the vocabulary, and the server's prompt ids must decode to
text that this tokenizer encodes back to the same ids. If both hold but the
prompt differs from the one rendered here, the tokenizer is fine and the chat
template differs: a finding (a note), not a refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike


def check(tokenizer: TokenizerLike, tokenizer_name: str, server_prompt_ids: list[int], output_ids: list[int],
          local_prompt_ids: list[int]) -> list[str]:
    """Notes about the prompt; raises WorkbenchError (one line) when the tokenizer does not match."""
    vocab = len(tokenizer)
    for what, ids in (("prompt", server_prompt_ids), ("output", output_ids)):
        bad = [t for t in ids if not 0 <= t < vocab]
        if bad:
            raise WorkbenchError(f"tokenizer {tokenizer_name} is not the server's: {what} token ids "
                                 f"{bad[:5]} are outside its vocabulary of {vocab}")
    if server_prompt_ids == local_prompt_ids:
        return []
    text = tokenizer.decode(server_prompt_ids, skip_special_tokens=False)
    again = list(tokenizer.encode(text, add_special_tokens=False))
    if again != list(server_prompt_ids):
        at = next((i for i, (a, b) in enumerate(zip(again, server_prompt_ids)) if a != b),
                  min(len(again), len(server_prompt_ids)))
        raise WorkbenchError(
            f"tokenizer {tokenizer_name} is not the server's: the server's prompt ids from "
            f"position {at} ({list(server_prompt_ids[at:at + 5])}) do not round-trip through it "
            f"(it encodes their text as {again[at:at + 5]})")
    local = tokenizer.decode(local_prompt_ids, skip_special_tokens=False)
    at = next((i for i, (a, b) in enumerate(zip(text, local)) if a != b), min(len(text), len(local)))
    return [f"chat-template difference: the server's prompt differs from the one rendered here "
            f"at character {at}: server {text[at:at + 40]!r}, here {local[at:at + 40]!r}"]
