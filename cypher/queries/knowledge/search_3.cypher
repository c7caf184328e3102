// Search and graph-aware retrieval to 3 hops, in one query (one round trip):
//  1. ranking: the vector half by the shared index oversampled to $candidates and narrowed
//     to the user and filters (index plan), or by exact cosine over the user's own notes
//     when $candidates is null (exact plan); the keyword half by Lucene, narrowed to the
//     user by tenantKey and scored from the user's notes alone; fused by a convex
//     combination of their scaled scores ($mode 'hybrid'). $mode 'seeds' starts from
//     the notes in $seedIds instead (a note's neighbourhood);
//  2. expansion from the top $topK, breadth first: the notes reached along the chosen edge
//     types and direction, each once, at its nearest depth, with the edges that reached it;
//     at most $maxReached of them, the nearest first;
//  3. the edges among all returned notes, at most $maxEdges (`truncated`: notes or edges
//     were left out).
// `matched` tells the caller whether the index plan found enough; if not, it asks again
// with more candidates. One file per depth: each hop is a step of its own.
// A key's entity scope ($scope: null, or {ids, tags}) narrows every half and every hop.
// $filtered is false when no filter and no scope is set: the ranking then skips their tests.
// $collapse keeps the best hit per source before the top $topK is taken: per sourceRef
// ('sourceRef'), per conversation ('conversation', the default), or not at all (null).
// $begunAfter / $begunBefore (epoch ms) keep the notes that began in that window.
// Valid time (epoch ms): $validAt leaves out notes and edges whose validity ended by then
// (now, by default: what is true now); $asOf keeps only what was true then: begun, not ended,
// and not superseded by a note begun by then (a supersedes edge ends the older note at the
// newer one's start). A note or edge begins at its validFrom, else when it was recorded (a
// note recorded after its stated end began at no known time: it counts as begun).
CALL () {
  WITH $vector AS vector WHERE vector IS NOT NULL AND $candidates IS NOT NULL
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, vector) YIELD node AS n, score
  WHERE n.userId = $userId AND n.status IN $statuses AND ($validAt IS NULL OR n.validUntil IS NULL OR n.validUntil > $validAt)
    AND (NOT $filtered OR (
      ($types IS NULL OR n.type IN $types)
      AND ($sources IS NULL OR n.source IN $sources)
      AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
      AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
      AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
      AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
      AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
      AND (($begunAfter IS NULL AND $begunBefore IS NULL) OR (
        coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis
          THEN 0 ELSE n.createdAt.epochMillis END) >= coalesce($begunAfter, 0)
        AND coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) < coalesce($begunBefore, 253402300800000)))
      AND ($asOf IS NULL OR (coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) <= $asOf
        AND (n.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(n)
          WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))))
  WITH n, score ORDER BY score DESC, n.id
  RETURN collect({id: n.id, score: score, src: CASE WHEN n.sourceRef IS NOT NULL AND ($collapse = 'sourceRef' OR (n.source = 'conversation'
    AND NOT n.sourceRef STARTS WITH 'thread:')) THEN [1, n.sourceRef] ELSE [0, n.id] END}) AS indexRanked
}
CALL () {
  WITH $vector AS vector WHERE vector IS NOT NULL AND $candidates IS NULL
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.status IN $statuses AND ($validAt IS NULL OR n.validUntil IS NULL OR n.validUntil > $validAt)
    AND (NOT $filtered OR (
      ($types IS NULL OR n.type IN $types)
      AND ($sources IS NULL OR n.source IN $sources)
      AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
      AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
      AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
      AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
      AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
      AND (($begunAfter IS NULL AND $begunBefore IS NULL) OR (
        coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis
          THEN 0 ELSE n.createdAt.epochMillis END) >= coalesce($begunAfter, 0)
        AND coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) < coalesce($begunBefore, 253402300800000)))
      AND ($asOf IS NULL OR (coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) <= $asOf
        AND (n.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(n)
          WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))))
  WITH n, vector.similarity.cosine(n.embedding, vector) AS score
  ORDER BY score DESC, n.id
  LIMIT $pool
  RETURN collect({id: n.id, score: score, src: CASE WHEN n.sourceRef IS NOT NULL AND ($collapse = 'sourceRef' OR (n.source = 'conversation'
    AND NOT n.sourceRef STARTS WITH 'thread:')) THEN [1, n.sourceRef] ELSE [0, n.id] END}) AS exactRanked
}
CALL () {
  // The keyword half, scored from the user's own notes alone: Lucene's statistics span every
  // user's notes, so its scores would move with what others store (and tell of it). Each
  // query word ($terms: one Lucene query per word, narrowed to the user's tenantKey) finds
  // the user's notes that hold it, at most $termLimit; their number is the word's document
  // frequency among the user's $notes notes, hence its idf. A word that fills $termLimit is
  // common in this memory and left out while a rarer word is present. A note weighs the idf
  // of each word it holds (once: BM25 with binary term frequency); the best $textCandidates
  // by weight (then id) that pass the filters are normalised by their length against the
  // mean of those candidates (k1 1.2, b 0.75). The filters are read first for the head of
  // the weight order (every note weighing at least the $textCandidates-th, ties included),
  // and for the rest only if they leave fewer than $textCandidates there. Stemming makes
  // two words one term at times: their matches count once.
  UNWIND $terms AS term
  CALL (term) {
    CALL db.index.fulltext.queryNodes('knowledge_fulltext', term, {limit: $termLimit}) YIELD node
    RETURN collect(node) AS matches
  }
  WITH collect(DISTINCT matches) AS lists
  WITH CASE WHEN any(m IN lists WHERE size(m) < $termLimit)
    THEN [m IN lists WHERE size(m) < $termLimit] ELSE lists END AS used
  UNWIND used AS matches
  WITH matches, log(1.0 + ($notes - size(matches) + 0.5) / (size(matches) + 0.5)) AS idf
  UNWIND matches AS n
  WITH n, sum(idf) AS weight
  ORDER BY weight DESC
  WITH collect({n: n, weight: weight}) AS ranked
  WITH ranked, size([r IN ranked WHERE r.weight >= coalesce(ranked[$textCandidates - 1].weight, 0.0)]) AS head
  CALL (ranked, head) {
    UNWIND ranked[0..head] AS r
    WITH r.n AS n, r.weight AS weight
    WHERE n.userId = $userId AND n.status IN $statuses AND ($validAt IS NULL OR n.validUntil IS NULL OR n.validUntil > $validAt)
      AND (NOT $filtered OR (
        ($types IS NULL OR n.type IN $types)
        AND ($sources IS NULL OR n.source IN $sources)
        AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
        AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
        AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
        AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
        AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
        AND (($begunAfter IS NULL AND $begunBefore IS NULL) OR (
          coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis
            THEN 0 ELSE n.createdAt.epochMillis END) >= coalesce($begunAfter, 0)
          AND coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
            ELSE n.createdAt.epochMillis END) < coalesce($begunBefore, 253402300800000)))
        AND ($asOf IS NULL OR (coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) <= $asOf
          AND (n.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(n)
            WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))))
    RETURN collect({n: n, weight: weight}) AS kept
  }
  CALL (ranked, head, kept) {
    UNWIND CASE WHEN size(kept) < $textCandidates THEN ranked[head..] ELSE [] END AS r
    WITH r.n AS n, r.weight AS weight
    WHERE n.userId = $userId AND n.status IN $statuses AND ($validAt IS NULL OR n.validUntil IS NULL OR n.validUntil > $validAt)
      AND (NOT $filtered OR (
        ($types IS NULL OR n.type IN $types)
        AND ($sources IS NULL OR n.source IN $sources)
        AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
        AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
        AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
        AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
        AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
        AND (($begunAfter IS NULL AND $begunBefore IS NULL) OR (
          coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis
            THEN 0 ELSE n.createdAt.epochMillis END) >= coalesce($begunAfter, 0)
          AND coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
            ELSE n.createdAt.epochMillis END) < coalesce($begunBefore, 253402300800000)))
        AND ($asOf IS NULL OR (coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) <= $asOf
          AND (n.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(n)
            WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))))
    RETURN collect({n: n, weight: weight}) AS more
  }
  // kept + more is in weight order: the candidates are the first $textCandidates and any
  // tied with the last, then ordered by weight and id. Taken out by an aggregation and
  // grouped before they are sorted, so no row sorted carries the lists of matches: every
  // row a sort holds is counted with all it carries, and a long question's lists filled
  // the transaction memory.
  WITH kept + more AS found
  WITH head(collect([k IN found WHERE k.weight >= coalesce(found[$textCandidates - 1].weight, 0.0)])) AS tied
  UNWIND tied AS k
  WITH k.n AS n, max(k.weight) AS weight
  ORDER BY weight DESC, n.id LIMIT $textCandidates
  WITH collect({id: n.id, weight: weight, length: size(split(coalesce(n.title, '') + ' ' + n.content, ' ')),
    src: CASE WHEN n.sourceRef IS NOT NULL AND ($collapse = 'sourceRef' OR (n.source = 'conversation'
    AND NOT n.sourceRef STARTS WITH 'thread:')) THEN [1, n.sourceRef] ELSE [0, n.id] END}) AS top
  WITH top, reduce(total = 0.0, t IN top | total + t.length) / CASE size(top) WHEN 0 THEN 1 ELSE size(top) END AS mean
  UNWIND top AS t
  // grouped by id (each once in top), so the rows sorted are new ones, without the list
  WITH t.id AS id, t.src AS src, max(t.weight * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * t.length / mean))) AS score
  ORDER BY score DESC, id LIMIT $pool
  RETURN collect({id: id, score: score, src: src}) AS textHits
}
WITH CASE WHEN $candidates IS NULL THEN exactRanked ELSE indexRanked END AS vectorRanked, textHits
WITH vectorRanked[0..$pool] AS vectorHits, size(vectorRanked) AS matched, textHits
CALL (vectorHits, textHits) {
  // Fused by a convex combination of the halves' scores ($vectorWeight of the vector half's,
  // the rest of the keyword half's), each scaled to 0..1 between the last and the best of its
  // ranking, where the best counts at most $runaway times the runner-up's margin over the
  // last (and any note above that is 1): one note far ahead in a half (a runaway top) does
  // not squash the rest of that half. A note one half did not rank gets nothing from it.
  WITH vectorHits, textHits,
    CASE WHEN size(vectorHits) > 2 THEN vectorHits[-1].score + $runaway * (vectorHits[1].score - vectorHits[-1].score) END AS vCap,
    CASE WHEN size(textHits) > 2 THEN textHits[-1].score + $runaway * (textHits[1].score - textHits[-1].score) END AS tCap
  WITH vectorHits, textHits,
    [CASE WHEN vCap < vectorHits[0].score THEN vCap ELSE vectorHits[0].score END, vectorHits[-1].score] AS v,
    [CASE WHEN tCap < textHits[0].score THEN tCap ELSE textHits[0].score END, textHits[-1].score] AS t
  UNWIND [h IN vectorHits | h {.id, .src, part: $vectorWeight * CASE WHEN v[0] <= v[1] OR h.score >= v[0]
      THEN 1.0 ELSE (h.score - v[1]) / (v[0] - v[1]) END}]
    + [h IN textHits | h {.id, .src, part: (1.0 - $vectorWeight) * CASE WHEN t[0] <= t[1] OR h.score >= t[0]
      THEN 1.0 ELSE (h.score - t[1]) / (t[0] - t[1]) END}] AS part
  WITH part.id AS id, part.src AS src, sum(part.part) AS score
  ORDER BY score DESC, id
  RETURN collect({id: id, score: score, src: src}) AS fusedHits
}
WITH vectorHits, textHits, matched,
  CASE $mode
    WHEN 'vector' THEN vectorHits
    WHEN 'fulltext' THEN textHits
    WHEN 'seeds' THEN [id IN $seedIds | {id: id, score: null}]
    ELSE fusedHits
  END AS ranking
