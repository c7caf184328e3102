"""The database schema: idempotent ``cypher/schema/*.cypher`` files, applied in name order.

``migrate`` runs at API start-up and from ``ctxnet db migrate``: it rebuilds indexes
whose settings differ from the schema files (a vector index's quantization or HNSW
parameters, from the vectors already stored; a fulltext index's analyzer, from the stored
notes), then applies every file, then runs the data steps (each once: insights' tenant
keys, stored states without ASCII escapes). ``check_schema`` is what
``/ready`` asks (every index and constraint present and online, vector indexes sized
for the configured embedder); ``reembed`` replaces vector indexes of the wrong size and
recomputes the vectors, resumably.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from neo4j.exceptions import ClientError
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_random

from graph.core.cypher import cypher_names, cypher_text
from graph.core.db import Database
from graph.core.embeddings import Embedder, embed_each
from graph.core.errors import DatabaseUnavailable, SchemaMismatch
from graph.core.states import STATE_PROPERTIES, restate
from graph.core.tenancy import tenant_key

log = logging.getLogger(__name__)

_NAMED = re.compile(
    r"CREATE\s+(?:(VECTOR|FULLTEXT|RANGE|TEXT|POINT)\s+)?(INDEX|CONSTRAINT)\s+(\w+)", re.IGNORECASE
)
#: Literal index settings in a schema file, e.g. `vector.quantization.enabled`: false or
#: `fulltext.analyzer`: 'english'.
_SETTING = re.compile(r"`((?:vector|fulltext)\.[\w.]+)`\s*:\s*(true|false|\d+\b|'[^']*')", re.IGNORECASE)
#: What Neo4j uses for a setting a schema file leaves out, where it matters for a rebuild.
_DEFAULTS: dict[str, bool | int | str] = {"fulltext.analyzer": "standard-no-stop-words"}
#: The properties an index covers: ON n.p / ON (n.a, n.b) / ON EACH [n.a, n.b].
_COVERS = re.compile(r"\bON\s+(?:EACH\s*\[([^\]]*)\]|\(([^)]*)\)|(\w+\.\w+))", re.IGNORECASE)


def _covered(text: str) -> tuple[str, ...] | None:
    match = _COVERS.search(text)
    if match is None:
        return None
    listed = next(group for group in match.groups() if group is not None)
    return tuple(part.strip().split(".", 1)[1] for part in listed.split(",") if "." in part)


def _literal_settings(text: str, index_type: str) -> tuple[tuple[str, bool | int | str], ...]:
    found: dict[str, bool | int | str] = {
        key: value for key, value in _DEFAULTS.items() if key.startswith(index_type.lower() + ".")
    }
    for key, value in _SETTING.findall(text):
        lowered = value.lower()
        if value.startswith("'"):
            found[key] = value[1:-1]
        else:
            found[key] = lowered == "true" if lowered in {"true", "false"} else int(value)
    return tuple(found.items())


@dataclass(frozen=True)
class SchemaObject:
    """An index or constraint a schema file creates."""

    name: str
    kind: str  # "INDEX" or "CONSTRAINT"
    index_type: str | None  # VECTOR, FULLTEXT, ... for indexes
    properties: tuple[str, ...] | None = None  # what an index covers
    #: Index settings the file fixes (a vector index's dimension follows the embedder instead).
    settings: tuple[tuple[str, bool | int | str], ...] = ()


def expected_schema() -> list[SchemaObject]:
    """Every index and constraint named in ``cypher/schema``."""
    objects = []
    for name in cypher_names("schema"):
        match = _NAMED.search(cypher_text(name))
        if match is None:
            raise ValueError(f"cypher/{name}.cypher creates no named index or constraint")
        index_type, kind, object_name = match.groups()
        text = cypher_text(name)
        covers = _covered(text) if kind.upper() == "INDEX" else None
        kind_of = index_type.upper() if index_type else None
        settings = _literal_settings(text, kind_of) if kind_of in {"VECTOR", "FULLTEXT"} else ()
        objects.append(SchemaObject(object_name, kind.upper(), kind_of, covers, settings))
    return objects


@dataclass
class SchemaReport:
    """What ``check_schema`` found; ``problems`` is empty when all is well."""

    problems: list[str] = field(default_factory=list)
    vector_dimensions: dict[str, int] = field(default_factory=dict)
    #: Vector indexes of the right size, and fulltext indexes, whose other settings (an
    #: analyzer, a quantization) differ from the files: ``migrate`` rebuilds them.
    stale_settings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the schema fits this build."""
        return not self.problems


