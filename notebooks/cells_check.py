"""The "Check yourself" cells that end every notebook (written by notebooks/build.py)."""

# The last cell of every notebook: each answer is computed from the notebook's live objects and
# compared with the answer its text gives; a wrong one raises, and the notebook's test fails.
CHECK_MD = ("md", """## Check yourself

Answer the questions in the next cell's comments first, then run it: it computes each answer
from the objects above and checks it against the answer this notebook gives (an `AssertionError`
means the two disagree).""")
CHECK_TAIL = """
for question, (answer, expected) in ANSWERS.items():
    assert answer == expected, f"{question}: the stream says {answer!r}, this notebook says {expected!r}"
    print(f"✓ {question}: {answer!r}")"""
