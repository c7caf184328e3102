"""The walk-through (README.md's, carried on in docs/continuity.md and docs/project.md) and
docs/client.md's first example, run as the pages print them.

How the pages are read: in each section of the walk-through (``WALKTHROUGH``: the README's
"Five minutes with it", then the "Try it" sections that carry it on), each ```sh block is a
step, and the ```text block right after it is what the step prints (a step without one
prints nothing). docs/client.md's first ```python block is run as one Python program, and
the ```text block after it is what it prints.

How they run: every step in order in one bash process, in the checkout's root, against this
suite's API process; the Python example in the venv's Python. They act as a fresh user, and
before running, only this is rewritten in the commands: the page's API address
(``http://127.0.0.1:8000``) becomes the test API's, ``.data/dev-api-key`` (the key
``make run`` made) a file holding a person's key of the fresh user, and ``--user dev`` that
user. The Python example reads ``CTXNET_API_URL`` and ``CTXNET_API_KEY``, set to the same.
Where curl is not installed, a stand-in doing what the page's options ask (-s, -X, -H, -d)
is put first on the PATH.

How outputs are compared: line by line, after normalising on both sides only what differs
from run to run: dates and times (``2026-12-01``, ``2026-12-01T08:56:00.764+00:00``,
``2026-12-01 08:56 UTC``) become ``<time>``; ids the server generates (a run of 20 or more
hex digits, and the six that end a saved page's slug) become ``<id>``; decimal numbers with
3 or more digits after the point (scores and similarities) become ``<score>``. Anything a
step writes to stderr fails the test.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from graph.core.principals import Role
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
CLIENT_PAGE = ROOT / "docs" / "client.md"
#: The walk-through: the README's section, then the sections of docs pages that carry it on
#: (with its variables, helpers and what it wrote), in this order.
WALKTHROUGH = [
    (README, "## Five minutes with it"),
    (ROOT / "docs" / "continuity.md", "### Try it: wake up, catch up, brief"),
    (ROOT / "docs" / "project.md", "## Try it: decisions that reach agents"),
]
PAGE_URL = "http://127.0.0.1:8000"
DEV_KEY_FILE = ".data/dev-api-key"
DEV_USER = "--user dev"
MARK = "@@ walkthrough: next step @@"

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}| UTC)?)?")
HEX_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{20,}(?![0-9a-f])")
SCORE = re.compile(r"\d+\.\d{3,}")
SLUG_TAIL = re.compile(r"(session-<time>-[a-z0-9-]+)-[0-9a-f]{6}\b")

CURL_STAND_IN = """\
#!/usr/bin/env python3
# A stand-in for curl with the options README.md's walk-through uses: -s, -X, -H, -d.
import sys, urllib.error, urllib.request
args, method, headers, data, url = sys.argv[1:], None, {}, None, None
while args:
    arg = args.pop(0)
    if arg == "-s":
        continue
    if arg == "-X":
        method = args.pop(0)
    elif arg == "-H":
        name, _, value = args.pop(0).partition(":")
        headers[name.strip()] = value.strip()
    elif arg == "-d":
        data = args.pop(0).encode()
    elif arg.startswith("-"):
        sys.exit(f"curl stand-in: {arg} is not an option the walk-through uses")
    else:
        url = arg
method = method or ("POST" if data else "GET")
request = urllib.request.Request(url, data=data, headers=headers, method=method)
try:
    with urllib.request.urlopen(request) as response:
        sys.stdout.buffer.write(response.read())
except urllib.error.HTTPError as error:
    sys.stdout.buffer.write(error.read())