CALL (ranking) {
  // A note made of the question's words repeated is stuffed, not relevant: each occurrence of
  // a query word ($words) past its first in a note is filler. A note whose share of filler
  // (of its words, as the keyword half counts them) is at most $fillerAllowed keeps its score
  // (hybrid or keyword), as natural text does; past it the score falls linearly, to 0 at
  // $fillerAllowed + $fillerSpan (a stuffed note's vector is close to the question's too, so
  // the hybrid score goes, not the keyword half's alone). Read for the first $checked of the
  // ranking; only a hybrid or keyword search with words is checked.
  WITH ranking WHERE $mode IN ['hybrid', 'fulltext'] AND size($words) > 0
  WITH [r IN ranking[0..$checked] | r.id] AS ids
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.id IN ids
  WITH n.id AS id, coalesce(n.title, '') + ' ' + n.content AS text
  WITH id, size(split(text, ' ')) AS length,
    ' ' + replace(reduce(s = toLower(text), c IN $separators | replace(s, c, ' ')), ' ', '  ') + ' ' AS spaced
  WITH id, length, reduce(e = 0, w IN $words |
    e + CASE WHEN size(split(spaced, ' ' + w + ' ')) > 2 THEN size(split(spaced, ' ' + w + ' ')) - 2 ELSE 0 END) AS excess
  WITH id, CASE WHEN excess = 0 THEN 0.0 ELSE toFloat(excess) / length END AS filler
  WHERE filler > $fillerAllowed
  RETURN collect({id: id, kept: CASE WHEN filler >= $fillerAllowed + $fillerSpan THEN 0.0
    ELSE 1.0 - (filler - $fillerAllowed) / $fillerSpan END}) AS cuts
}
CALL (ranking, cuts) {
  // Re-sorted only when a note lost score (natural text almost never does).
  WITH ranking, cuts WHERE size(cuts) > 0
  UNWIND range(0, size(ranking) - 1) AS i
  WITH i, ranking[i] AS h, [c IN cuts WHERE c.id = ranking[i].id | c.kept] AS kept
  WITH h {.id, .src, score: h.score * coalesce(kept[0], 1.0)} AS h, i
  ORDER BY h.score DESC, i
  RETURN collect(h) AS recut
}
WITH vectorHits, textHits, matched, CASE WHEN size(cuts) > 0 THEN recut ELSE ranking END AS ordered
CALL (ordered) {
  // The best hit of each source, best first, so topK fills with distinct sources: each hit
  // carries its source (src), its sourceRef when $collapse is 'sourceRef' (collapseBy), or
  // by default ('conversation') when it is a conversation's turn (source conversation; not a
  // fact consolidation drew from a thread, sourceRef thread:<id>, each its own), else itself.
  // Grouped before sorted, so no row sorted carries the ranking (see the keyword half).
  UNWIND CASE WHEN $collapse IS NOT NULL THEN range(0, size(ordered) - 1) ELSE [] END AS i
  WITH ordered[i].src AS source, min(i) AS first
  ORDER BY first
  RETURN collect(first) AS firsts
}
WITH vectorHits, textHits, matched, ordered, [i IN firsts | ordered[i]] AS collapsed
WITH vectorHits, textHits, matched,
  (CASE WHEN $collapse IS NOT NULL THEN collapsed ELSE ordered END)[0..$topK] AS ranked
