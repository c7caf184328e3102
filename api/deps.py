"""FastAPI dependencies: the process's services, one per domain, and the calling principal."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from graph.continuity.agents import AgentRegistry
from graph.continuity.bridge import BridgeService
from graph.continuity.brief import BriefService
from graph.continuity.catchup import CatchUpService
from graph.continuity.goals import GoalService
from graph.continuity.orient import OrientService
from graph.continuity.pending import PendingActionService
from graph.continuity.profile import ProfileService
from graph.continuity.sessions import SessionService
from graph.continuity.skills import SkillService
from graph.continuity.toolcalls import ToolCallService
from graph.continuity.wiki import WikiService
from graph.conversations.memory import ConversationMemory
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import InvalidInput, Unauthenticated
from graph.core.jobs import Jobs
from graph.core.principals import ApiKeys, Principal, Role
from graph.core.ratelimit import RateLimiter
from graph.core.settings import Settings
from graph.core.values import check_id
from graph.io.dump import UserDump
from graph.io.restore import UserRestore
from graph.knowledge.network import KnowledgeNetwork
from graph.project.agent_docs import AgentDocService
from graph.project.context import ProjectContextService
from graph.project.forget import ForgetService
from graph.project.maintenance import MaintenanceService
from graph.project.unified import UnifiedSearch


@dataclass
class Services:
    """What the lifespan builds once per process and every request shares."""

    settings: Settings
    db: Database
    embedder: Embedder
    api_keys: ApiKeys
    jobs: Jobs
    knowledge: KnowledgeNetwork
    conversations: ConversationMemory
    rate_limiter: RateLimiter
    agents: AgentRegistry
    sessions: SessionService
    pending_actions: PendingActionService
    bridge: BridgeService
    profile: ProfileService
    goals: GoalService
    skills: SkillService
    tool_calls: ToolCallService
    wiki: WikiService
    catch_up: CatchUpService
    orient: OrientService
    brief: BriefService
    project: ProjectContextService
    agent_docs: AgentDocService
    unified: UnifiedSearch
    maintenance: MaintenanceService
    forget: ForgetService
    user_dump: UserDump
    user_restore: UserRestore


def get_services(request: Request) -> Services:
    """The services built by the lifespan."""
    services: Services = request.app.state.services
    return services


_bearer = HTTPBearer(auto_error=False, description="An API key from `ctxnet keys create`.")


async def get_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    """Resolve ``Authorization: Bearer <key>`` to the principal making the request."""
    services = get_services(request)
    if services.settings.api_key_mode == "disabled":
        principal = _in_session(request, Principal(user_id="local", role=Role.HUMAN))
        await services.sessions.require_open(principal)
        return principal
    if credentials is None:
        if request.headers.get("authorization"):
            raise Unauthenticated("the Authorization header must be 'Bearer <key>'")
        raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
    principal = _in_session(request, await services.api_keys.resolve(credentials.credentials))
    request.state.principal = principal
    await services.rate_limiter.take(principal)
    await services.sessions.require_open(principal)  # one indexed read, only with X-Session-ID
    return principal


def _in_session(request: Request, principal: Principal) -> Principal:
    """The principal acting in the session its ``X-Session-ID`` header names, if any (422 for
    a header that is not an id; whether it names an open session of the caller's is
    :meth:`SessionService.require_open`'s to check), giving the reason of ``X-Change-Reason`` (at most 500
    characters), if any."""
    session_id = request.headers.get("x-session-id")
    if session_id is not None:
        principal = replace(principal, session_id=check_id(session_id, "X-Session-ID"))
    reason = request.headers.get("x-change-reason")
    if reason is not None:
        reason = reason.strip()
        if not reason or len(reason) > MAX_REASON:
            raise InvalidInput(f"X-Change-Reason must be 1-{MAX_REASON} characters", field="X-Change-Reason")
        principal = replace(principal, reason=reason)
    return principal


#: The longest reason a change may give (``X-Change-Reason``).
MAX_REASON = 500


def get_knowledge(request: Request) -> KnowledgeNetwork:
    """The knowledge network: notes, edges, retrieval."""
    return get_services(request).knowledge


def get_conversations(request: Request) -> ConversationMemory:
    """Conversation memory: threads, insights, jobs."""
    return get_services(request).conversations


ServicesDep = Annotated[Services, Depends(get_services)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
KnowledgeDep = Annotated[KnowledgeNetwork, Depends(get_knowledge)]
ConversationsDep = Annotated[ConversationMemory, Depends(get_conversations)]
