// Users holding data (a Tenant node, not forgotten; $users narrows them when not null) whose
// scheduled run of one maintenance task is due: never run, or last run at least
// $everyMillis ago. $property is the task's own Tenant property, from the allow-list in
// graph/project/maintenance.py.
MATCH (t:Tenant)
WHERE t.forgottenAt IS NULL AND ($users IS NULL OR t.userId IN $users)
  AND (t[$property] IS NULL OR t[$property] <= datetime() - duration({milliseconds: $everyMillis}))
RETURN t.userId AS userId
ORDER BY userId
LIMIT $limit
