// A user's saved pages, newest first (the wiki list, catch_up's wiki section).
CREATE INDEX wiki_page_user_saved IF NOT EXISTS
FOR (w:WikiPage) ON (w.userId, w.savedAt)
