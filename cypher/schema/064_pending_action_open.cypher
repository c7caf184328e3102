// A user's open pending actions (every bridge lists them) without reading the done ones.
CREATE INDEX pending_action_user_status IF NOT EXISTS
FOR (p:PendingAction) ON (p.userId, p.status)
