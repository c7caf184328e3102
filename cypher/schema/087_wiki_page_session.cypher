// A session has one saved page: a save finds it by its session, never by a slug.
CREATE CONSTRAINT wiki_page_session IF NOT EXISTS
FOR (w:WikiPage) REQUIRE (w.userId, w.sessionId) IS UNIQUE
