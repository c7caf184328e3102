// A desk session is found by the sha256 of its cookie's secret, kept on the key that signed
// in (api/desk/signin.py); at most one key holds a given session.
CREATE CONSTRAINT api_key_desk_hash IF NOT EXISTS
FOR (k:ApiKey) REQUIRE k.deskHash IS UNIQUE
