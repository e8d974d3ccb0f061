"""The card's `eval/metrics.py`, kept as a face: the shared statistics (eval/scoring/stats.py) and
InstTrans-Bench's aggregation (eval/insttrans/metrics.py) under their public names.

Nothing in the harness imports this module; code imports the two modules it stands for.
"""

from eval.insttrans.metrics import breakdowns, by_constraint, group_metrics, metrics
from eval.scoring.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, bootstrap_ci, headline, mean_or_none, rounded

__all__ = ["BOOTSTRAP_SAMPLES", "BOOTSTRAP_SEED", "bootstrap_ci", "breakdowns", "by_constraint", "group_metrics",
           "headline", "mean_or_none", "metrics", "rounded"]
