// Who has what: notes per user and status (an operator's view across all users).
MATCH (n:Knowledge)
RETURN n.userId AS user, n.status AS status, count(*) AS notes
ORDER BY user, status
