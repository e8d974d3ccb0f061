"""The seed's name for InstTrans-Bench's constraint table and hard rules, which live in
eval/insttrans/rules.py (the benchmark's own package): `from eval.constraints import CONSTRAINTS,
RULE_SETS, RULE_TABLE, …` keeps working. Modules inside eval/ import eval.insttrans.rules."""

from eval.insttrans.rules import *  # noqa: F401,F403
