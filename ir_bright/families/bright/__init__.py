"""BRIGHT (Su et al., ICLR 2025): the builder of the ``bright`` family's datasets.

Its declaration (``ir_bright/families/bright.json``) names the ids; :mod:`.collection` builds
them (short and long documents, the LLM-reasoning query sets) and :mod:`.adjusted` computes the
duplicate-aware qrels.
"""
