"""Files in and out, for every stage: JSONL data files and their identity (`data`), input files
read once (`input_files`), where the bundled files live (`paths`), the file behind a --dataset
(`hub`), atomic all-or-nothing outputs (`outputs`), one run at a time per file (`locking`)."""
