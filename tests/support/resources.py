"""What the tests that walk the OpenAPI document (the fuzz test, the tenant sweep) know of
its paths: which of a user's things a ``{id}`` names."""

#: The kind of thing a ``/v1/<segment>/{id}`` names, by ``<segment>``; each test keeps one
#: id of the user's of each kind. An endpoint of a new kind is added here.
RESOURCES = {
    "knowledge": "note",
    "threads": "thread",
    "jobs": "job",
    "sessions": "session",
    "pending-actions": "pending",
    "mutations": "mutation",
    "corrections": "correction",
    "proposals": "proposal",
    "goals": "goal",
    "skills": "skill",
    "decisions": "decision",
    "agents": "agent",
}
