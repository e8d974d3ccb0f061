"""InstTrans-Bench as a benchmark of the run pipeline (SPEC §1–§11): its rules, schema, Judge
prompts, scoring and report live in this package; the record the pipeline runs is built in
eval/insttrans/record.py.

The package itself imports nothing, so that any of its modules (the rules, which shared modules
read) can be imported first without a cycle; `INSTTRANS` is loaded on first use.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "INSTTRANS":
        from eval.insttrans.record import INSTTRANS

        return INSTTRANS
    raise AttributeError(f"module 'eval.insttrans' has no attribute {name!r}")
