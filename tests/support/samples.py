"""Texts every tokenizer is held to: fixed edge cases and 200 seeded random ones."""

from __future__ import annotations

import random

QWEN_MARKERS = {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645,
                "<tool_call>": 151657, "</tool_call>": 151658, "<tool_response>": 151665,
                "</tool_response>": 151666, "<think>": 151667, "</think>": 151668}


def _samples() -> list[str]:
    fixed = [
        "Hello world!", " leading space", "trailing space ",
        "  two  spaces\t\ttabs\n\n\nlines\r\n", "\u00a0\u2009\u3000 odd spaces",
        "\u200b\u200d zero width",
        "你好，世界！今天天气怎么样？", "東京タワーは333メートルです。", "한국어 문장입니다",
        "Ελληνικά και русский", "مرحبا بالعالم", "हिन्दी पाठ", "ภาษาไทย", "Tiếng Việt có dấu",
        "😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️‍🔥", "emoji😀inside😀words",
        # NFC-sensitive: decomposed forms must tokenize as their composed forms.
        "cafe\u0301 vs caf\u00e9", "A\u030a vs \u00c5 vs \u212b", "\u1100\u1161\u11a8 jamo",
        "ﬁ ligature ①②③ ｆｕｌｌ", "e\u0301\u0302 stacked", "> then \u0338 combining",
        "</think>\u0338 a marker then a combining mark",
        "I'M you'RE we'll they'd it's", "12345678901234567890", "3.14159 -42 1e10 0x1F",
        'def f(x):\n    return {"a": [1, 2]}\n',
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        "<b>html</b> &amp; <tag attr='1'>", "<think>\nreasoning\n</think>\n\nanswer",
        '<tool_call>\n{"name": "f"}\n</tool_call>', "<tool_response>\nok\n</tool_response>",
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
        "text<think>glued</think>text", "<|endoftext|><|endoftext|>", "<thinking> is not <think>",
        "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>",
    ]
    rng = random.Random(20261129)
    ranges = [(0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x400, 0x4FF), (0x600, 0x6FF),
              (0x900, 0x97F), (0x1100, 0x11FF), (0x3040, 0x30FF), (0x4E00, 0x9FFF),
              (0xAC00, 0xD7A3), (0x1F300, 0x1FAFF), (0xFF00, 0xFFEF)]
    pieces = [" ", "  ", "\n", "\n\n", "\t", "'s", "'LL", "123", '{"k": 1}', *QWEN_MARKERS]
    generated = []
    for _ in range(200):
        parts = []
        for _ in range(rng.randint(1, 10)):
            if rng.random() < 0.6:
                lo, hi = rng.choice(ranges)
                parts.append("".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 8))))
            else:
                parts.append(rng.choice(pieces))
        generated.append("".join(parts))
    return fixed + generated


SAMPLES = _samples()
