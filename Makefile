# The README's two commands: `make demo` and `make test`. Both run `setup` first.
SHELL := /bin/bash
PY := .venv/bin/python
export VLLM_ENABLE_V1_MULTIPROCESSING ?= 0
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export VLLM_NO_USAGE_STATS ?= 1
export DO_NOT_TRACK ?= 1
export NO_MKDOCS_2_WARNING ?= 1  # mkdocs-material 9.8 prints a notice about its successor on every build

.PHONY: setup demo test test-e2e test-slow lab bench docs docs-serve js-check clean

setup:  # the dev set-up: Ray too, so the corpus tests run it
	@bash setup/setup.sh --with-ray

demo: setup
	@$(PY) -m workbench.cli.demo

# Two worker processes (one per core of CI's machine; tests/support/workers.py says which tests
# share one), then the timing-sensitive tests alone; both parts run, and either failing fails it.
# The end-to-end tests (chromium driving JupyterLab, each notebook top to bottom in a kernel of
# its own) are `make test-e2e`; .ci/run runs both.
WORKERS ?= 2
E2E := browser or notebook
test: setup
	@$(PY) -m pytest -q -n $(WORKERS) --dist loadgroup --durations=60 -m "not slow and not serial and not ($(E2E))" tests; a=$$?; \
	  $(PY) -m pytest -q --durations=5 -m "serial and not slow and not ($(E2E))" tests; b=$$?; exit $$(( a > b ? a : b ))

test-e2e: setup
	@$(PY) -m pytest -q -n $(WORKERS) --dist loadgroup --durations=20 -m "($(E2E)) and not slow" tests

test-slow: setup
	@$(PY) -m pytest -q -m slow tests

lab: setup
	@.venv/bin/jupyter lab notebooks/

bench: setup
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# The docs site (mkdocs-material, docs/ + mkdocs.yml): the CLI reference and the benchmarks' latest
# figures are regenerated first (docs/gen_cli.py, docs/gen_api.py, docs/gen_bench.py); --strict fails on a broken link
# or a missing page (tests/docs/test_site.py runs the same build in `make test`).
docs: setup
	@$(PY) docs/gen_cli.py && $(PY) docs/gen_api.py && $(PY) docs/gen_bench.py && .venv/bin/mkdocs build --strict --quiet && echo "docs: site/index.html"

docs-serve: setup
	@$(PY) docs/gen_cli.py && $(PY) docs/gen_api.py && $(PY) docs/gen_bench.py && .venv/bin/mkdocs serve --dev-addr 127.0.0.1:8000

# The committed JS bundles (workbench/ui/static/editor.js, diagram.js, THIRD_PARTY_NOTICES) must be
# what js/ builds: npm ci from the registry, build into a scratch folder, compare byte for byte.
js-check:
	@out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && cd js && npm ci --no-audit --no-fund --loglevel=error && \
	  OUT_DIR=$$out npm run --silent build && for f in "$$out"/*; do \
	    cmp -s "$$f" "../workbench/ui/static/$${f##*/}" || { echo "js-check: workbench/ui/static/$${f##*/} is not what js/ builds (cd js && npm ci && npm run build, then commit it)"; exit 1; }; \
	  done && echo "js-check: the bundles rebuild byte-identical from js/"

clean:
	rm -rf .venv .cache site
