"""InstTrans-Bench as a benchmark of the run pipeline (SPEC §1–§11).

Everything that is InstTrans's lives in this package: its rules (`rules`, with the strict
companion `strict_rules` and what both share, `rule_parts`; the official scorer's versions,
`scorer_versions`; eval/constraints.py is the benchmark card's name for `rules`), the Judge's
item, result and verdict forms (`verdicts`), the row schema and bundled layout (`rows`), the
Judge prompts (`prompts`), one instance's score (`scoring`), aggregation (`metrics`), the strict
rates (`strict_summary`), the failure lists (`failures`), report.md (`report`), report.html
(`report_html`), compare's units (`compare`) and manifest.json's entry (`manifest`). `record`
builds the record the pipeline runs.

The package itself imports nothing, so that any of its modules (the rules, which shared modules
read) can be imported first without a cycle; the registry imports `INSTTRANS` from `record`.
"""

from __future__ import annotations
