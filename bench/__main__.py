"""``python -m bench``: every benchmark, one after the other (about 125 minutes on 2 cores)."""

from bench import (
    continuity,
    conversations,
    dedupe,
    imports,
    integrity,
    journal,
    knowledge,
    load,
    notify,
    platform,
    project,
    retrieval,
    wakeup,
)

platform.main()
knowledge.main()
conversations.main()
integrity.main()
load.main()
continuity.main()
journal.main()
wakeup.main()
project.main()
retrieval.main()
dedupe.main()
notify.main()
imports.main()
