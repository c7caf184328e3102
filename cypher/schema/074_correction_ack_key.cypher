// One acknowledgement of a correction per session.
CREATE CONSTRAINT correction_ack_key IF NOT EXISTS
FOR (a:CorrectionAck) REQUIRE (a.userId, a.correctionId, a.sessionId) IS UNIQUE
