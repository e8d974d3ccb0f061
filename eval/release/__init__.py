"""`--protocol release` (SPEC §15): a release's scorer source read without running it (`source`),
its counter run only when trusted (`code`), the record, summary block and report lines
(`protocol`)."""
