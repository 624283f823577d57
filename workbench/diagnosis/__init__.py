"""`workbench doctor`: why a client sees what it sees, and which part of vLLM made it so.
(Not named ``doctor``: ``workbench.doctor(...)`` is the notebook's function.) It reads check's findings (workbench/check/) and never starts a lane: whether another vLLM
still shows a cause is runs/asked.py's question. Types first: report.py and facts.py
import nothing of the doctor but each other, so no rule has to import its caller back.

    report.py            DoctorReport, DoctorOptions, Diagnosis (PROBLEM, NOTE): what the doctor answers
    facts.py             Facts (what it gathered) and Cause (what it concludes), the classes
    diagnose.py          `workbench doctor`: evidence -> report (diagnose, start_error)
    on_spec.py           the doctor on a RunSpec (the command, a lane's doctor op, the widget)
    causes.py            evidence -> cause classes (parser_streaming, serving, model_output, ...)
    strength.py          the rule that orders causes, as data: the kinds of evidence, strongest first
    modes.py             which parser path a stream-vs-non-stream difference is blamed on: contract, then loss
    finish.py            the finish_reason a client is told vs the engine's: the serving relabel of a cut
    thinking.py          thinking on or off for the request, and thinking the model never closed
    constraint.py        could the engine have produced the text under the request's grammar (xgrammar)
    api_evidence.py      the doctor's evidence for --api responses|messages
    where.py             the file, class and method of a cause, from the composed class
    wrote.py             the line of an author's plugin that wrote the value that differs (sys.settrace)
    literals.py          marker literals a legacy parser's methods compare with (read by ast)
    rank.py              which other registered parser reads the text better: tried, never guessed
    bugreport.py         doctor --report bug.md, and its pytest file beside it (export/)
    config/              the settings around the parser, and a config parser's own fault
"""
