"""The FastAPI application: one driver and one embedder per process, built in the lifespan."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, Depends, FastAPI

from api.deps import Services, get_principal
from api.desk import router as desk_router
from api.errors import install_error_handlers
from api.limits import BodyLimits
from api.logging import RequestIdMiddleware, configure_logging
from api.metrics import router as metrics_router
from api.routes import (
    browser,
    continuity,
    conversations,
    core,
    corrections,
    forget,
    io,
    knowledge,
    maintenance,
    project,
)
from ctxnet.wire import limits as wire_limits
from ctxnet.wire.errors import V1, answers
from graph.continuity.agents import AgentConfigError, AgentRegistry
from graph.continuity.bridge import BridgeService
from graph.continuity.brief import BriefService
from graph.continuity.catchup import CatchUpService
from graph.continuity.goals import GoalService
from graph.continuity.orient import OrientService
from graph.continuity.pending import PendingActionService
from graph.continuity.profile import ProfileService
from graph.continuity.sessions import SessionService
from graph.continuity.skills import SkillService
from graph.continuity.tokens import TokenCounter
from graph.continuity.toolcalls import ToolCallService
from graph.continuity.wiki import WikiService
from graph.conversations.extractors import build_extractor
from graph.conversations.memory import ConversationMemory
from graph.core.db import Database
from graph.core.embeddings import build_embedder, build_notify_embedder, relevance_floor
from graph.core.errors import DatabaseUnavailable
from graph.core.jobs import Jobs
from graph.core.ledger import Ledger
from graph.core.metrics import MeasuredEmbedder
from graph.core.principals import ApiKeys
from graph.core.ratelimit import RateLimiter
from graph.core.schema import foreign_vectors, migrate
from graph.core.settings import Settings, get_settings
from graph.io.dump import UserDump
from graph.io.restore import UserRestore
from graph.knowledge.network import KnowledgeNetwork
from graph.project.affected import NotifyConfig
from graph.project.agent_docs import AgentDocService
from graph.project.context import ProjectContextService
from graph.project.forget import ForgetService
from graph.project.judge_job import Judge
from graph.project.maintenance import MaintenanceSchedule, MaintenanceService
from graph.project.unified import UnifiedSearch

log = logging.getLogger("ctxnet.api")


class StartupError(RuntimeError):
    """The service cannot start; the message says why in one line."""


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Connect to Neo4j (waiting a bounded time), load the embedder, apply the schema."""
    settings: Settings = app.state.settings
    try:
        agents = AgentRegistry(settings.agents_file)
    except AgentConfigError as exc:
        log.critical(exc.message)
        raise StartupError(exc.message) from None
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(settings.neo4j_startup_wait_seconds)
    except DatabaseUnavailable as exc:
        await db.close()
        message = (
            f"Neo4j at {settings.resolved_neo4j_uri} did not answer within "
            f"{settings.neo4j_startup_wait_seconds:.0f}s ({exc.message}); start it with "
            "`ctxnet neo4j start` or fix CTXNET_NEO4J_URI / CTXNET_NEO4J_PASSWORD"
        )
        log.critical(message)
        raise StartupError(message) from None
    embedder = MeasuredEmbedder(await asyncio.to_thread(build_embedder, settings))
    # The second model that compares a new decision with the user's threads (graph/project/notify.py).
    loaded = await asyncio.to_thread(build_notify_embedder, settings)
    second = MeasuredEmbedder(loaded) if loaded is not None else None
    try:
        await migrate(db, embedder.dimension)
    except Exception as exc:
        await db.close()
        log.critical("schema check failed: %s", exc)
        raise
    foreign = await foreign_vectors(db, embedder.model_id)
    if foreign is not None and settings.serve_foreign_vectors:
        log.warning("%s (serving anyway: CTXNET_SERVE_FOREIGN_VECTORS is set)", foreign)
    elif foreign is not None:
        await db.close()
        log.critical("%s; or set CTXNET_SERVE_FOREIGN_VECTORS=true to serve meanwhile", foreign)
        raise StartupError(foreign)
    jobs = Jobs(
        db,
        lease_seconds=settings.job_lease_seconds,
        max_in_flight=settings.jobs_max_in_flight,
        shutdown_grace_seconds=settings.job_shutdown_grace_seconds,
    )
    await jobs.fail_expired()
    knowledge_network = KnowledgeNetwork.from_settings(db, embedder, settings)
    extractor = build_extractor(settings)
    conversation_memory = ConversationMemory.from_settings(
        db, embedder, extractor, knowledge_network.notes, jobs, settings, second
    )
    counter = await asyncio.to_thread(TokenCounter)
    project = ProjectContextService(
        db,
        embedder,
        knowledge_network.notes,
        knowledge_network.edges,
        agents,
        NotifyConfig.from_settings(settings),
        second,
        conversation_memory.gists,
    )
    # Where the offline rules are unsure, a model decides after the create (with CTXNET_LLM_MODEL).
    judge = Judge.from_settings(
        db, jobs, embedder, project, settings, second=second, gists=conversation_memory.gists
    )
    knowledge_network.notes.on_created(judge.mark)
    app.state.services = Services(
        settings=settings,
        db=db,
        embedder=embedder,
        api_keys=ApiKeys(db, cache_seconds=settings.api_key_cache_seconds, ledger=Ledger.of(settings)),
        jobs=jobs,
        knowledge=knowledge_network,
        conversations=conversation_memory,
        rate_limiter=RateLimiter(db, settings.rate_limit_per_minute),
        agents=agents,
        sessions=SessionService(db),
        pending_actions=PendingActionService(db),
        bridge=BridgeService(
            db,
            embedder,
            agents,
            knowledge_network.retrieval,
            conversation_memory.insights,
            counter,
            min_similarity=relevance_floor(settings),
        ),
        profile=ProfileService(db, conversation_memory.insights),
        goals=GoalService(db),
        skills=SkillService(db),
        tool_calls=ToolCallService(db),
        wiki=WikiService(db, embedder),
        catch_up=CatchUpService(db),
        orient=OrientService(db, embedder.dimension, correction_window_days=settings.correction_window_days),
        brief=BriefService(
            db,
            embedder,
            knowledge_network.retrieval,
            conversation_memory.insights,
            counter,
            min_similarity=relevance_floor(settings),
        ),
        project=project,
        agent_docs=AgentDocService(db, embedder, counter),
        unified=UnifiedSearch(db, embedder, knowledge_network.retrieval, conversation_memory.insights),
        maintenance=MaintenanceService.from_settings(db, conversation_memory.insights, jobs, settings, judge),
        forget=ForgetService(
            db, knowledge_network.sizes, gists=conversation_memory.gists, ledger=Ledger.of(settings)
        ),
        user_dump=UserDump(db),
        user_restore=UserRestore(db, knowledge_network.sizes),
    )
    # Everything loaded so far (the embedder, FastAPI, the driver) lives as long as the
    # process: keep it out of the cyclic collector's full scans, which a 1,000-note batch
    # (a million new Python objects) would otherwise trigger several times per request.
    gc.collect()
    gc.freeze()
    log.info(
        "ready",
        extra={
            "neo4j": settings.resolved_neo4j_uri,
            "embedder": embedder.model_id,
            "dimension": embedder.dimension,
            "extractor": extractor.name,
        },
    )
    # Scheduled maintenance (off unless an interval is set): due runs become jobs here.
    schedule = MaintenanceSchedule.from_settings(app.state.services.maintenance, db, settings)
    schedule.start()
    conversation_memory.gists.start()
    judge.start_loop()
    try:
        yield
    finally:
        await schedule.stop()
        await judge.stop_loop()
        await conversation_memory.gists.stop()
        await jobs.wait_idle()
        await judge.close()
        for client in (embedder, extractor):
            close = getattr(client, "close", None)
            if close is not None:
                await close()
        await db.close()


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; ``settings`` default to the environment's."""
    settings = settings or get_settings()
    configure_logging(settings.log_level, settings.log_format)
    app = FastAPI(
        title="Context Network",
        version="0.1.0",
        summary="Memory and knowledge for AI agents, stored in Neo4j.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    # The wire's validators and the document state this server's word limit and vector size.
    wire_limits.install(lambda: core.server_limits(settings))
    app.add_middleware(
        BodyLimits,
        max_body_bytes=settings.api_max_body_bytes,
        max_batch_body_bytes=settings.api_max_batch_body_bytes,
    )
    app.add_middleware(RequestIdMiddleware)
    install_error_handlers(app)
    app.include_router(core.public)
    app.include_router(browser.public)
    app.include_router(desk_router)
    app.include_router(metrics_router)
    v1 = APIRouter(prefix="/v1", dependencies=[Depends(get_principal)], responses=answers(*V1))
    v1.include_router(core.router)
    v1.include_router(knowledge.router)
    v1.include_router(knowledge.search_router)
    v1.include_router(conversations.router)
    v1.include_router(continuity.router)
    v1.include_router(corrections.router)
    v1.include_router(project.router)
    v1.include_router(project.search_router)
    v1.include_router(maintenance.router)
    v1.include_router(forget.router)
    v1.include_router(io.router)  # last: a sweep of the document restores into a user only after the rest
    app.include_router(v1)
    return app
