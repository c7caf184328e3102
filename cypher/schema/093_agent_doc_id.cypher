// An agent documentation line by its id (`<agent>:<kind>:<position>`), as unified search
// scores it.
CREATE INDEX agent_doc_user_id IF NOT EXISTS
FOR (d:AgentDoc) ON (d.userId, d.id)