#: What Neo4j answers when another process created the same index or constraint between
#: this one's ``IF NOT EXISTS`` check and its create: the schema is as wanted.
_CREATED_CONCURRENTLY = frozenset(
    {
        "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
        "Neo.ClientError.Schema.IndexAlreadyExists",
        "Neo.ClientError.Schema.ConstraintAlreadyExists",
    }
)


async def apply_schema(db: Database, dimension: int) -> list[str]:
    """Run every schema file (each is ``IF NOT EXISTS``); returns the files run.

    Several API replicas may start together on a new database and apply the schema at the
    same moment: one that finds its index just created by another goes on, and one whose
    statement deadlocked with another's (schema statements lock labels) tries it again.
    """
    applied = []
    for name in cypher_names("schema"):
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(DatabaseUnavailable),
            stop=stop_after_attempt(6),
            wait=wait_random(0.05, 0.5),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                try:
                    await db.run_autocommit(name, dimension=dimension)
                except ClientError as exc:
                    if exc.code not in _CREATED_CONCURRENTLY:
                        raise
                    log.info("schema object created by another process meanwhile", extra={"file": name})
        applied.append(name)
    log.info("schema applied", extra={"files": len(applied)})
    return applied


def _reembed_hint(index: str, found: int, wanted: int) -> str:
    return (
        f"vector index {index} holds {found}-dimensional vectors but the configured embedder makes "
        f"{wanted}: either switch back to the embedder that wrote them (CTXNET_EMBEDDER / "
        f"CTXNET_EMBEDDING_DIMENSION), or re-embed everything with `ctxnet db reembed`"
    )


async def check_schema(db: Database, dimension: int) -> SchemaReport:
    """Compare the live schema with ``cypher/schema``; never raises for a mismatch."""
    report = SchemaReport()
    indexes = {row["name"]: row for row in await db.read("queries/core/schema_indexes")}
    constraints = {row["name"] for row in await db.read("queries/core/schema_constraints")}
    for wanted in expected_schema():
        if wanted.kind == "CONSTRAINT":
            if wanted.name not in constraints:
                report.problems.append(f"constraint {wanted.name} is missing; run `ctxnet db migrate`")
            continue
        index = indexes.get(wanted.name)
        if index is None:
            report.problems.append(f"index {wanted.name} is missing; run `ctxnet db migrate`")
            continue
        if wanted.properties is not None and tuple(index.get("properties") or ()) != wanted.properties:
            report.problems.append(
                f"index {wanted.name} covers {list(index.get('properties') or [])} but this build needs "
                f"{list(wanted.properties)}: drop it (DROP INDEX {wanted.name}) and run `ctxnet db migrate`"
            )
        if index["state"] != "ONLINE":
            report.problems.append(f"index {wanted.name} is {index['state']}, not ONLINE yet")
        config = (index.get("options") or {}).get("indexConfig") or {}
        if wanted.index_type == "FULLTEXT":
            _compare_settings(report, wanted, config, "rebuilds it from the text the nodes hold")
        if wanted.index_type == "VECTOR":
            found = int(config.get("vector.dimensions", 0))
            report.vector_dimensions[wanted.name] = found
            if found != dimension:
                report.problems.append(_reembed_hint(wanted.name, found, dimension))
                continue
            _compare_settings(report, wanted, config, "rebuilds it from the stored vectors")
    return report


def _same(found: Any, wanted: bool | int | str) -> bool:
    if isinstance(wanted, str) and isinstance(found, str):
        return found.lower() == wanted.lower()  # Neo4j answers 'COSINE' for 'cosine'
    return bool(found == wanted)


def _compare_settings(report: SchemaReport, wanted: SchemaObject, config: dict[str, Any], how: str) -> None:
    differing = [
        f"{key}={config.get(key)!r} (wanted {value!r})"
        for key, value in wanted.settings
        if not _same(config.get(key), value)
    ]
    if differing:
        report.stale_settings.append(wanted.name)
        report.problems.append(
            f"index {wanted.name} has {', '.join(differing)}: run `ctxnet db migrate`, which {how}"
        )


