"""Chat templates are data (issue 16, item 3): a template that comes with a request or a
recording renders only when this run says so (--trust-template, --chat-template FILE),
boxed; a recording made with --chat-template FILE names the file and its sha256."""

from __future__ import annotations

import hashlib
import json

BOMB = "{{ ('x' * 100000000) * 50 }}"
# A template of our own: the prompt's ids show which template rendered it.
MINE = ("{% for m in messages %}<|im_start|>{{ m.role }}\nmine: {{ m.content }}<|im_end|>\n{% endfor %}"
        "<|im_start|>assistant\n")
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def _request(tmp, **extra):
    p = tmp / "req.json"
    p.write_text(json.dumps({"messages": MESSAGES, **extra}))
    return p


def _header(path) -> dict:
    return json.loads(path.read_text().splitlines()[0])


def _direct(tokenizer, template: str) -> list[int]:
    """What the tokenizer renders with ``template`` itself, as vLLM's renderer calls it."""
    ids = tokenizer.apply_chat_template(MESSAGES, chat_template=template, tokenize=True, add_generation_prompt=True)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


def test_a_requests_own_chat_template_is_refused_unless_trusted(run_cli, tmp_path):
    req = _request(tmp_path, chat_template=BOMB)
    code, out, err = run_cli("replay", "--text", "hi", "--request", req)
    assert code == 2 and err.count("\n") == 1 and "own chat template (chat_template)" in err, err
    code, out, err = run_cli("replay", "--text", "hi", "--request", req, "--trust-template")
    assert code == 2 and err.count("\n") == 1 and "a template may use" in err, err  # rendered, boxed


def test_a_trusted_request_template_renders_as_the_tokenizer_renders_it(run_cli, tmp_path, qwen3_tokenizer):
    req = _request(tmp_path, chat_template=MINE)
    saved = tmp_path / "r.jsonl"
    code, out, err = run_cli("replay", "--text", "hi", "--request", req, "--trust-template", "--save", saved)
    assert code == 0, err
    assert _header(saved)["prompt_token_ids"] == _direct(qwen3_tokenizer, MINE)
    assert _header(saved)["request"]["chat_template"] == MINE  # kept as data: a replay refuses it again
    assert run_cli("replay", saved)[0] == 0  # its prompt ids are recorded: nothing renders
    lines = saved.read_text().splitlines()
    header = json.loads(lines[0]) | {"prompt_token_ids": []}
    bare = tmp_path / "bare.jsonl"
    bare.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, out, err = run_cli("replay", bare)
    assert code == 2 and "own chat template (chat_template)" in err, err  # the recording's template is data
    assert run_cli("replay", bare, "--trust-template")[0] == 0


def test_chat_template_file_wins_over_the_requests_and_goes_in_the_header(run_cli, tmp_path, qwen3_tokenizer):
    file = tmp_path / "mine.jinja"
    file.write_text(MINE)
    req = _request(tmp_path, chat_template=BOMB)
    saved = tmp_path / "r.jsonl"
    code, out, err = run_cli("replay", "--text", "hi", "--request", req, "--chat-template", file, "--save", saved)
    assert code == 0, err  # the request's template is not rendered: FILE is
    header = _header(saved)
    assert header["prompt_token_ids"] == _direct(qwen3_tokenizer, MINE)
    assert header["chat_template"] == {"file": "mine.jinja", "sha256": hashlib.sha256(file.read_bytes()).hexdigest()}


def test_a_recording_made_with_a_template_file_renders_only_with_it_given(run_cli, tmp_path):
    file, other = tmp_path / "mine.jinja", tmp_path / "other.jinja"
    file.write_text(MINE)
    other.write_text(MINE.replace("mine:", "other:"))
    saved = tmp_path / "r.jsonl"
    assert run_cli("replay", "--text", "hi", "--chat-template", file, "--save", saved)[0] == 0
    lines = saved.read_text().splitlines()
    header = json.loads(lines[0])
    header["prompt_token_ids"] = []  # no prompt ids: replay must render the prompt again
    bare = tmp_path / "bare.jsonl"
    bare.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, out, err = run_cli("replay", bare)
    assert code == 2 and err.count("\n") == 1 and "made with chat template mine.jinja" in err, err
    code, out, err = run_cli("replay", bare, "--chat-template", file, "--json")
    assert code == 0 and "note:" not in err, err
    code, out, err = run_cli("replay", bare, "--chat-template", other, "--json")
    assert code == 0 and "chat template differs from the mine.jinja" in err, err
    code, out, err = run_cli("replay", saved, "--json")  # its prompt ids are recorded: no template needed
    assert code == 0 and "note:" not in err, err


def _sse_log(tmp):
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
              {"choices": [{"index": 0, "delta": {"content": "Sunny."}, "finish_reason": "stop"}]}]
    log = tmp / "log.sse"
    log.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    return log


def test_capture_takes_a_template_file_and_refuses_a_requests_template(run_cli, tmp_path, qwen3_tokenizer):
    file = tmp_path / "mine.jinja"
    file.write_text(MINE)
    rec = tmp_path / "c.jsonl"
    code, out, err = run_cli("capture", "--from-sse", _sse_log(tmp_path), "--request", _request(tmp_path),
                             "--chat-template", file, "-o", rec)
    assert code == 0, err
    header = _header(rec)
    assert header["chat_template"]["file"] == "mine.jinja"
    assert header["prompt_token_ids"] == _direct(qwen3_tokenizer, MINE)
    rec2 = tmp_path / "c2.jsonl"
    code, out, err = run_cli("capture", "--from-sse", _sse_log(tmp_path), "--request",
                             _request(tmp_path, chat_template=BOMB), "-o", rec2)
    assert code == 2 and err.count("\n") == 1 and "own chat template" in err and not rec2.exists(), err
