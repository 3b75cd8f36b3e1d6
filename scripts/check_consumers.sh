#!/usr/bin/env bash
# Loads every export of a workspace with its consumer's own code, for a person to run
# before a release (not part of `cargo test`: it installs large packages).
#
#   scripts/check_consumers.sh WORKSPACE [AGENT_STUDIO_CHECKOUT]
#
# WORKSPACE is a synth workspace with validated tasks and trajectories (for example
# after `synth --workspace WORKSPACE run`). The script exports every format into
# WORKSPACE/generated/consumers/<format>/, and every format with image paths but
# openai once more with `--image-paths absolute` into
# WORKSPACE/generated/consumers-absolute/<format>/, with SYNTH (default: this repository's
# release binary, built with cargo) and runs scripts/check_consumers.py on them in
# two virtual environments under VENVS (default WORKSPACE/.venv-consumers), since
# LLaMA-Factory and ms-swift pin different versions of `datasets`:
# - llamafactory: LLaMA-Factory 0.9.5 (sharegpt);
# - swift: ms-swift 4.6.0, openai, and what AgentStudio's evaluation code imports
#   (qwen, openai, grounding, idm, critic, osworld, omnibench).
# Both pull PyTorch (several GB; pip's cache shares it). With OSWORLD=1 a third
# environment gets OSWorld's own package (PyPI desktop-env 1.0.2, with its own
# PyTorch pin) and checks osworld there: its SetupController runs every task's
# setup against a stand-in VM server on 127.0.0.1. Each run prints the records each
# consumer loaded and ends with "N passed, M failed"; the script fails when any does.
#
# AgentStudio's evaluation code is not on PyPI: give a checkout of its repository
# (github.com/SkyworkAI/agent-studio) as the second argument to check grounding, idm
# and critic with it; without one they are reported as skipped.
set -euo pipefail

ws=${1:?usage: scripts/check_consumers.sh WORKSPACE [AGENT_STUDIO_CHECKOUT]}
ws=$(cd "$ws" && pwd)
agent_studio=${2:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
venvs=${VENVS:-$ws/.venv-consumers}
out=$ws/generated/consumers
# torchaudio lags behind torch: keep the pair LLaMA-Factory imports in step.
torch=("torch==2.11.*" "torchaudio==2.11.*" "torchvision<0.27")

venv() {
    local name=$1
    shift
    if [ ! -x "$venvs/$name/bin/python" ]; then
        python3 -m venv "$venvs/$name"
    fi
    "$venvs/$name/bin/pip" install --quiet "$@"
}
venv llamafactory "llamafactory==0.9.5" "${torch[@]}"
venv swift "ms-swift==4.6.0" "${torch[@]}" openai pydantic \
    numpy pillow opencv-python-headless jinja2 matplotlib tqdm
if [ "${OSWORLD:-0}" = 1 ]; then
    venv osworld "desktop-env==1.0.2"
fi

if [ -n "${SYNTH:-}" ]; then
    synth=("$SYNTH")
else
    cargo build --release --locked --manifest-path "$repo/Cargo.toml"
    synth=("${CARGO_TARGET_DIR:-$repo/target}/release/synth")
fi
for format in sharegpt qwen openai grounding idm critic osworld omnibench; do
    "${synth[@]}" --workspace "$ws" --quiet export --format "$format" --out "$out/$format"
done
# The same formats with --image-paths absolute (openai and osworld have no such
# option): each consumer must then load them without being told where they are.
absolute=sharegpt,qwen,grounding,idm,critic,omnibench
for format in ${absolute//,/ }; do
    "${synth[@]}" --workspace "$ws" --quiet export --format "$format" \
        --image-paths absolute --out "$out-absolute/$format"
done

status=0
"$venvs/llamafactory/bin/python" "$repo/scripts/check_consumers.py" \
    --exports "$out" --only sharegpt || status=1
"$venvs/llamafactory/bin/python" "$repo/scripts/check_consumers.py" \
    --exports "$out-absolute" --only sharegpt --absolute || status=1
if [ "${OSWORLD:-0}" = 1 ]; then
    "$venvs/osworld/bin/python" "$repo/scripts/check_consumers.py" \
        --exports "$out" --only osworld || status=1
    rest=qwen,openai,grounding,idm,critic,omnibench
else
    rest=qwen,openai,grounding,idm,critic,osworld,omnibench
fi
args=(--exports "$out" --only "$rest")
if [ -n "$agent_studio" ]; then
    args+=(--agent-studio "$agent_studio")
fi
"$venvs/swift/bin/python" "$repo/scripts/check_consumers.py" "${args[@]}" || status=1
args=(--exports "$out-absolute" --only "${absolute#sharegpt,}" --absolute)
if [ -n "$agent_studio" ]; then
    args+=(--agent-studio "$agent_studio")
fi
"$venvs/swift/bin/python" "$repo/scripts/check_consumers.py" "${args[@]}" || status=1
exit $status