async def migrate(db: Database, dimension: int) -> SchemaReport:
    """Rebuild vector indexes with stale settings, apply the schema, then fail with
    :class:`SchemaMismatch` if it still does not fit.

    A rebuilt index is searchable again once Neo4j has repopulated it from the vectors the
    nodes keep (about a minute per 100k notes); ``/ready`` says so meanwhile.
    """
    for name in (await check_schema(db, dimension)).stale_settings:
        log.warning("rebuilding index %s: its settings differ from cypher/schema", name)
        await db.run_autocommit("queries/core/schema_drop_index", name=name)
    await apply_schema(db, dimension)
    await _insight_tenant_keys(db)
    await literal_states(db)
    report = await check_schema(db, dimension)
    mismatched = [p for p in report.problems if p.startswith("vector index")]
    if mismatched:
        raise SchemaMismatch("; ".join(mismatched))
    return report


async def _insight_tenant_keys(db: Database) -> None:
    """Insights stored before they carried their user's tenant key get it (the keyword half
    of recall finds an insight by it); a no-op once all have one."""
    while users := await db.read("queries/core/insights_without_tenant_key", limit=100):
        for row in users:
            await db.write(
                "queries/core/insights_set_tenant_key",
                userId=row["userId"],
                tenantKey=tenant_key(row["userId"]),
            )


#: The data step that rewrites stored states written with ASCII escapes (its Migration node's name).
LITERAL_STATES = "states-literal"
#: Per kind of node that keeps stored states, the query of a page of those to rewrite.
_STATE_PAGES = {
    "Mutation": "queries/core/states_mutation_page",
    "Correction": "queries/core/states_correction_page",
    "Proposal": "queries/core/states_proposal_page",
}
#: A user id after every other (U+FFFF is no character, and sorts after every other one).
_LAST_USER = "\uffff"


async def literal_states(db: Database, batch: int = 1_000) -> int | None:
    """Rewrite, once, every stored state written with ASCII escapes (``\\u00c9`` for "É") as
    :func:`graph.core.states.state_json` writes it, so a text match finds its characters;
    the number of properties rewritten, or ``None`` when the step was carried out before.

    Once done it is marked (a ``Migration`` node), so a start-up then costs one read. The
    walk (:func:`_restate`) is safe beside the API and in several processes at once, and
    run again after a stop it reads the states again but rewrites none twice.
    """
    [row] = await db.read("queries/core/migration_done", name=LITERAL_STATES)
    if row["done"]:
        return None
    rewritten = await _restate(db, "", _LAST_USER, batch)
    await db.write("queries/core/migration_mark", name=LITERAL_STATES)
    log.info("stored states rewritten without ASCII escapes", extra={"properties": rewritten})
    return rewritten


async def restate_user(db: Database, user_id: str, batch: int = 1_000) -> int:
    """Rewrite one user's stored states written with ASCII escapes (journal entries,
    corrections, proposals); the number of properties rewritten."""
    return await _restate(db, user_id, user_id, batch)


async def _restate(db: Database, first_user: str, last_user: str, batch: int) -> int:
    """Rewrite the states of the users from ``first_user`` to ``last_user``, kind by kind.
    A page reads the next ``batch`` states that hold a ``\\u``, in (userId, id) order
    through each kind's index, on from where the last page stopped; the changes are written
    ``batch`` a transaction, each only if the state is still as read (a forget that
    scrubbed it meanwhile wins)."""
    pending: list[dict[str, Any]] = []
    rewritten = 0
    for kind, page_query in _STATE_PAGES.items():
        after: tuple[str, str] = (first_user, "")
        while page := await db.read(
            page_query, afterUser=after[0], afterId=after[1], lastUser=last_user, limit=batch
        ):
            pending += [
                {"ref": r["ref"], "key": key, "old": old, "new": new}
                for r in page
                for key in STATE_PROPERTIES[kind]
                if isinstance(old := r["states"][key], str) and (new := restate(old)) != old
            ]
            while len(pending) >= batch:
                rewritten += await _rewrite(db, pending[:batch])
                del pending[:batch]
            if len(page) < batch:
                break
            after = (str(page[-1]["userId"]), str(page[-1]["id"]))
    return rewritten + (await _rewrite(db, pending) if pending else 0)


