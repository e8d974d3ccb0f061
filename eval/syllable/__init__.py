"""Syllable counting for the 22 target languages (SPEC §8).

`count_syllables(text, lang)` counts what a subtitle speaker says: numbers are read aloud in
the target language, acronyms are spelled unless they are read as a word, a word written in
another script is counted by that script's rules, punctuation, emoji and symbols count nothing
(`%`, `$` and `€` are words). Japanese is counted in morae of the fugashi + unidic-lite reading.

The heavy resources (the MeCab tagger, the CMU dictionary, num2words) are loaded once, lazily.
The package is organised by script family: `tokens` (languages, tokeniser, normalisation),
`count` (a line: tokens dispatched, numbers read aloud, the Japanese and Arabic lines),
`resources` (CMU table, tagger, num2words), `acronyms`, `latin` with `english`, `romance`,
`germanic` and `latin_other`, `cyrillic`, `cjk`, `thai`, `devanagari` and `arabic`. This face
keeps the names callers use: `from eval.syllable import count_syllables`.
"""

# `_` names are re-exported for tests and scripts (cache clearing, the CMU table's key).
from eval.syllable.count import _count_text, cal_syllable_count, count_syllables  # noqa: F401
from eval.syllable.english import english_rule_syllables
from eval.syllable.resources import (CMU_CACHE_ENV, _cmu_source_key, _cmu_syllables, _read_cmu_table,  # noqa: F401
                                     cmu_cache_dir, cmu_counts_from_text, cmu_table_path, load_cmu_table)
from eval.syllable.romance import _french_silent_final_e  # noqa: F401
from eval.syllable.tokens import SUPPORTED_LANGS, TIERS

__all__ = ["CMU_CACHE_ENV", "SUPPORTED_LANGS", "TIERS", "cal_syllable_count", "cmu_cache_dir", "cmu_counts_from_text",
           "cmu_table_path", "count_syllables", "english_rule_syllables", "load_cmu_table"]
