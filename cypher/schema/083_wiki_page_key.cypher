// A saved session page is named by a slug unique within its user's wiki.
CREATE CONSTRAINT wiki_page_key IF NOT EXISTS
FOR (w:WikiPage) REQUIRE (w.userId, w.slug) IS UNIQUE
