// An insight by its id (promoting one into the profile, reading one).
CREATE INDEX insight_user_id IF NOT EXISTS
FOR (i:Insight) ON (i.userId, i.id)
