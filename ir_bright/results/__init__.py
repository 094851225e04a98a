"""Results: paper-style reports, published reference rows and paired comparisons."""
