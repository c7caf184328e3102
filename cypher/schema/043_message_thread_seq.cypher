// A thread's messages in order, page by page.
CREATE INDEX message_thread_seq IF NOT EXISTS
FOR (m:Message) ON (m.userId, m.threadId, m.seq)
