// The caseless form the forget's statements compute of each of $texts (graph/core/folding.py
// CYPHER_FOLD), and whether each holds one of RARE ($rare): what
// tests/integration/core/test_folding.py holds to Python's own.
UNWIND $texts AS v
RETURN collect([normalize(replace(replace(replace(toLower(normalize(v, NFKC)), 'ß', 'ss'), 'ς', 'σ'), 'ͅ', 'ι'), NFKC), NOT v =~ $low AND v =~ $rare]) AS rows
