"""A finding as a standalone pytest file (or a vLLM replay-test sample), and what it needs
beside it. Reads check's groupings and contract; the doctor's bug report writes one.

    pytest_file.py       a standalone pytest file, or a vLLM replay-test sample
    template.py          the pytest file's template (pastes core/messages.py)
    authored.py          the author's plugin / config, copied beside an exported test that loads it
"""
