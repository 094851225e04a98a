"""The on-disk layouts the field publishes retrieval benchmarks in, one reader each.

A family's declaration names its layout (``layout``); a family whose files are in one of them
as the layout has them needs no module: its datasets are built here from its declaration.

- :mod:`.bright_parquet`: BRIGHT's parquet configs, one file per config and domain
  (``<config>/<domain>.parquet``): ``documents`` (and ``long_documents``) with ``id`` and
  ``content``, ``examples`` with each query's ``id``, ``query``, gold ids and excluded ids,
  and the reasoning configs with the same columns (BRIGHT, TEMPO, MM-BRIGHT);
- :mod:`.beir_jsonl`: BEIR's JSON Lines, ``corpus.jsonl`` (``_id``, ``title``, ``text``),
  ``queries.jsonl`` (``_id``, ``text``) and ``qrels/<split>.tsv`` (a header, then
  ``query-id``, ``corpus-id``, ``score``) (RAR-b; R2MED with its own file and field names);
- :mod:`.mteb_parquet`: MTEB's parquet configs ``corpus`` (``_id``, ``title``, ``text``),
  ``queries`` (``_id``, ``text``), ``qrels`` (``query-id``, ``corpus-id``, ``score``) and
  ``top_ranked`` (``query-id``, ``corpus-ids``), one file per config and split.

A family that differs from its layout (MM-BRIGHT's images, BRIGHT-Pro's aspects, R2MED's
expansion rules) names a module that builds its datasets from the layout's pieces and holds
that difference alone.
"""
