"""FastAPI dependencies: the process's services and the calling principal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from graph.conversations import ConversationService
from graph.db import Database
from graph.embeddings import Embedder
from graph.errors import Unauthenticated
from graph.insights import InsightService
from graph.knowledge import KnowledgeService
from graph.principals import ApiKeys, Principal, Role
from graph.settings import Settings


@dataclass
class Services:
    """What the lifespan builds once per process and every request shares."""

    settings: Settings
    db: Database
    embedder: Embedder
    api_keys: ApiKeys
    knowledge: KnowledgeService
    conversations: ConversationService
    insights: InsightService


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
        return Principal(user_id="local", role=Role.HUMAN)
    if credentials is None:
        if request.headers.get("authorization"):
            raise Unauthenticated("the Authorization header must be 'Bearer <key>'")
        raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
    principal = await services.api_keys.resolve(credentials.credentials)
    request.state.principal = principal
    return principal


ServicesDep = Annotated[Services, Depends(get_services)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
