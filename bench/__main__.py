"""``python -m bench``: every benchmark, one after the other (about 40 minutes on 2 cores)."""

from bench import conversations, integrity, knowledge, load, platform

platform.main()
knowledge.main()
conversations.main()
integrity.main()
load.main()
