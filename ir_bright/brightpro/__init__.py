"""BRIGHT-Pro (Zhao et al., ACL 2026): its judgements and aspects (:mod:`.aspects`)."""
