"""Request and response bodies of the knowledge network, one module per sub-domain: ``notes``,
``edges``, ``search``, and a person's word (``proposals``: corrections and proposals)."""
