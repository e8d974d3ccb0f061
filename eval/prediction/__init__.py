"""predict.py: the prediction runner (`runner`), predictions through a Batch API (`batch`), its
flags and dispatch (`command`)."""
