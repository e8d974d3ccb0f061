"""The seed-era name of InstTrans-Bench's strict rule set (SPEC §7b), which lives in
eval/insttrans/strict_rules.py; `from eval.strict_rules import …` keeps working."""

from eval.insttrans.strict_rules import *  # noqa: F401,F403
