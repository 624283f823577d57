"""`check`: every check over one stream, with one Session.

1. The stream as given: stream vs non-stream, the client contract, parser errors,
   model text that reaches no field (``coverage``), arguments held back (``timing``),
   the silent drops (``silent``: call markup no mode reads, or that reaches the client as text).
2. Chunking invariance: whole, k-token batches, N seeded random groupings, the
   two-chunk splits (every one up to ``groupings.ALL_SPLITS`` tokens, a seeded sample
   above) and detokenizer holdback, each compared with one-token deltas;
   per field, the failing grouping with the fewest merges is shrunk to a minimal
   one, and the first severe finding to a minimal text (``Checker.shrink_text``: the
   fewest tokens of the stream that still show it, the same bug by ``mode``).
3. Parser cost per delta.

Every finding carries ``extra["grouping"]``: a ``--chunking`` name (``core/chunking.py``)
that `workbench replay` accepts and that reproduces it (None for the non-streaming answer).

No stream's rows are kept (check/streams.py), unless ``Options.keep_rows`` (doctor reads
the source's): check's memory does not grow with them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from workbench.check import api_faces, compare, contract, cost as cost_mod, coverage, groupings as G, parallel, props
from workbench.check import evidence, shrink, silent, streams, timing
from workbench.core import chunking as C, limits
from workbench.core.deltas import Delta, deltas_from_ids
from workbench.core.messages import CHUNKING, ERROR, SEVERE, STREAM_VS_NONSTREAM, Difference, Final
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from workbench.core.faces.face import Face
    from workbench.core.rows import Row
    from workbench.core.session import Session


@dataclass
class Report:
    findings: list[Difference]
    checked: dict = field(default_factory=dict)
    cost: dict | None = None

    @property
    def consistent(self) -> bool:
        """No finding of severity error (warnings and cosmetic ones only with --strict)."""
        return not any(f.severe for f in self.findings)

    def exit_code(self, strict: bool = False) -> int:
        return 1 if (self.findings if strict else not self.consistent) else 0

    def to_dict(self) -> dict:
        return {"consistent": self.consistent, "findings": [f.to_dict() for f in self.findings],
                "checked": self.checked, "cost": self.cost}


@dataclass
class Options:
    fuzz: int = 100
    seed: int = G.VLLM_SEED
    max_chunk: int = G.MAX_CHUNK
    holdback: int = 1
    shrink_budget_s: float = 5.0
    text_budget_s: float = 5.0  # 0: do not shrink the text
    cost: bool = True
    jobs: int = 0  # processes for the groupings (0: one per core, up to 4)
    splits: str = "all"  # two-chunk splits: "all", or "markers" (next to the format's markers, every 16th)
    keep_rows: bool = False  # Checker.source is the source's replay, rows and all (doctor reads them)


def api_contract_keys(face: Face, rows: Sequence[Row]) -> set:
    if face is None:
        return set()
    return {(f.field, _signature(f.detail)) for f in api_faces.contract(face, rows, "") if f.severity == SEVERE}


def _severe(diffs: list[Difference], field: str) -> bool:
    return any(d.field == field and d.severity == SEVERE for d in diffs)


def _signature(detail: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "#", detail)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def mode(got: Final, reference: Final, field: str, tool_names: set[str]) -> tuple:
    """The side a difference in ``field`` is on. Tool calls: whether each side has a call a
    client cannot use (no name, a tool the request lacks, arguments that are not a JSON
    object) and which has more calls; a text field: which side is longer."""
    if field == "tool_calls":
        return (len(got.tool_calls) - len(evidence.ok_calls(got, tool_names)) > 0,
                len(reference.tool_calls) - len(evidence.ok_calls(reference, tool_names)) > 0,
                _sign(len(got.tool_calls) - len(reference.tool_calls)))
    a, b = (getattr(x, field, None) or "" for x in (got, reference))
    return (_sign(len("".join(a.split())) - len("".join(b.split()))),)


class Checker:
    def __init__(self, session: Session, deltas: list[Delta], options: Options | None = None,
                 label: str | None = None) -> None:
        self.session, self.deltas = session, list(deltas)
        self.label = label  # how the given deltas were grouped (token, k:3, ...); default "source"
        self.opt = options or Options()
        if not 0 <= self.opt.fuzz <= limits.MAX_FUZZ:
            raise WorkbenchError(f"--fuzz must be between 0 and {limits.MAX_FUZZ:,} (each random grouping replays "
                                 "the whole stream)")
        if self.opt.jobs < 0:
            raise WorkbenchError(f"--jobs must be >= 0 (0: one per core), got {self.opt.jobs}")
        limits.check_processes(self.opt.jobs, "--jobs")
        self.tokens = G.TokenStream.from_deltas(session, self.deltas)
        self.markers = contract.markers(session)
        self.timings: dict[str, float] = {}

    def run(self) -> Report:
        t0 = time.perf_counter()
        one_token = all(len(d.token_ids) == 1 for d in self.deltas)
        label = "token" if one_token else (self.label or "source")
        found = self.on_source(label)
        self.base = self.seen if one_token else self.watch(self.tokens.token_deltas)
        self.base_final = compare.final_of(self.base.final)
        self.timings["stream_vs_nonstream"] = time.perf_counter() - t0
        t = time.perf_counter()
        text_dropped = f"not checked: {len(self.source.text):,} characters, over {limits.MAX_COVERAGE_CHARS:,}"
        if len(self.source.text) <= limits.MAX_COVERAGE_CHARS:  # its word alignment grows with the square
            text_dropped = "checked"
            found += coverage.findings(self.session, self.source, contract.format_literals(self.session, self.markers),
                                       label, evidence.tool_marker_pairs(self.session))
        found += timing.findings(None, "token", self.base.bursts)
        if self.session.api == "chat":
            found += silent.findings(self.session, self.source, label)
        self.timings["coverage"] = time.perf_counter() - t
        known = {(f.field, _signature(f.detail)) for f in found if f.kind == "contract"}
        found += self.chunking(None if one_token else (label, self.deltas), known)
        if self.opt.text_budget_s > 0:
            self.shrink_text(found, lambda s, ds: (None, streams.watch(s, ds, self.markers).final))
        for f in found:
            f.extra.setdefault("grouping", self.grouping_of(f.chunking, label))
        report = Report(found, {"tokens": len(self.tokens), "groupings": self.checked_groupings,
                                "two_chunk_splits": G.splits_checked(len(self.tokens), self.opt.seed,
                                                                     self.split_at),
                                "baseline": "token", "markers": self.shown_markers(self.source.text),
                                "special_tokens": len(contract.special_tokens(self.session.tokenizer)),
                                "text_dropped": text_dropped,
                                "seconds": self.timings})
        if self.opt.cost:
            t = time.perf_counter()
            report.cost = cost_mod.profile(self.session, self.tokens.token_deltas)
            self.timings["cost"] = time.perf_counter() - t
        self.timings["total"] = time.perf_counter() - t0
        return report

    def watch(self, deltas: Sequence[Delta], reference: Final | None = None) -> streams.Seen:
        return streams.watch(self.session, deltas, self.markers, reference)

    def on_source(self, label: str) -> list[Difference]:
        """The stream as given: its errors, stream vs non-stream, the client contract.
        ``self.source``: what coverage reads (its text, ids and both answers), the replay
        itself with ``keep_rows`` or another API (whose faces are built over rows)."""
        if self.session.api == "chat" and not self.opt.keep_rows:
            nonstream = streams.nonstream(self.session, self.deltas)
            seen = self.source = self.seen = self.watch(self.deltas, nonstream)
            found = seen.errors(label)
            found += compare.stream_vs_nonstream(seen, label, seen.first_step)
            return found + contract.findings(None, seen.final, nonstream, self.markers, label, seen.problems)
        src = self.source = self.session.replay(self.deltas)
        found = compare.errors(src.rows, label)
        face, final = None, src.stream_final
        if self.session.api == "chat":
            found += compare.stream_vs_nonstream(src, label)
        else:  # that API's contract and its stream vs its non-streaming body
            from workbench.core import faces

            face = faces.run(self.session, src)
            found += api_faces.findings(self.session, src, face, label)
            final = api_faces.stream(self.session, src)[0]
        problems = props.contract_problems(compare.steps_of(src.rows), self.markers)
        found += contract.findings(src.rows, src.stream_final, src.nonstream_final, self.markers, label, problems)
        self.seen = streams.Seen(final, None, problems, len(src.rows), rows=src.rows, face=face,
                                 bursts=timing.bursts(src.rows))
        return found

    def grouping_of(self, chunking: str, label: str) -> str | None:
        """The ``--chunking`` name that replays a finding seen with ``chunking``."""
        if chunking == "nonstream":
            return None
        if chunking == label == "source":  # a recording's own deltas, where their ids line up
            v = self.variants_source
            return C.at_label(v.sizes) if v is not None and v.sizes is not None else None
        return chunking

    def shown_markers(self, text: str) -> list[str]:
        """The parser's markers, and the tokenizer's special tokens that occur in the text
        (every special token is checked; listing a vocabulary's thousand placeholders is not)."""
        own = {m for ms in contract.parser_markers(self.session).values() for m in ms}
        return [m for m in self.markers if m in own or m in text]

    # -- chunking invariance -------------------------------------------------
    variants_source: G.Variant | None = None
    split_at: set[int] | None = None

    def variants(self, source: list[Delta] | None) -> list[G.Variant]:
        n = len(self.tokens)
        if self.opt.splits == "markers":
            self.split_at = G.marker_positions(self.tokens.texts, self.markers)
        out = [self.tokens.variant(label, sizes) for label, sizes in
               G.standard(n, self.opt.fuzz, self.opt.seed, self.opt.max_chunk, split_at=self.split_at)]
        if self.opt.holdback and n > 1:
            out.append(G.Variant(f"holdback:{self.opt.holdback}", self.tokens.holdback(self.opt.holdback), None))
        if source is not None:
            label, deltas = source
            sizes = tuple(len(d.token_ids) for d in deltas)
            # A plain grouping (shrinkable) when every delta has tokens and the texts line up.
            plain = min(sizes) >= 1 and [d.text for d in self.tokens.deltas(sizes)] == [d.text for d in deltas]
            out.insert(0, G.Variant(label, deltas, sizes if plain else None))
            self.variants_source = out[0]
        return out

    def differs(self, deltas: Sequence[Delta], reference: Final | None = None) -> tuple[list[Difference], streams.Seen]:
        seen = self.watch(deltas, reference)
        return props.differences(compare.final_of(seen.final), self.base_final), seen

    def probe(self, v: G.Variant) -> tuple[list[Difference], bool, list]:
        """(field differences from one-token deltas, whether a delta raised, contract keys)."""
        diffs, seen = self.differs(v.deltas)
        keys = {(p["field"], _signature(p["detail"])) for p in seen.problems}
        keys |= api_contract_keys(seen.face, seen.rows)
        return diffs, seen.error is not None, sorted(keys)

    def chunking(self, source, known_contract: set) -> list[Difference]:
        t = time.perf_counter()
        variants = self.variants(source)
        probes = parallel.map_items(self.probe, variants, self.opt.jobs)
        self.timings["groupings"] = time.perf_counter() - t
        self.checked_groupings = len(variants)
        base_contract = {(p["field"], _signature(p["detail"])) for p in self.base.problems}
        base_contract |= api_contract_keys(self.base.face, self.base.rows)
        failing: dict[str, list[tuple[G.Variant, str]]] = {}
        extra: list[Difference] = []
        seen_contract, errored = base_contract | known_contract, False
        for v, (diffs, raised, keys) in zip(variants, probes):
            for d in diffs:
                failing.setdefault(d.field, []).append((v, d.severity))
            new_keys = [k for k in keys if k not in seen_contract]
            if (raised and not errored) or new_keys:
                _, seen = self.differs(v.deltas)
                if raised and not errored:
                    errored = True
                    extra += seen.errors(v.label)
                api = api_faces.contract(seen.face, seen.rows, v.label) if seen.face is not None else []
                for f in contract.findings(None, seen.final, None, self.markers, v.label, seen.problems) + api:
                    key = (f.field, _signature(f.detail))
                    if key in new_keys and key not in seen_contract:
                        seen_contract.add(key)
                        extra.append(f)
        t = time.perf_counter()
        found = [self.representative(fld, fails, len(variants)) for fld, fails in failing.items()]
        self.timings["shrink_grouping"] = time.perf_counter() - t
        return [f for f in found if f is not None] + extra

    def representative(self, fld: str, fails, total: int) -> Difference | None:
        severe = [(v, s) for v, s in fails if s == SEVERE]
        pool = severe or fails
        shrinkable = [v for v, _ in pool if v.sizes is not None]
        extra = {"groupings_failed": len(fails), "groupings_checked": total,
                 "example": pool[0][0].label}
        if severe and shrinkable:
            start = min(shrinkable, key=lambda v: len(G.merges(v.sizes)))
            n = len(self.tokens)
            res = shrink.minimal_grouping(
                lambda sizes: _severe(self.differs(self.tokens.deltas(sizes))[0], fld),
                n, start.sizes, self.opt.shrink_budget_s)
            v = self.tokens.variant(G.merge_label(res.value), res.value)
            extra.update(shrunk_from=start.label, minimal_grouping=v.label,
                         shrink={"tests": res.tests, "complete": res.complete,
                                 "seconds": round(res.seconds, 2)})
        else:
            v = pool[0][0]
        _, seen = self.differs(v.deltas, self.base.final)
        found = [f for f in compare.variant_vs_baseline(None, seen.final, self.base.final, v.label, seen.first_step)
                 if f.field == fld]
        if not found:  # cannot happen for a deterministic parser; keep the evidence anyway
            return None
        f = found[0]
        f.extra.update(extra)
        return replace(f, detail=f.detail + f" ({len(fails)} of {total} groupings; reference: one-token deltas)")

    def finals(self, result) -> tuple[Final, Final]:
        """(stream, non-stream) of a replay: chat messages, or that API's SDK object and body."""
        if self.session.api == "chat":
            return result.stream_final, result.nonstream_final
        from workbench.core import faces
        from workbench.core.faces import finals

        face = faces.run(self.session, result)
        client = (face.client or {}).get("object")
        got = finals.final_of(face.api, client) if client is not None else Final(error="SDK refused")
        return got, finals.final_of(face.api, face.response)

    def shrink_text(self, found: list[Difference], stream: Callable) -> None:
        """Shrink the first severe finding's text (tool calls first) to the fewest tokens that
        still show it; ``stream(session, deltas)`` is check's (the API's face included).

        A stream-vs-non-stream finding is re-checked on each shorter stream against that
        stream's own non-streaming answer; a chunking finding keeps its grouping's boundaries
        over the tokens kept. Delta debugging (``shrink.minimal_tokens``) under a time budget.
        A shorter stream counts only when it shows the same bug: the same kind and field, and
        the same ``mode`` (which side breaks the client contract, which side has fewer calls or
        less text). When no shorter text keeps it, the whole text is the minimal one."""
        order = {"tool_calls": 0, "reasoning": 1, "content": 2}
        candidates = [f for f in found if f.severity == SEVERE and (
            (f.kind == STREAM_VS_NONSTREAM and f.chunking == "token")
            or (f.kind == CHUNKING and f.chunking.startswith(("merge:", "whole", "split:", "random:", "k:"))))]
        if not candidates:
            return
        target = min(candidates, key=lambda f: order.get(f.field, 3))
        t = time.perf_counter()
        tk = self.tokens
        n = len(tk)
        groups = None
        if target.kind == CHUNKING:
            sizes = C.sizes(target.chunking, n)
            if sizes is None:
                return
            groups = [g for g, s in enumerate(sizes) for _ in range(s)]

        def token_stream(kept) -> G.TokenStream:
            ids = [tk.ids[i] for i in kept]
            s = self.session
            ds = list(deltas_from_ids(s.tokenizer, ids, s.prompt_ids, s.params, [[i] for i in ids],
                                      finish_reason=tk.finish_reason, stop_terminated=tk.stop_terminated))
            return G.TokenStream(s, ds)

        tools = {t["function"]["name"] for t in self.session.setup.request.tools or [] if "function" in t}

        def shown(kept) -> tuple | None:
            """The bug ``kept`` shows in the target's field (its ``mode``), or None."""
            ts = token_stream(kept)
            if groups is None:
                r = self.session.replay(ts.token_deltas)
                got, reference = self.finals(r)
                got, reference = compare.final_of(got), compare.final_of(reference)
            else:
                sizes, run = [], None
                for i in kept:
                    if groups[i] == run:
                        sizes[-1] += 1
                    else:
                        sizes.append(1)
                        run = groups[i]
                _, base = stream(self.session, ts.token_deltas)
                _, var = stream(self.session, ts.deltas(sizes))
                got, reference = compare.final_of(var), compare.final_of(base)
            if not _severe(props.differences(got, reference), target.field):
                return None
            return mode(got, reference, target.field, tools)

        bug = shown(tuple(range(n)))
        if bug is None:  # the finding does not reproduce this way; nothing to shrink
            return

        def fails(kept) -> bool:
            return shown(kept) == bug

        res = shrink.minimal_tokens(fails, n, keep_last=tk.stop_terminated, budget_s=self.opt.text_budget_s)
        ts = token_stream(res.value)
        target.extra["minimal_text"] = {"text": ts.text, "tokens": len(res.value), "of_tokens": n,
                                        "token_positions": list(res.value), "complete": res.complete,
                                        "tests": res.tests, "seconds": round(res.seconds, 2), "mode": list(bug)}
        self.timings["shrink_text"] = time.perf_counter() - t


def check(session: Session, deltas: list[Delta], options: Options | None = None, label: str | None = None) -> Report:
    """Every check over ``deltas`` (``label``: how they are grouped, for the report)."""
    return Checker(session, deltas, options, label).run()


__all__ = ["check", "Checker", "Options", "Report", "ERROR"]
