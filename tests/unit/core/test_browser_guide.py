"""The Neo4j Browser guide and style: rendered from cypher/explore, kept intact by Browser's
sanitiser, parsed as Browser parses GRASS, allowed by the local Neo4j's configuration, and
reachable from the ``ctxnet browser`` commands."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ctxnet.cli import app
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.browser_guide import (
    EDGES,
    GUIDE_TITLE,
    api_base_url,
    explore_queries,
    parse_explore,
    render_guide,
    style_text,
)
from graph.core.settings import Settings

EXPLORE = Path(__file__).resolve().parents[3] / "cypher" / "explore"


def test_every_explore_file_is_a_slide_of_the_guide_with_its_params_and_query() -> None:
    guide = render_guide("http://localhost:8000/guide/context-network.grass")
    files = sorted(EXPLORE.glob("*.cypher"))
    assert files, "cypher/explore/ has no queries"
    assert guide.count("<slide ") == 2 + len(files)
    for path in files:
        query = parse_explore(path.stem, path.read_text(encoding="utf-8"))
        assert f"cypher/explore/{path.name}" in guide
        assert f"<h3>{html.escape(query.title)}</h3>" in guide
        assert html.escape(query.summary) in guide
        assert f'<pre class="pre-scrollable code runnable">{html.escape(query.query)}</pre>' in guide
        if query.params:
            assert (
                f'<pre class="pre-scrollable code runnable">{html.escape(query.param_block)}</pre>' in guide
            )
    assert [q.name for q in explore_queries()] == [p.stem for p in files]


def test_the_guide_says_what_the_graph_holds() -> None:
    guide = render_guide(None)
    assert f"<h3>{html.escape(GUIDE_TITLE)}</h3>" in guide
    for word in ("Knowledge", "Fact", "Concept", "Procedure", "Decision", "ProjectContext",
                 "ArchitectureDecision", "Pattern", "Constraint", "Thread", "Message", "Insight",
                 "Session", "PendingAction", "Mutation", "Correction", "Goal", "Skill", "WikiPage",
                 "AgentDoc", "userId"):  # fmt: skip
        assert word in guide, word
    for edge, _ in EDGES:
        assert f"<code>{edge}</code>" in guide
    assert ":style " not in guide  # no style block without a URL to load it from


def test_an_explore_file_splits_into_summary_params_and_query() -> None:
    text = (
        "// One note and its edges,\n// two hops out.\n// :param userId => 'dev'\n// :param noteId => 'n1'\n"
    )
    query = parse_explore("note_neighborhood", text + "MATCH (n {id: $noteId})\n// kept\nRETURN n\n")
    assert query.title == "Note neighborhood"
    assert query.summary == "One note and its edges, two hops out."
    assert query.params == (":param userId => 'dev'", ":param noteId => 'n1'")
    # Browser splits a script at ";": each line then runs as its own command.
    assert query.param_block == ":param userId => 'dev';\n:param noteId => 'n1'"
    assert query.query == "MATCH (n {id: $noteId})\n// kept\nRETURN n"
    with pytest.raises(ValueError, match="holds no query"):
        parse_explore("empty", "// only a comment\n")


def test_browsers_sanitiser_leaves_the_guide_as_it_is() -> None:
    """Browser runs these regular expressions over a remote guide before it shows it
    (``cleanHtml`` in neo4j-browser's remoteUtils.ts); text like ``x.one = 1`` in a query
    would otherwise lose a piece as if it were an ``on...=`` handler."""
    guide = render_guide("http://localhost:8000/guide/context-network.grass")
    handlers = re.compile(r"""(\s+(on[^\s=]+)[^\s=]*\s*=\s*("[^"]*"|'[^']*'|[\w\-.:]+\s*))""", re.IGNORECASE)
    scripts = re.compile(r"<script\b[^<]*(?:(?!</script>)<[^<]*)*(</script>)?", re.IGNORECASE)
    assert handlers.findall(guide) == []
    assert scripts.findall(guide) == []
    assert "javascript:" not in guide


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """GRASS as Neo4j Browser 5 reads it (``parseGrassCSS`` in grassUtils.ts): no comments,
    quotes dropped, ``{`` inside a rule is a property binding."""
    rules: dict[str, str] = {}
    inside_string = inside_props = inside_binding = False
    keyword = props = ""
    for c in text:
        if c == "{" and not inside_string:
            if inside_props:
                inside_binding = True  # an unquoted {property}: Browser drops the brace
            else:
                inside_props = True
            continue
        if c == "}" and not inside_string:
            if inside_binding:
                inside_binding = False
            else:
                inside_props = False
                rules[keyword] = props
                keyword = props = ""
            continue
        if c in "'\"":
            inside_string = not inside_string
            continue
        if inside_props:
            props += c
        elif not c.isspace():
            keyword += c
    parsed: dict[str, dict[str, str]] = {}
    for selector, body in rules.items():
        parsed[selector] = {}
        for prop in body.split(";"):
            key, _, value = prop.partition(":")
            if key.strip() and value.strip():
                parsed[selector][key.strip()] = value.strip()
    return parsed


def test_the_style_captions_notes_by_title_and_colours_them_by_type() -> None:
    rules = parse_grass(style_text())
    selector = re.compile(r"^(node|relationship)(\.[A-Za-z_]+)?$")
    assert all(selector.match(name) for name in rules), [n for n in rules if not selector.match(n)]
    assert rules["node.Knowledge"]["caption"] == "{title}"
    assert rules["node.Thread"]["caption"] == "{topic}"
    colours = [
        rules[f"node.{label}"]["color"]
        for label in (
            "Fact",
            "Concept",
            "Procedure",
            "Decision",
            "ArchitectureDecision",
            "Pattern",
            "Constraint",
        )
    ]
    assert len(set(colours)) == len(colours), "each type its own colour"
    for label in ("Message", "Insight", "Session", "PendingAction", "Mutation", "Correction", "Goal",
                  "Skill", "WikiPage", "AgentDoc"):  # fmt: skip
        assert "caption" in rules[f"node.{label}"], label
    for edge, _ in EDGES:
        assert f"relationship.{edge}" in rules
    # Browser applies matching rules in file order: the type's colour must come after Knowledge's.
    order = list(rules)
    assert order.index("node.Knowledge") < order.index("node.Fact") < order.index("node.ArchitectureDecision")


def test_the_local_neo4j_allows_and_plays_the_guide(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, api_port=8123)
    conf = LocalNeo4j(settings).write_config().read_text()
    allowed = re.search(r"^browser\.remote_content_hostname_whitelist=(.*)$", conf, re.MULTILINE)
    assert allowed is not None
    assert {"localhost", "127.0.0.1"} <= set(allowed.group(1).split(","))
    assert "browser.post_connect_cmd=play http://localhost:8123/guide/context-network.html" in conf
    assert (
        api_base_url(Settings(data_dir=tmp_path, api_host="ctx.example", api_port=9))
        == "http://ctx.example:9"
    )


def test_ctxnet_browser_prints_the_commands_and_the_style(tmp_path: Path) -> None:
    runner = CliRunner()
    target = tmp_path / "guide.html"
    done = runner.invoke(app, ["browser", "guide", "--url", "http://api.test:9000", "--write", str(target)])
    assert done.exit_code == 0, done.output
    assert ":play http://api.test:9000/guide/context-network.html" in done.stdout
    assert ":style http://api.test:9000/guide/context-network.grass" in done.stdout
    assert target.read_text(encoding="utf-8") == render_guide(
        "http://api.test:9000/guide/context-network.grass"
    )
    style = runner.invoke(app, ["browser", "style"])
    assert style.exit_code == 0 and style.stdout == style_text()
