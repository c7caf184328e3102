// Claim a scheduled run of one maintenance task for the user: compare-and-set of the task's
// Tenant property ($property, from the allow-list), under the user's write gate, so of
// several API processes that found the run due only the first claims it (no row: taken).
MATCH (t:Tenant {userId: $userId})
WHERE t.forgottenAt IS NULL
  AND (t[$property] IS NULL OR t[$property] <= datetime() - duration({milliseconds: $everyMillis}))
SET t[$property] = datetime()
RETURN t.userId AS userId
