"""Neo4j Browser, ready to explore: the guide ``:play`` shows and the style ``:style`` loads.

The guide is rendered from ``cypher/explore/*.cypher``, so a new explore file becomes a new
slide without editing HTML: each file's leading ``//`` comment is the slide's text, its
``// :param`` lines a click-to-run block of their own, and the rest the click-to-run query.
The markup is what Neo4j Browser 5 plays from a remote URL: ``<slide>`` elements inside
``<article class="guide"><carousel>``, and ``<pre class="runnable">`` blocks, which put
their text into the editor on a click and run it from the play icon Browser adds to them.
The API serves both files (``api/routes/browser.py``); the local Neo4j's configuration
allows its host (``ctxnet/neo4j_server.py``), and ``ctxnet browser`` prints or writes them.
Both sides read them here, below the API.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from graph.core.cypher import cypher_names, cypher_text
from graph.core.settings import Settings

#: Where the API serves the guide and the style (outside ``/v1``, no key).
GUIDE_PATH = "/guide/context-network.html"
STYLE_PATH = "/guide/context-network.grass"
GUIDE_TITLE = "Context Network: the graph of an agent's memory"

#: What each node label holds, in the product's words (the first slide).
LABELS: tuple[tuple[str, str], ...] = (
    ("Knowledge", "an atomic note; one sublabel says its type: Fact, Concept, Procedure, Decision"),
    (
        "ProjectContext",
        "a note that shapes agents: ArchitectureDecision, Pattern or Constraint beside it",
    ),
    ("Thread, Message, Insight", "a conversation, its messages in order, what was extracted from it"),
    ("Session", "one agent's working session with a user, chained to the one before"),
    ("PendingAction", "what a session left open, carried into the next one"),
    ("Mutation", "the journal: every change of anything, who made it and in which session"),
    ("Correction", "a person's fix of an agent's note, which agents must not undo"),
    ("Goal", "a user's goal stack, each goal a step of its parent"),
    ("Skill", "a procedure an agent loads when its trigger fits"),
    ("WikiPage", "a saved session: its summary, decisions and open questions"),
    ("AgentDoc", "a line of an agent's own documentation and instructions"),
)
#: The typed edges between notes.
EDGES: tuple[tuple[str, str], ...] = (
    ("RELATED_TO", "two notes about the same thing"),
    ("DEPENDS_ON", "a note that holds only while the other holds"),
    ("SUPERSEDES", "a note that replaces an older one (which stays, for history)"),
    ("CONFLICTS_WITH", "two notes that contradict each other: one of them is wrong"),
)


@dataclass(frozen=True)
class ExploreQuery:
    """One file of ``cypher/explore/``, split the way the guide shows it."""

    name: str
    summary: str
    params: tuple[str, ...]
    query: str

    @property
    def title(self) -> str:
        """``user_network`` reads as "User network"."""
        return self.name.replace("_", " ").capitalize()

    @property
    def param_block(self) -> str:
        """The ``:param`` lines as one runnable script: Browser splits a script at ``;``."""
        return ";\n".join(self.params)


def parse_explore(name: str, text: str) -> ExploreQuery:
    """Split an explore file into its leading comment, its ``:param`` lines and its query."""
    summary: list[str] = []
    params: list[str] = []
    lines = text.strip().splitlines()
    while lines and lines[0].lstrip().startswith("//"):
        comment = lines.pop(0).lstrip()[2:].strip()
        if comment.startswith(":param"):
            params.append(comment)
        else:
            summary.append(comment)
    query = "\n".join(lines).strip()
    if not query:
        raise ValueError(f"cypher/explore/{name}.cypher holds no query after its comment")
    return ExploreQuery(name=name, summary=" ".join(summary), params=tuple(params), query=query)


def explore_queries() -> list[ExploreQuery]:
    """Every ``cypher/explore/`` file, by name."""
    return [
        parse_explore(name.removeprefix("explore/"), cypher_text(name)) for name in cypher_names("explore")
    ]


def _runnable(text: str) -> str:
    return f'<pre class="pre-scrollable code runnable">{html.escape(text)}</pre>'


def _table(rows: tuple[tuple[str, str], ...]) -> str:
    body = "".join(
        f"<tr><td><code>{html.escape(name)}</code></td><td>{html.escape(text)}</td></tr>"
        for name, text in rows
    )
    return f'<table class="table table-condensed">{body}</table>'


def _slide(heading: str, body: str) -> str:
    return (
        '<slide class="row-fluid">\n<div class="col-sm-12">\n'
        f"<h3>{html.escape(heading)}</h3>\n{body}\n</div>\n</slide>"
    )


def _query_slide(query: ExploreQuery) -> str:
    parts = [
        f"<p>{html.escape(query.summary)}</p>",
        f"<p><small><code>cypher/explore/{html.escape(query.name)}.cypher</code></small></p>",
    ]
    if query.params:
        parts += [
            "<p>Set its parameters first (change the values to yours):</p>",
            _runnable(query.param_block),
        ]
    parts += ["<p>Then run it:</p>", _runnable(query.query)]
    return _slide(query.title, "\n".join(parts))


#: Keyed by the style URL, which follows the Host a request came with: a few at most.
@lru_cache(maxsize=8)
def render_guide(style_url: str | None = None) -> str:
    """The guide's HTML; ``style_url`` (where the API serves the style) adds a block that loads it."""
    queries = explore_queries()
    style = (
        "<p>Caption notes by title and colour them by type: load the project's style once.</p>"
        + _runnable(f":style {style_url}")
        if style_url
        else ""
    )
    intro = "\n".join(
        [
            "<p>Every node carries the <code>userId</code> of its owner: each query in this guide "
            "is scoped to one user by <code>$userId</code>, set with <code>:param</code>. Click a "
            "block to put it into the editor; click its play icon to run it.</p>",
            _runnable(":param userId => 'dev'"),
            style,
            _table(LABELS),
        ]
    )
    edges = "\n".join(
        [
            "<p>Notes are joined by four typed edges, which the queries of this guide follow:</p>",
            _table(EDGES),
            "<p>Around them, the graph keeps provenance: <code>HAS_MESSAGE</code>, "
            "<code>EXTRACTED_FROM</code>, <code>RAN</code>, <code>PREVIOUS</code>, "
            "<code>LEFT_OPEN</code>, <code>CARRIES</code>, <code>CHANGED</code>, "
            "<code>RECORDS</code>, <code>SUBGOAL_OF</code>, <code>SAVED_AS</code>, "
            "<code>ANNOUNCES</code>. The whole schema as a graph:</p>",
            _runnable("CALL db.schema.visualization()"),
            "<p>The next slides are the ready-made queries of <code>cypher/explore/</code>, one each:</p>",
            "<ul>" + "".join(f"<li>{html.escape(q.title)}</li>" for q in queries) + "</ul>",
        ]
    )
    slides = [_slide(GUIDE_TITLE, intro), _slide("The edges between notes", edges)]
    slides += [_query_slide(query) for query in queries]
    return (
        f"<title>{html.escape(GUIDE_TITLE)}</title>\n"
        '<article class="guide">\n<carousel class="deck container-fluid">\n'
        + "\n".join(slides)
        + "\n</carousel>\n</article>\n"
    )


def style_text() -> str:
    """The Browser style (GRASS) shipped in ``graph/core/browser_style.grass``."""
    return (resources.files("graph.core") / "browser_style.grass").read_text(encoding="utf-8")


def api_base_url(settings: Settings) -> str:
    """The local API as Neo4j Browser reaches it. ``localhost`` is on Neo4j's default
    allow-list for remote guides, so ``:play`` works even against a Neo4j whose
    configuration this project did not write (docker-compose, an older start)."""
    host = settings.api_host
    if host in ("127.0.0.1", "0.0.0.0", "::", "::1", ""):  # noqa: S104 - a comparison, not a bind
        host = "localhost"
    return f"http://{host}:{settings.api_port}"


def guide_url(base_url: str) -> str:
    """Where the API at ``base_url`` serves the guide."""
    return base_url.rstrip("/") + GUIDE_PATH


def style_url(base_url: str) -> str:
    """Where the API at ``base_url`` serves the style."""
    return base_url.rstrip("/") + STYLE_PATH
