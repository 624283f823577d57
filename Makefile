# The README's two commands: `make demo` and `make test`. Both run `setup` first.
SHELL := /bin/bash
PY := .venv/bin/python
export VLLM_ENABLE_V1_MULTIPROCESSING ?= 0
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export VLLM_NO_USAGE_STATS ?= 1
export DO_NOT_TRACK ?= 1

.PHONY: setup demo test test-slow lab bench clean

setup:
	@bash setup/setup.sh

demo: setup
	@$(PY) -m workbench.demo

test: setup
	@$(PY) -m pytest -q tests

test-slow: setup
	@$(PY) -m pytest -q -m slow tests

lab: setup
	@.venv/bin/jupyter lab notebooks/

bench: setup
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf .venv .cache
