"""The card's `eval/prompts.py`, kept as a face: InstTrans-Bench's two Judge prompts
(eval/insttrans/prompts.py) and the fenced blocks every Judge prompt uses (eval/judge/untrusted.py),
under their public names. Nothing in the harness imports this module.
"""

from eval.insttrans.prompts import PROMPT_VERSIONS, render_quality_prompt, render_soft_prompt
from eval.judge.untrusted import delimited_block, delimiter_tag

__all__ = ["PROMPT_VERSIONS", "delimited_block", "delimiter_tag", "render_quality_prompt", "render_soft_prompt"]
