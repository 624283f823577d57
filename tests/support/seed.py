"""The seed stream and the tools it calls: the texts most tests start from."""

SEED_TEXT = ('<think>Weather is needed.</think>\n\n<tool_call>{"name": "get_weather", '
             '"arguments": {"city": "Paris"}}</tool_call>')

WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                     "unit": {"type": "string"}},
                   "required": ["city"]}}}]

# The same tool marked strict: vLLM's structural tag then pins its parameters' schema too.
STRICT_WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city", "strict": True,
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"], "additionalProperties": False}}}]
