"""``python -m bench``: every benchmark, one after the other (about 20 minutes on 2 cores)."""

from bench import conversations, integrity, knowledge, platform

platform.main()
knowledge.main()
conversations.main()
integrity.main()
