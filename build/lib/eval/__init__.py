"""InstTrans-Bench evaluation harness: data, rules, syllables, Judge, metrics."""

__version__ = "0.1.0"
