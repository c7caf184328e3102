// A user's skills by id (their bodies only when $withBody), optionally of one bundle or
// only $ids; $afterId continues a page.
MATCH (s:Skill)
WHERE s.userId = $userId AND s.id IS NOT NULL
  AND ($ids IS NULL OR s.id IN $ids)
  AND ($bundle IS NULL OR s.bundle = $bundle)
  AND ($afterId IS NULL OR s.id > $afterId)
WITH s
ORDER BY s.id
LIMIT $limit
RETURN s {
  .id, .name, .bundle, .trigger, .tags, .invocationCount, .createdByRole, .createdByAgent,
  // Written before the last writer was kept: its creator.
  updatedByRole: coalesce(s.updatedByRole, s.createdByRole),
  updatedByAgent: CASE WHEN s.updatedByRole IS NULL THEN s.createdByAgent ELSE s.updatedByAgent END,
  bodyMd: CASE WHEN $withBody THEN s.bodyMd ELSE null END,
  createdAt: s.createdAt.epochMillis, updatedAt: s.updatedAt.epochMillis,
  lastLoadedAt: s.lastLoadedAt.epochMillis
} AS skill
