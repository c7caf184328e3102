// An agent's newest saved page (catch_up's session_record cutoff), read in index order.
CREATE INDEX wiki_page_user_agent_saved IF NOT EXISTS
FOR (w:WikiPage) ON (w.userId, w.agentId, w.savedAt)
