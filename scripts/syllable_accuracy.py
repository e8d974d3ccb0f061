"""Accuracy of eval/syllable/ (docs/syllables.md) on the hand-labelled set and on a CMU dictionary sample.

Usage: python -m scripts.syllable_accuracy [--gold-dir DIR] [--cmu-sample N] [--seed S] [--misses]

Prints, per language, the number of labelled phrases, exact-match %, within-±1 % and the tier;
then, for English, the exact-match rate on a seeded random sample of CMU dictionary words counted
(a) by the spelling rules alone (the fallback, never tuned on these words) and (b) by the lookup
path that `count_syllables` actually uses.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from eval import syllable

GOLD_DIR = ROOT / "tests" / "data" / "syllable_gold"


def load_gold(path: Path) -> list[tuple[str, int, str]]:
    """Rows (text, syllables, breakdown); header and `#` comment lines skipped."""
    rows = []
    lines = path.read_text(encoding="utf-8").split("\n")
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\r").split("\t")
        if fields[0] == "text" and len(fields) > 1 and fields[1] == "syllables":
            continue
        if len(fields) < 2:
            continue
        try:
            count = int(fields[1])
        except ValueError:
            continue
        rows.append((fields[0], count, fields[2] if len(fields) > 2 else ""))
    return rows


def gold_table(gold_dir: Path, show_misses: bool = False) -> list[dict]:
    results = []
    for lang in syllable.SUPPORTED_LANGS:
        path = gold_dir / f"{lang}.tsv"
        if not path.exists():
            results.append({"lang": lang, "n": 0, "tier": syllable.TIERS[lang]})
            continue
        rows = load_gold(path)
        exact = within = 0
        for text, expected, breakdown in rows:
            got = syllable.count_syllables(text, lang)
            exact += got == expected
            within += abs(got - expected) <= 1
            if show_misses and got != expected:
                print(f"  MISS {lang} got={got} gold={expected} | {text} | {breakdown}")
        results.append({"lang": lang, "n": len(rows), "exact": exact, "within": within,
                        "tier": syllable.TIERS[lang]})
    return results


def cmu_sample(size: int, seed: int) -> tuple[int, float, float]:
    """(n, rule-only exact %, lookup-path exact %) on alphabetic CMU words."""
    counts = syllable._cmu_syllables()
    words = sorted(w for w in counts if w.isalpha() and w.isascii())
    sample = random.Random(seed).sample(words, min(size, len(words)))
    rules = sum(syllable.english_rule_syllables(w) == counts[w] for w in sample)
    lookup = sum(syllable.count_syllables(w, "en") == counts[w] for w in sample)
    return len(sample), 100 * rules / len(sample), 100 * lookup / len(sample)


def table_lines(results: list[dict]) -> list[str]:
    """The per-language Markdown table docs/syllables.md shows (a test compares the two)."""
    lines = ["| lang | tier | n | exact % | within ±1 % |", "|---|---|---:|---:|---:|"]
    total_n = total_exact = total_within = 0
    for row in results:
        if not row["n"]:
            lines.append(f"| {row['lang']} | {row['tier']} | 0 | – | – |")
            continue
        total_n += row["n"]
        total_exact += row["exact"]
        total_within += row["within"]
        lines.append(f"| {row['lang']} | {row['tier']} | {row['n']} | {100 * row['exact'] / row['n']:.1f} "
                     f"| {100 * row['within'] / row['n']:.1f} |")
    if total_n:
        lines.append(f"| all | | {total_n} | {100 * total_exact / total_n:.1f} | {100 * total_within / total_n:.1f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", type=Path, default=GOLD_DIR)
    parser.add_argument("--cmu-sample", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--misses", action="store_true", help="print every mismatch")
    args = parser.parse_args()

    results = gold_table(args.gold_dir, args.misses)
    print("\n".join(table_lines(results)))
    for tier in ("high", "medium", "approximate"):
        rows = [r for r in results if r["tier"] == tier and r["n"]]
        n = sum(r["n"] for r in rows)
        if n:
            print(f"tier {tier}: n={n} exact {100 * sum(r['exact'] for r in rows) / n:.1f}% "
                  f"within ±1 {100 * sum(r['within'] for r in rows) / n:.1f}%")
    if args.cmu_sample:
        n, rules, lookup = cmu_sample(args.cmu_sample, args.seed)
        print(f"\nEnglish, {n} random CMU dictionary words (seed {args.seed}): "
              f"spelling rules alone {rules:.1f}% exact; lookup path {lookup:.1f}% exact")


if __name__ == "__main__":
    main()
