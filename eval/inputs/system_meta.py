"""The provenance of a predictions file, as evaluate.py reports it (SPEC §11 `system`, §13).

predict.py writes `<predictions stem>.meta.json` beside its output (`predictions.jsonl` ->
`predictions.meta.json`); evaluate.py looks for exactly that name beside `--predictions`, so two
prediction files in one directory never share a meta file. The summary's `system` block is that
file's description of the system (model asked for and reported, host, parameters, engine, counts,
usage); a meta whose inputs hash differs from the scored data's model inputs is a warning.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from eval.io.outputs import jsonl_line

SYSTEM_FIELDS = ("model", "model_reported", "models_reported", "endpoint_kind", "host", "params", "engine",
                 "started_at", "finished_at", "complete", "counts", "usage", "gateway")


def meta_path_for(predictions_path: Path) -> Path:
    """`<stem>.meta.json` in the same directory: the one rule predict.py and evaluate.py share."""
    path = Path(predictions_path)
    return path.with_name(path.stem + ".meta.json")


def inputs_sha256(rows: list[dict], model_input: Callable[[dict], dict]) -> str:
    """SHA-256 of the bytes prepare_inputs.py exports for `rows` (what predict.py hashes)."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(jsonl_line(model_input(row)).encode("utf-8"))
    return digest.hexdigest()


def load_system_meta(predictions_path: Path, expected_inputs_sha256: str | None) -> tuple[dict | None, list[str]]:
    """(the summary's `system` block or None, warnings) for a predictions file.

    No meta file: (None, []). A meta file that cannot be read is a warning, never an error: it
    describes the predictions, it does not change a score.
    """
    path = meta_path_for(predictions_path)
    if not path.is_file():
        return None, []
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        return None, [f"{path}: the provenance file cannot be read ({type(error).__name__}); system not reported"]
    if not isinstance(meta, dict) or not isinstance(meta.get("model"), str):
        return None, [f"{path}: not a provenance file written by predict.py; system not reported"]
    system = {name: meta.get(name) for name in SYSTEM_FIELDS}
    recorded = (meta.get("inputs") or {}).get("sha256") if isinstance(meta.get("inputs"), dict) else None
    system["inputs_sha256"] = recorded
    system["inputs_match"] = None if expected_inputs_sha256 is None else recorded == expected_inputs_sha256
    system["meta_path"] = str(path)
    warnings = [f"{path.name}: {warning}" for warning in (meta.get("warnings") if isinstance(meta.get("warnings"), list) else [])
                if isinstance(warning, str)]
    if system["inputs_match"] is False:
        warnings.append(f"{path.name}: the predictions answer other inputs (sha256 {str(recorded)[:12]}) than the "
                        f"scored data's model inputs ({expected_inputs_sha256[:12]}): other data, another --limit, "
                        "or edited prompts")
    counts = meta.get("counts") if isinstance(meta.get("counts"), dict) else {}
    if meta.get("complete") is False:
        warnings.append(f"{path.name}: predict.py did not finish ({counts.get('written')} of "
                        f"{counts.get('inputs')} inputs answered)")
    return system, warnings


def system_summary(predictions_path: Path, rows: list[dict], model_input: Callable[[dict], dict],
                   all_rows: list[dict] | None = None) -> tuple[dict | None, list[str], tuple[str, ...]]:
    """What a summary builder needs: (the `system` block with its `warnings`, the warnings, the
    signature parts), the inputs hash
    recomputed from the scored rows as prepare_inputs.py would export them. Predictions made for
    all of the data (`all_rows`) match a run that scores part of it (--limit, --case-ids)."""
    if not meta_path_for(predictions_path).is_file():  # no provenance: nothing to compare the hash with
        return None, [], ()
    system, warnings = load_system_meta(predictions_path, inputs_sha256(rows, model_input))
    if system and system["inputs_match"] is False and all_rows is not None and len(all_rows) != len(rows):
        full = inputs_sha256(all_rows, model_input)
        if system["inputs_sha256"] == full:
            system, warnings = load_system_meta(predictions_path, full)
            system["inputs_scope"] = "all data rows (part of them scored)"
    if system is None and warnings:  # a meta file is there but cannot be used: say so in the summary
        system = {"model": None, "meta_path": str(meta_path_for(predictions_path))}
    if system is not None:
        system["warnings"] = warnings
    part = system_signature_part(system)
    return system, warnings, (part,) if part else ()


def system_signature_part(system: dict | None) -> str | None:
    """`system:<model asked for>` for the signature, or None when no meta was found."""
    if not system or not isinstance(system.get("model"), str):
        return None
    return "system:" + "".join("_" if char in "|" or char.isspace() else char for char in system["model"])


# Names by which a server says what software it is: a /models entry's `owned_by` (vLLM "vllm",
# llama-server "llamacpp"; llama-cpp-python's "me", OpenAI's "system" name no software) or a
# response header (`server: llama.cpp`, `x-vllm-version`). Anything else is "unknown".
_OWNERS = {"vllm": "vLLM", "llamacpp": "llama.cpp", "llama.cpp": "llama.cpp", "sglang": "SGLang",
           "ollama": "Ollama", "lmstudio": "LM Studio", "tgi": "TGI", "text-generation-inference": "TGI"}


def engine_software(engine: dict) -> str:
    """The serving software where the server says so (docs/predict.md), else "unknown"."""
    owner = engine.get("owned_by")
    if isinstance(owner, str) and owner.strip().lower() in _OWNERS:
        return _OWNERS[owner.strip().lower()]
    for header in ("header.x-vllm-version", "header.llm_provider-x-vllm-version"):
        if isinstance(engine.get(header), str):
            return f"vLLM {engine[header][:40]}"
    server = engine.get("header.server")
    if isinstance(server, str):
        lowered = server.lower()
        for marker, name in (("llama.cpp", "llama.cpp"), ("vllm", "vLLM"), ("ollama", "Ollama"), ("sglang", "SGLang"),
                             ("text-generation-inference", "TGI")):
            if marker in lowered:
                return f"{name} ({server[:60]})" if server.strip().lower() != marker else name
    return "unknown"


def system_report_lines(system: dict | None) -> list[str]:
    """The report.md lines that describe the system (one line, plus one per warning)."""
    lines = []
    warnings = (system or {}).get("warnings") or []
    if system and system.get("model"):
        counts = system.get("counts") or {}
        usage = system.get("usage") or {}
        reported = system.get("model_reported")
        engine_name = engine_software(system.get("engine") or {})
        params = json.dumps(system.get("params") or {}, ensure_ascii=False, sort_keys=True)
        lines.append(
            f"- System: {system['model']}"
            + (f" (reported {reported})" if reported and reported != system["model"] else "")
            + f" at {system.get('host')} via {system.get('endpoint_kind')}"
            + f", engine {engine_name}"
            + f"; params {params}; {counts.get('answered')} answered, {counts.get('truncated')} truncated, "
              f"{counts.get('empty')} empty, {counts.get('reasoning_returned')} with separate reasoning; "
              f"tokens in {usage.get('input_tokens')}, out {usage.get('output_tokens')}")
    else:
        lines.append("- System: not recorded" + ("" if system else
                                                  " (no <predictions stem>.meta.json beside the predictions)"))
    lines += [f"- Warning: {warning}" for warning in warnings]
    return lines