async def _rewrite(db: Database, rows: list[dict[str, Any]]) -> int:
    [done] = await db.write("queries/core/states_rewrite", rows=rows)
    return int(done["rewritten"])


#: What ``reembed`` recomputes: notes (title + content), insights (content), saved session
#: pages, the vectors corrections keep (the text each was computed from), thread gists
#: (graph/conversations/gists.py) and agent documentation lines.
REEMBED_QUERIES = (
    ("queries/core/reembed_knowledge_page", "queries/core/reembed_knowledge_set"),
    ("queries/core/reembed_insight_page", "queries/core/reembed_insight_set"),
    ("queries/core/reembed_wiki_page_page", "queries/core/reembed_wiki_page_set"),
    ("queries/core/reembed_correction_page", "queries/core/reembed_correction_set"),
    ("queries/core/reembed_thread_page", "queries/core/reembed_thread_set"),
    ("queries/core/reembed_agent_doc_page", "queries/core/reembed_agent_doc_set"),
)
#: What ``reembed`` recomputes with the second model that compares decisions with threads
#: (graph/project/notify.py), when one is configured: threads' ``notifyEmbedding`` (the gist's
#: text), where it is missing or another model made it.
REEMBED_NOTIFY_QUERIES = ("queries/core/reembed_thread_notify_page", "queries/core/reembed_thread_notify_set")
#: The pages whose texts are embedded each alone, as the service embeds them (a thread's gist,
#: by either model: graph/conversations/gists.py), not in a batch: the int8 models scale
#: activations per batch, so a batch's vectors differ slightly from each text's own, and a
#: decision's notices judge a thread by its standing among the user's threads.
EMBEDDED_ALONE = frozenset({"queries/core/reembed_thread_page", REEMBED_NOTIFY_QUERIES[0]})


async def foreign_vectors(db: Database, model_id: str) -> str | None:
    """What the database holds that another embedding model made, as a message saying how
    to move it; ``None`` when every stored vector is ``model_id``'s."""
    rows = await db.read("queries/core/embedding_models", model=model_id)
    if not rows:
        return None
    found = ", ".join(f"{row['count']} {row['kind']} by {row['model']}" for row in rows)
    return (
        f"the database holds vectors another embedding model made ({found}) but the configured "
        f"embedder is {model_id}: a search would compare the two models' vectors, which means "
        "nothing. Move them with `ctxnet db reembed` (resumable: run it again if it stops), or "
        "configure the embedder that made them again (CTXNET_LOCAL_MODEL, CTXNET_EMBEDDER)"
    )


async def reembed(
    db: Database,
    embedder: Embedder,
    batch_size: int = 256,
    progress: Callable[[int], None] | None = None,
    second: Embedder | None = None,
) -> int:
    """Resize mismatched vector indexes and recompute every stale vector; returns nodes done.

    Resumable: a node is done once its ``embeddingModel`` is the current embedder's. A vector
    is stored only if its node's text is still what was embedded (a PATCH meanwhile wins).
    ``second``: the second model of decisions' notices, whose threads' vectors are made last
    (a thread whose gist was made again in the first passes lost its own).
    """
    report = await check_schema(db, embedder.dimension)
    for index, found in report.vector_dimensions.items():
        if found != embedder.dimension:
            log.warning("dropping vector index %s (%d dims) to recreate it", index, found)
            await db.run_autocommit("queries/core/schema_drop_index", name=index)
    await apply_schema(db, embedder.dimension)
    done = 0
    passes = [(queries, embedder) for queries in REEMBED_QUERIES]
    if second is not None:
        passes.append((REEMBED_NOTIFY_QUERIES, second))
    for (page_query, set_query), model in passes:
        while True:
            page = await db.read(page_query, model=model.model_id, limit=batch_size)
            if not page:
                break
            texts = [row["text"] for row in page]
            vectors = await (embed_each(model, texts) if page_query in EMBEDDED_ALONE else model.embed(texts))
            # What the page read (element id, text, and whatever else its set query checks)
            rows = [dict(r) | {"embedding": v} for r, v in zip(page, vectors, strict=True)]
            await db.write(set_query, rows=rows, model=model.model_id)
            done += len(rows)
            if progress is not None:
                progress(len(rows))
    return done
