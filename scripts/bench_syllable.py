"""Speed of eval/syllable/ (docs/syllables.md): 10,000 subtitle lines mixed over the 22 languages.

Usage: python -m scripts.bench_syllable [--lines N] [--seed S]

Lines are built from the hand-labelled phrases (tests/data/syllable_gold/) and the bundled data's
reference translations, one or two phrases of at most 80 characters per line plus a random number, so that most lines are
new to the word cache. Reports start-up (import and the lazy loading of the CMU dictionary,
the MeCab tagger and num2words), the counting time with a cold word cache and again warm, and
the memory (tracemalloc peak while counting, and the process's maximum RSS).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LANGS = "zh en ja ko vi es de fr it pt ru ro pl sv nl tr id ms ar fil th hi".split()


def phrases_by_language() -> dict[str, list[str]]:
    phrases = {lang: [] for lang in LANGS}
    for lang in LANGS:
        path = ROOT / "tests" / "data" / "syllable_gold" / f"{lang}.tsv"
        if path.exists():
            for line in path.read_text(encoding="utf-8").split("\n")[1:]:
                if line and not line.startswith("#"):
                    phrases[lang].append(line.split("\t")[0])
    data = ROOT / "data" / "test.jsonl"
    if data.exists():
        for line in data.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                if row.get("target_lang") in phrases and row.get("reference"):
                    phrases[row["target_lang"]].extend(
                        piece for piece in row["reference"].split("\n") if 0 < len(piece) <= 80)
    for lang in LANGS:
        if not phrases[lang]:
            phrases[lang] = ["Hello world"]
    return phrases


def build_lines(count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    phrases = phrases_by_language()
    lines = []
    for index in range(count):
        lang = LANGS[index % len(LANGS)]
        parts = rng.sample(phrases[lang], min(len(phrases[lang]), rng.randint(1, 2)))
        if rng.random() < 0.3:
            parts.append(str(rng.randint(0, 5000)))
        lines.append(("  ".join(parts), lang))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    lines = build_lines(args.lines, args.seed)

    started = time.perf_counter()
    from eval import syllable

    for lang in LANGS:  # the lazy resources are loaded here, once
        syllable.count_syllables("2024 Hello 東京 こんにちは", lang)
    startup = time.perf_counter() - started

    def clear_caches():
        for cached in (syllable._latin_word_syllables, syllable._latin_token_syllables,
                       syllable._integer_syllables, syllable._number_syllables,
                       syllable._thai_syllables, syllable._hindi_word_syllables,
                       syllable._arabic_word_syllables, syllable._cyrillic_token_syllables):
            cached.cache_clear()

    clear_caches()
    started, cpu_started = time.perf_counter(), time.process_time()
    total = sum(syllable.count_syllables(text, lang) for text, lang in lines)
    cold, cold_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    started, cpu_started = time.perf_counter(), time.process_time()
    sum(syllable.count_syllables(text, lang) for text, lang in lines)
    warm, warm_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    clear_caches()
    tracemalloc.start()
    sum(syllable.count_syllables(text, lang) for text, lang in lines)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(f"lines: {len(lines)} over {len(LANGS)} languages, {sum(len(t) for t, _ in lines):,} characters, "
          f"{total:,} syllables")
    print(f"start-up (import + lazy resources): {startup:.2f} s")
    print(f"counting, cold word cache:          {cold:.3f} s wall, {cold_cpu:.3f} s CPU")
    print(f"counting, warm word cache:          {warm:.3f} s wall, {warm_cpu:.3f} s CPU")
    print(f"peak memory while counting (tracemalloc): {peak / 2**20:.1f} MiB; process max RSS: {rss_mb:.0f} MiB")


if __name__ == "__main__":
    main()
