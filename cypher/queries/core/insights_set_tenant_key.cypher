// Give a user's insights their tenant key (see insights_without_tenant_key).
MATCH (i:Insight)
WHERE i.userId = $userId AND i.tenantKey IS NULL
SET i.tenantKey = $tenantKey
RETURN count(i) AS updated
