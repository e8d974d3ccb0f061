"""The shared frames of what a run writes and compare shows: report.md (`report`), report.html
(`report_html`), the failures section (`failures`), explorer.html (`explorer`,
`explorer_assets`), the compare page (`compare_html`), LaTeX tables (`latex`)."""
