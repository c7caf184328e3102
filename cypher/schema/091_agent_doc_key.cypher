// An agent's documentation lines (capabilities, its own constraints), one node each, found
// by the agent.
CREATE INDEX agent_doc_user_agent IF NOT EXISTS
FOR (d:AgentDoc) ON (d.userId, d.agentId)
