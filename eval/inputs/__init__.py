"""What a run reads beside its settings and data files: the rows of a benchmark (`loading`), the
predictions (`predictions`) and their provenance (`system_meta`), --only/--exclude subsets
(`subsets`), the language names (`languages`)."""
