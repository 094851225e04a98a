"""Local storage: parquet reading, the random-access Arrow store, derived cache files, counts."""
