"""The desk over HTTP (no browser): sessions, scopes, a note's life, the guards."""
