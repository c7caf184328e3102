"""``python -m bench``: every benchmark, one after the other (about 165 minutes on 2 cores;
``python -m bench.imports embedded``, the embedder side at 100,000 notes, runs on its own)."""

from bench import (
    continuity,
    conversations,
    dedupe,
    findings,
    imports,
    integrity,
    journal,
    knowledge,
    load,
    memory_io,
    notify,
    notify_pairs,
    platform,
    project,
    retrieval,
    trust,
    valid_time,
    wakeup,
    whole_user,
)

platform.main()
knowledge.main()
valid_time.main()
conversations.main()
integrity.main()
load.main()
continuity.main()
journal.main()
trust.main()
wakeup.main()
project.main()
retrieval.main()
findings.main()
dedupe.main()
notify.main()
notify_pairs.main()
imports.main()
memory_io.main()
whole_user.main()
