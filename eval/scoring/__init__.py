"""What the benchmarks' scoring and aggregation stand on: the syllable counter a run uses
(`counting`), means and the seeded bootstrap (`stats`), one-line reasons (`reasons`), many
strings in one pass (`substrings`), compare's per-unit values (`pairing`)."""
