"""Project context: architecture decisions, patterns, constraints, agent docs, unified search and
maintenance."""