WITH vectorHits, textHits, matched, ranked, [r IN ranked | r.id] AS hitIds
CALL (hitIds) {
  // $bare: the caller wants the ranking alone (ids and scores), not the hits' notes
  WITH hitIds WHERE NOT $bare
  MATCH (h:Knowledge)
  WHERE h.userId = $userId AND h.id IN hitIds
    AND ($scope IS NULL OR h.id IN $scope.ids OR any(t IN coalesce(h.tags, []) WHERE t IN $scope.tags))
  RETURN collect(h) AS hits
}
// Expansion, breadth first: the notes one hop from the hits, then one hop from those, to
// 3 hops; each note once, at its nearest depth, with the edges that reached it from
// the depth before. At most $maxReached notes in all, the nearer first (then those more
// edges reach, then by id): neither the work nor the answer grows with how dense the
// graph around the hits is (paths are never enumerated). `cut`: some were left out.
CALL (hits, hitIds) {
  CALL (hits, hitIds) {
    UNWIND hits AS a
    MATCH (a)-[r]-(b:Knowledge)
    WHERE NOT b.id IN hitIds AND type(r) IN $relTypes AND b.userId = $userId AND b.status IN $statuses
      AND ($validAt IS NULL OR ((b.validUntil IS NULL OR b.validUntil > $validAt)
        AND (r.validUntil IS NULL OR r.validUntil > $validAt)))
      AND ($asOf IS NULL OR (coalesce(b.validFrom, CASE WHEN b.validUntil <= b.createdAt.epochMillis THEN 0
          ELSE b.createdAt.epochMillis END) <= $asOf
        AND coalesce(r.validFrom, r.createdAt.epochMillis) <= $asOf
        AND (b.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(b)
          WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))
      AND ($scope IS NULL OR b.id IN $scope.ids OR any(t IN coalesce(b.tags, []) WHERE t IN $scope.tags))
      AND ($direction = 'both'
           OR ($direction = 'out' AND startNode(r) = a)
           OR ($direction = 'in' AND endNode(r) = a))
    WITH b, collect(DISTINCT r) AS vias
    ORDER BY size(vias) DESC, b.id
    RETURN collect({node: b, depth: 1, vias: vias}) AS found
  }
  WITH hitIds, found[0..$maxReached] AS level, size(found) > $maxReached AS cut
  CALL (hitIds, level) {
    WITH hitIds + [x IN level | x.node.id] AS seen, [x IN level WHERE x.depth = 1 | x.node] AS frontier
    UNWIND frontier AS a
    MATCH (a)-[r]-(b:Knowledge)
    WHERE NOT b.id IN seen AND type(r) IN $relTypes AND b.userId = $userId AND b.status IN $statuses
      AND ($validAt IS NULL OR ((b.validUntil IS NULL OR b.validUntil > $validAt)
        AND (r.validUntil IS NULL OR r.validUntil > $validAt)))
      AND ($asOf IS NULL OR (coalesce(b.validFrom, CASE WHEN b.validUntil <= b.createdAt.epochMillis THEN 0
          ELSE b.createdAt.epochMillis END) <= $asOf
        AND coalesce(r.validFrom, r.createdAt.epochMillis) <= $asOf
        AND (b.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(b)
          WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))
      AND ($scope IS NULL OR b.id IN $scope.ids OR any(t IN coalesce(b.tags, []) WHERE t IN $scope.tags))
      AND ($direction = 'both'
           OR ($direction = 'out' AND startNode(r) = a)
           OR ($direction = 'in' AND endNode(r) = a))
    WITH b, collect(DISTINCT r) AS vias
    ORDER BY size(vias) DESC, b.id
    RETURN collect({node: b, depth: 2, vias: vias}) AS found
  }
  WITH hitIds, level + found[0..$maxReached - size(level)] AS level,
    cut OR size(found) > $maxReached - size(level) AS cut
  CALL (hitIds, level) {
    WITH hitIds + [x IN level | x.node.id] AS seen, [x IN level WHERE x.depth = 2 | x.node] AS frontier
    UNWIND frontier AS a
    MATCH (a)-[r]-(b:Knowledge)
    WHERE NOT b.id IN seen AND type(r) IN $relTypes AND b.userId = $userId AND b.status IN $statuses
      AND ($validAt IS NULL OR ((b.validUntil IS NULL OR b.validUntil > $validAt)
        AND (r.validUntil IS NULL OR r.validUntil > $validAt)))
      AND ($asOf IS NULL OR (coalesce(b.validFrom, CASE WHEN b.validUntil <= b.createdAt.epochMillis THEN 0
          ELSE b.createdAt.epochMillis END) <= $asOf
        AND coalesce(r.validFrom, r.createdAt.epochMillis) <= $asOf
        AND (b.status <> 'superseded' OR NOT EXISTS { MATCH (s:Knowledge)-[:SUPERSEDES]->(b)
          WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf })))
      AND ($scope IS NULL OR b.id IN $scope.ids OR any(t IN coalesce(b.tags, []) WHERE t IN $scope.tags))
      AND ($direction = 'both'
           OR ($direction = 'out' AND startNode(r) = a)
           OR ($direction = 'in' AND endNode(r) = a))
    WITH b, collect(DISTINCT r) AS vias
    ORDER BY size(vias) DESC, b.id
    RETURN collect({node: b, depth: 3, vias: vias}) AS found
  }
  WITH hitIds, level + found[0..$maxReached - size(level)] AS level,
    cut OR size(found) > $maxReached - size(level) AS cut
  RETURN level, cut
}
CALL (level) {
  UNWIND level AS x
  WITH x.node AS m, x.depth AS depth, x.vias AS vias
  RETURN collect({
    node: m,
    view: m {
      .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount, .sourceRef,
      .createdByRole, .createdByAgent, .personFields, .validFrom, .validUntil, .invalidReason, .data,
      supersededFrom: [(s:Knowledge)-[:SUPERSEDES]->(m) | coalesce(s.validFrom, s.createdAt.epochMillis)],
      createdAt: m.createdAt.epochMillis, updatedAt: m.updatedAt.epochMillis,
      merges: COLLECT {
        MATCH (m)-[:MERGED_FROM]->(mn:MergedNote)
        WITH mn ORDER BY mn.mergedAt DESC, mn.id DESC LIMIT 3
        RETURN mn {
          .requestedId, .title, .content, .type, .source, .confidence, .sourceRef, .similarity, .data,
          mergedAt: mn.mergedAt.epochMillis
        }
      }
    },
    depth: depth,
    via: [v IN vias | {
      type: type(v), sourceId: startNode(v).id, targetId: endNode(v).id,
      createdAt: v.createdAt.epochMillis, source: v.source, confidence: v.confidence, note: v.note, validFrom: v.validFrom, validUntil: v.validUntil
    }]
  }) AS reached
}
WITH vectorHits, textHits, matched, ranked, hits, reached, cut, hits + [x IN reached | x.node] AS everyone
CALL (everyone) {
  UNWIND everyone AS a
  MATCH (a)-[r]->(b:Knowledge)
  WHERE b IN everyone AND type(r) IN $relTypes
    AND ($validAt IS NULL OR r.validUntil IS NULL OR r.validUntil > $validAt)
    AND ($asOf IS NULL OR coalesce(r.validFrom, r.createdAt.epochMillis) <= $asOf)
  RETURN collect(r) AS edges
}
RETURN
  vectorHits, textHits, matched, ranked,
  [h IN hits | h {
    .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount, .sourceRef,
    .createdByRole, .createdByAgent, .personFields, .validFrom, .validUntil, .invalidReason, .data,
    supersededFrom: [(s:Knowledge)-[:SUPERSEDES]->(h) | coalesce(s.validFrom, s.createdAt.epochMillis)],
    createdAt: h.createdAt.epochMillis, updatedAt: h.updatedAt.epochMillis,
    merges: COLLECT {
      MATCH (h)-[:MERGED_FROM]->(mn:MergedNote)
      WITH mn ORDER BY mn.mergedAt DESC, mn.id DESC LIMIT 3
      RETURN mn {
        .requestedId, .title, .content, .type, .source, .confidence, .sourceRef, .similarity, .data,
        mergedAt: mn.mergedAt.epochMillis
      }
    }
  }] AS hits,
  [x IN reached | {node: x.view, depth: x.depth, via: x.via}] AS reached,
  [r IN edges[0..$maxEdges] | {
    type: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
    createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note, validFrom: r.validFrom, validUntil: r.validUntil
  }] AS edges,
  cut OR size(edges) > $maxEdges AS truncated
