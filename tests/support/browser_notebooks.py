"""The notebooks the browser tests (and bench/widget_state.py) open: their cells as text."""

TOOLS = '''TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]'''
SCRIPT_A = '<think>Weather is needed.</think><tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
SCRIPT_B = '<think>Rain in Oslo?</think><tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
SEED = SCRIPT_A.replace("</think>", "</think>\n\n")
HARMONY = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
           '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>')
SEPARATE = [
    "import workbench\n" + TOOLS,
    f"a = workbench.show({SCRIPT_A!r}, source='engine', tools=TOOLS)",
    f"b = workbench.show({SCRIPT_B!r}, source='engine', tools=TOOLS)",
]
LOOK = [
    "import workbench\n" + TOOLS,
    f"a = workbench.show({SCRIPT_A!r}, tools=TOOLS)",
    # every kind of row: reasoning, content, tool, no chunk; the seed on /v1/messages, run
    "c = workbench.show('<think>a b</think>Hello  there.\\tok', tool_parser=None, run=True)",
    f"s = workbench.show({SEED!r}, tools=TOOLS, api='messages', run=True)\ns.select(7)\n"
    "s.check()",
    # Harmony: the phase's longest value ("header→commentary to=functions.get_weather") fits
    f"h = workbench.show({HARMONY!r}, tokenizer='gpt_oss', tool_parser='openai', "
    "reasoning_parser='openai_gptoss', tools=TOOLS, run=True)\nh.select(12)",
]
AB = [  # tab 5: A/B (0 rows, 1 final, 2 state machine, 3 check, 4 diagnose)
    "import workbench\n" + TOOLS,
    f"ab = workbench.show({SCRIPT_A!r}, tools=TOOLS, run=True)\n"
    "res = ab.compare('hermes+qwen3', '+qwen3')\nab.tabs.selected_index = 5",
    f"apis = workbench.show({SEED!r}, tools=TOOLS, run=True)\n"
    "both = apis.compare('hermes+qwen3', 'hermes+qwen3', api_a='chat', api_b='messages')\n"
    "apis.tabs.selected_index = 5",
]
