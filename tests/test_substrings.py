"""Lists of many items are read in one pass (issue 34 item 13): eval/scoring/substrings.py gives exactly
the per-item tests' answers, and every rule and validator that reads a glossary, social elements,
a term_dict or assets grows linearly with the number of items (a ratio, never a fixed time)."""

from __future__ import annotations

import random
import re
import time

import pytest

from eval.insttrans.rules import (_is_standalone_term, check_social_preserve, check_term_compliance,
                                  check_term_compliance_1005, term_occurs, term_occurs_1005)
from eval.scoring.substrings import SMALL, occurring
from scripts.bench_hostile import list_cases, time_list_case

ALPHABET = "ab _-.é中か1\u00a0한ไ、"  # word and non-word characters, CJK and kana, a no-break space


def naive(items, text, standalone=None):
    """The per-item tests the automaton replaces, written out."""
    found = set()
    for item in items:
        if standalone is not None and standalone(item):
            if re.search(rf"(?<!\w){re.escape(item)}(?!\w)", text):
                found.add(item)
        elif item in text:
            found.add(item)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_occurring_is_the_per_item_test_on_random_texts(seed):
    rng = random.Random(seed)
    for _ in range(300):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 80)))
        items = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 5)))
                 for _ in range(rng.randint(SMALL + 1, 90))]
        items += [text[i:j] for i, j in sorted((rng.randint(0, len(text)), rng.randint(0, len(text)))
                                                for _ in range(10)) if j > i]  # items that do occur
        for standalone in (None, _is_standalone_term, lambda item: True):
            assert occurring(items, text, standalone) == naive(items, text, standalone), (text, items)


def test_nested_and_repeated_items_are_each_found_where_they_stand_alone():
    items = [f"a{'a' * i}" for i in range(60)] + ["b", "ab", "a b", "中", "中文"]
    text = "aaaa aab a b 中文x"
    found = occurring(items, text, _is_standalone_term)
    assert found == naive(items, text, _is_standalone_term)
    assert "aaaa" in found and "aaa" not in found and "ab" not in found and "a b" in found and "中" in found


def test_the_term_rule_keeps_its_verdicts_and_its_order():
    terms = [f"term{i}" for i in range(100)] + ["终端", "Bilibili Wallet", "x_y"]
    line = "术语对照：" + "、".join(f"源{i}→{term}" for i, term in enumerate(terms)) + "、重复→term5"
    row = {"constraints": [line], "constraint_ids": ["term_compliance"]}
    prediction = " ".join(terms[::2]) + " term1x 终端的 Bilibili Wallet."
    verdict = check_term_compliance(row, prediction)
    assert verdict.detail["terms"] == terms  # in order, the repeat dropped
    assert verdict.detail["missing"] == [term for term in terms if not term_occurs(term, prediction)]
    assert "term1" in verdict.detail["missing"] and "终端" not in verdict.detail["missing"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("check, occurs", [(check_term_compliance, term_occurs),
                                           (check_term_compliance_1005, term_occurs_1005)],
                         ids=["public-v1", "2026-10-05"])
def test_each_scorer_versions_term_rule_is_its_per_term_test(seed, check, occurs):
    """Both versions' glossary rules find all terms in one pass and miss exactly the terms their
    per-term test misses: 2026-10-05's word characters of a script without spaces (Han, kana,
    Hangul, Thai) do not block a term, public-v1's do."""
    rng = random.Random(seed)
    for _ in range(200):
        prediction = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60)))
        terms = list(dict.fromkeys("".join(rng.choice("ab中한ไ-") for _ in range(rng.randint(1, 3)))
                                   for _ in range(rng.randint(1, SMALL * 2))))
        line = "术语对照：" + "、".join(f"源{i}→{term}" for i, term in enumerate(terms))
        row = {"constraints": [line], "constraint_ids": ["term_compliance"]}
        verdict = check(row, prediction)
        assert verdict.detail["missing"] == [term for term in verdict.detail["terms"]
                                             if not occurs(term, prediction)], (prediction, terms)


def test_the_social_rule_keeps_its_verdicts_and_its_order():
    elements = [f"@user{i}" for i in range(80)] + ["#话题#", "[笑]"]
    row = {"constraints": ["保留社交元素：" + "、".join(elements + elements[:3])], "constraint_ids": ["social_preserve"]}
    prediction = " ".join(elements[1::3]) + " #话题#"
    verdict = check_social_preserve(row, prediction)
    assert verdict.detail["elements"] == elements
    assert verdict.detail["missing"] == [element for element in elements if element not in prediction]


# A list of 4n items may take at most this many times the time of n: 4 is linear, a per-item
# search over a text that grows with the list gives 16.
GROWTH_LIMIT = 9
NOISE_FLOOR = 0.01  # seconds


@pytest.mark.parametrize("label, build", list_cases(), ids=[label for label, _ in list_cases()])
def test_a_list_of_4x_items_takes_about_4x_the_time(label, build):
    time_list_case(build, 200, repeats=1)  # warm imports and caches
    small = time_list_case(build, 1_500, clock=time.thread_time)  # CPU seconds: a loaded machine does not stretch them
    large = time_list_case(build, 6_000, clock=time.thread_time)
    assert large <= GROWTH_LIMIT * max(small, NOISE_FLOOR), (label, small, large)

