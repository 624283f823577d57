"""Parser workbench: see every delta vLLM's reasoning and tool parsers produce.

    errors.py     WorkbenchError: bad input, one line (CLI exit 2; 1 for parser failures)
    __main__.py   `python -m workbench` runs the CLI
    core/         the widget-free core (never imports ipywidgets/IPython; vLLM imported lazily)
    engine/       one in-process v1 LLMEngine stepped into rows
    check/        the properties of one stream: stream vs non-stream, groupings, contract, shrink
    export/       a finding as a standalone pytest file
    diagnosis/    `workbench doctor`: evidence -> causes, where in vLLM, the settings; the report
    lanes/        other vLLM versions, parse-only, one worker process each
    capture/      a real (maybe hostile) server's stream as a recording
    rustfe/       vLLM's Rust frontend (vllm-rs from a lane's wheel) beside the Python one
    runs/         where a RunSpec runs: here, a lane's vLLM, vllm-rs; per-version reports
    corpus/       `workbench corpus`: every recording under folders, on a pool or Ray
    conformance/  `workbench matrix`: cases per parser (parsers/cases) over versions, frontends, APIs
    pages/        widget-free HTML: the table component in a page without a kernel
    ui/           the notebook layer (ipywidgets, the anywidget table)
    cli/          the `workbench` command

Lazy names: ``Workbench``, ``show``, ``parsers``, ``require_gpu``, ``NoGPU`` (ui), ``faces``
(ui.api_frames), ``table`` (ui.frame_table), ``doctor`` (ui.diagnose), ``flags`` (ui.api),
``side_by_side`` (rustfe.frames), ``matrix`` (ui.matrix_view), ``corpus`` (the package, callable).
Every package's docstring maps its modules.
"""

from workbench.core import env  # noqa: F401
from workbench.errors import WorkbenchError

__all__ = ["WorkbenchError", "Workbench", "show", "parsers", "require_gpu", "NoGPU", "corpus", "matrix",
           "faces", "side_by_side", "doctor", "flags", "table"]


def __getattr__(name: str):
    # Lazy: `import workbench` must not load ipywidgets (or vLLM).
    if name in ("Workbench", "show", "parsers", "require_gpu", "NoGPU"):
        import workbench.ui as ui

        return getattr(ui, name)
    if name == "doctor":  # workbench.doctor(text, ...): the Diagnose tab's DoctorReport, from Python
        from workbench.ui.diagnose import doctor

        return doctor
    if name == "flags":  # workbench.flags("--tool-call-parser hermes ..."): a server's flags as settings
        from workbench.ui.api import flags

        return flags
    if name == "faces":  # workbench.faces(wb): the widget's stream on Chat, Responses and Messages
        from workbench.ui.api_frames import faces

        return faces
    if name == "table":  # workbench.table(frame): a DataFrame in the widget's table, nothing cut
        from workbench.ui.frame_table import table

        return table
    if name == "side_by_side":  # one stream through the Python parsers and vllm-rs's (rustfe.frames)
        from workbench.rustfe.frames import side_by_side

        return side_by_side
    if name == "matrix":  # workbench.matrix("parsers/cases/hermes", ...) -> DataFrame, the summary drawn
        from workbench.ui.matrix_view import matrix

        return matrix
    if name == "corpus":  # the package, callable: workbench.corpus("folder/", ...) -> DataFrame
        import workbench.corpus

        return workbench.corpus
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")
