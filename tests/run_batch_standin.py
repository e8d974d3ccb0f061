"""A stand-in for vLLM's `run_batch` (and the OpenAI Batch API's output files) over a real local
server: each request line's body is posted unchanged to `{base}{url}` and the reply written as an
output line. vLLM writes a failed request as `response.body: null` and `error: "<message>"`; the
OpenAI Batch API puts it in a separate error file (`response: null`, `error: {code, message}`).

    python tests/run_batch_standin.py --base http://127.0.0.1:PORT/v1 -i requests.jsonl -o output.jsonl --model M
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval.providers.batch_files import body_bytes  # noqa: E402


def run_batch(base_url: str, requests: Path, output: Path, *, style: str = "vllm", drop=frozenset(),
              key: str = "stand-in-key") -> list[Path]:
    """Answer every line of `requests` (except the custom_ids in `drop`); returns the files written."""
    import httpx

    out, errors = [], []
    with httpx.Client(timeout=30.0) as client:
        for number, raw in enumerate(Path(requests).read_bytes().splitlines(keepends=True)):
            line = json.loads(raw)
            if line["custom_id"] in drop:
                continue
            reply = client.post(base_url.rstrip("/") + line["url"].removeprefix("/v1"), content=body_bytes(raw),
                                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            body = reply.json()
            entry = {"id": f"batch_req_{number}", "custom_id": line["custom_id"],
                     "response": {"status_code": reply.status_code, "request_id": f"req_{number}", "body": body},
                     "error": None}
            if reply.status_code != 200:
                message = (body.get("error") or {}).get("message", f"HTTP {reply.status_code}")
                if style == "vllm":
                    entry.update(response={"status_code": reply.status_code, "request_id": f"req_{number}",
                                           "body": None}, error=message)
                else:
                    entry.update(response=None, error={"code": "server_error", "message": message})
                    errors.append(entry)
                    continue
            out.append(entry)
    Path(output).write_text("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in out), encoding="utf-8")
    if style == "openai":
        error_file = Path(output).with_name(Path(output).stem + ".errors.jsonl")
        error_file.write_text("".join(json.dumps(entry) + "\n" for entry in errors), encoding="utf-8")
        return [Path(output), error_file]
    return [Path(output)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="vLLM run_batch over a local OpenAI-compatible server.")
    parser.add_argument("--base", required=True)
    parser.add_argument("-i", "--input-file", type=Path, required=True)
    parser.add_argument("-o", "--output-file", type=Path, required=True)
    parser.add_argument("--model", required=True, help="accepted as vLLM does; the lines name their model")
    args = parser.parse_args(argv)
    run_batch(args.base, args.input_file, args.output_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
