"""The doctor's configuration side: settings that make a right parser look wrong, and where a
config parser's (TOML) fault lives in the author's file.

    diagnoses.py         the settings' diagnoses (run returns them: Found), tools off, thinking, a cut call
    chat_templates.py    which shipped chat template teaches the text's tool-call markup (the served one does not)
    segments.py          Fired and Segment: the terminals that fired and the text cut at them
    where.py             a config parser's cause: the transition and terminal at the failing step, its lines
    readings.py          how the text at that step reads: a terminal inside JSON arguments, a marker cut short
    fixes.py             the author's fix as TOML: a raw JSON body, a converter that differs or is not JSON
    family.py            whose fault it is: vLLM's configs with the same transitions, run on the same text
"""
