"""`workbench corpus --synth N -o DIR`: N recordings to try a corpus run on.

Every family in ``scenarios.FAMILIES`` (the seed's hermes + qwen3, every family in
parsers/*.toml with the parsers vLLM registers for it, gpt-oss's Harmony) on a shipped
tokenizer, each scenario, in random groupings (``k:N``, ``random:SEED``, as MTP and
``--stream-interval`` make them) and sometimes cut short by max_tokens, plus the known
vLLM 0.32 divergences of ``scenarios.DIVERGENCES`` (one in ten; ``--families`` may name
``divergences`` among the families, or alone). Seeded: the same
N, seed and families give the same files. Each is written as `workbench replay --save`
writes a recording, so a corpus run reads them as it reads any other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from workbench.corpus import scenarios
from workbench.errors import WorkbenchError

CHUNKINGS = ("token", "token", "k:2", "k:3", "k:5", "random")
TRUNCATE = 0.15  # share of the family streams cut by max_tokens
DIVERGENCE_EVERY = 10  # one recording in ten is a known divergence (when "divergences" is chosen)
DIVERGENCES = "divergences"  # the pseudo-family of scenarios.DIVERGENCES, for --families


@dataclass(frozen=True)
class Item:
    name: str  # the file name, without .jsonl
    family: str  # folder
    parsers: tuple[str | None, str | None, str]  # tool, reasoning, tokenizer
    text: str
    finish_reason: str
    chunking: str
    cut_at: float | None  # a share of the tokens to keep (max_tokens), None: whole


def plan(n: int, seed: int, families: list[str] | None = None) -> list[Item]:
    chosen = list(families or [*scenarios.FAMILIES, DIVERGENCES])
    known = [*scenarios.FAMILIES, DIVERGENCES]
    unknown = [f for f in chosen if f not in known]
    if unknown:
        raise WorkbenchError(f"--families: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    if n < 1:
        raise WorkbenchError(f"--synth needs N >= 1, got {n}")
    rng = random.Random(seed)
    divergences = list(scenarios.DIVERGENCES) if DIVERGENCES in chosen else []
    chosen = [f for f in chosen if f != DIVERGENCES] or [None]
    items, made_divergences = [], 0
    for i in range(n):
        chunking = rng.choice(CHUNKINGS)
        chunking = f"random:{rng.randrange(1 << 30)}" if chunking == "random" else chunking
        if divergences and (i % DIVERGENCE_EVERY == DIVERGENCE_EVERY - 1 or chosen == [None]):
            name = divergences[made_divergences % len(divergences)]
            made_divergences += 1
            parsers, text, finish = scenarios.DIVERGENCES[name]
            items.append(Item(f"{i:05d}-{name}", DIVERGENCES, parsers, text, finish, chunking, None))
            continue
        family = chosen[i % len(chosen)]
        scenario = rng.choice(scenarios.SCENARIOS)
        cut = rng.uniform(0.3, 0.9) if rng.random() < TRUNCATE else None
        items.append(Item(f"{i:05d}-{scenario}" + ("-cut" if cut else ""), family, scenarios.FAMILIES[family],
                          scenarios.text(family, scenario), "length" if cut else "stop", chunking, cut))
    return items


def write(out_dir: str | Path, n: int, seed: int, families: list[str] | None = None,
          force: bool = False) -> list[Path]:
    from workbench.core import outputs, recording as rec, trust
    from workbench.core.deltas import deltas_from_ids, encode_text, group_sizes, split
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.core.tokenizers import ensure_tokenizer, stop_token_ids, tokenizer_sha256

    items = plan(n, seed, families)
    out = Path(out_dir)
    sessions: dict[tuple, tuple[Session, str, dict]] = {}  # parsers -> session, tokenizer sha256, header parser
    made = []
    for it in items:
        tool, reasoning, tok = it.parsers
        if it.parsers not in sessions:
            spec = ParserSpec(tool, reasoning)
            sessions[it.parsers] = (Session(Setup(tok, spec, RequestSpec(tools=scenarios.TOOLS))),
                                    tokenizer_sha256(ensure_tokenizer(tok)), trust.provenance(spec))
        session, sha, parser = sessions[it.parsers]
        if it.cut_at is None:
            deltas = session.deltas_from_text(it.text, it.chunking, finish_reason=it.finish_reason)
        else:
            ids = encode_text(session.tokenizer, it.text)
            ids = ids[:max(1, int(len(ids) * it.cut_at))]
            deltas = list(deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params,
                                          split(ids, group_sizes(len(ids), it.chunking)), finish_reason="length",
                                          stop_terminated=ids[-1] in stop_token_ids(session.tokenizer)))
        origin = {"kind": "synth", "family": it.family, "chunking": it.chunking, "seed": seed,
                  "cut_at": None if it.cut_at is None else round(it.cut_at, 3)}
        header = rec.make_header(tok, sha, session.setup.request.to_dict(), session.prompt_ids, origin, parser)
        path = out / it.family / f"{it.name}.jsonl"
        outputs.inside(path, out)
        rec.save(path, header, deltas, overwrite=force)
        made.append(path)
    return made