"""


@dataclass
class Step:
    """Commands of the page and what the page shows they print."""

    commands: str
    shown: str = ""
    where: str = ""


def walkthrough(page: Path, heading: str) -> list[Step]:
    """The steps of one section of the walk-through, in order."""
    markdown = page.read_text(encoding="utf-8")
    assert f"\n{heading}\n" in markdown, f"{page.name} has no section {heading!r}"
    section = _section(markdown.split(f"\n{heading}\n", 1)[1], heading.index(" "))
    steps: list[Step] = []
    after_commands = False
    for language, text in FENCE.findall(section):
        if language == "sh":
            steps.append(Step(text, where=f"{page.name}, {heading.lstrip('# ')}"))
            after_commands = True
        elif language == "text":
            assert after_commands, f"an output block follows no commands:\n{text}"
            steps[-1].shown = text
            after_commands = False
        else:
            after_commands = False
    assert steps, f"{page.name}, {heading!r}: no ```sh blocks"
    return steps


def _section(text: str, level: int) -> str:
    """Text up to the next heading of this level or above, not counting fenced blocks."""
    lines, fenced = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        lines.append(line)
    return "".join(lines)


def normalised(text: str) -> list[str]:
    """The lines of an output with what varies from run to run replaced (see the module)."""
    text = TIME.sub("<time>", text)
    text = HEX_ID.sub("<id>", text)
    text = SLUG_TAIL.sub(r"\1-<id>", text)
    text = SCORE.sub("<score>", text)
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def differences(name: str, shown: str, printed: str) -> str:
    """A diff of what the page shows and what was printed, or nothing when they match."""
    if normalised(shown) == normalised(printed):
        return ""
    diff = "\n".join(
        difflib.unified_diff(normalised(shown), normalised(printed), "the page shows", "printed", lineterm="")
    )
    return f"{name}\n{diff}\n--- printed, as it came:\n{printed}\n"


def environment(api: ApiProcess, key: str, bin_dir: Path) -> dict[str, str]:
    """The variables the pages' commands run with: this API and key, and curl on the PATH."""
    env = {**os.environ, "CTXNET_API_URL": api.base_url, "CTXNET_API_KEY": key}
    if shutil.which("curl") is None:
        curl = bin_dir / "curl"
        curl.write_text(CURL_STAND_IN, encoding="utf-8")
        curl.chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


async def test_every_command_of_the_readme_walkthrough_prints_what_the_page_shows(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    person = await make_caller(Role.HUMAN)
    key_file = tmp_path / "dev-api-key"
    key_file.write_text(person.key + "\n", encoding="utf-8")
    steps = [step for page, heading in WALKTHROUGH for step in walkthrough(page, heading)]
    script = f"\nprintf '\\n{MARK}\\n'\n".join(step.commands for step in steps)
    for page_text, ours in (
        (PAGE_URL, api.base_url),
        (DEV_KEY_FILE, str(key_file)),
        (DEV_USER, f"--user {person.user_id}"),
    ):
        assert page_text in script, f"the walk-through no longer uses {page_text!r}: teach this test"
        script = script.replace(page_text, ours)
    started = time.monotonic()
    run = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=ROOT,
        env=environment(api, person.key, tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    printed = run.stdout.split(f"\n{MARK}\n")
    assert len(printed) == len(steps), f"bash stopped early ({run.returncode}):\n{run.stderr}"
    failures = [
        differences(f"step {n} of {len(steps)} ({step.where}):\n{step.commands}", step.shown, output)
        for n, (step, output) in enumerate(zip(steps, printed, strict=True), start=1)
    ]
    report = "".join(failures)
    assert not report, f"the walk-through printed something else:\n{report}\nstderr:\n{run.stderr}"
    assert not run.stderr, f"the walk-through wrote to stderr:\n{run.stderr}"
    assert time.monotonic() - started < 120


async def test_the_first_example_of_the_client_page_prints_what_the_page_shows(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    person = await make_caller(Role.HUMAN)
    blocks = FENCE.findall(CLIENT_PAGE.read_text(encoding="utf-8"))
    index = next(i for i, (language, _) in enumerate(blocks) if language == "python")
    program = blocks[index][1]
    assert index + 1 < len(blocks) and blocks[index + 1][0] == "text", (
        "docs/client.md's first example is not followed by what it prints (a ```text block)"
    )
    shown = blocks[index + 1][1]
    run = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=environment(api, person.key, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, f"docs/client.md's first example failed:\n{run.stderr}"
    report = differences("docs/client.md's first example", shown, run.stdout)
    assert not report, f"docs/client.md's first example printed something else:\n{report}"


@pytest.mark.parametrize(
    ("shown", "printed"),
    [
        (
            "done 2026-12-01T08:56:00.764+00:00 1796171129989799aeaec48ec",
            "done 2027-01-02T10:00:00+00:00 ab12cd34ef56ab12cd34ef56",
        ),
        (
            "# Context bridge (2026-12-01 08:56 UTC)\nscore 0.7976",
            "# Context bridge (2027-01-02 10:11 UTC)\nscore 0.8123",
        ),
        (
            "done (page session-2026-12-02-billing-keeps-f90b3f)",
            "done (page session-2027-01-02-billing-keeps-0a1b2c)",
        ),
    ],
)
def test_normalising_hides_only_times_ids_and_scores(shown: str, printed: str) -> None:
    assert differences("same", shown, printed) == ""
    assert differences("other", shown, printed.replace("done", "failed").replace("bridge", "brief")) != ""
