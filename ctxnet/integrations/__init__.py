"""Context Network inside agent frameworks: each integration an optional extra, each a thin
adapter over :mod:`ctxnet.client` that keeps what the service adds (the agent and session on
every write, a person's word over an agent's, every read the caller's own).

* ``ctxnet.integrations.langgraph``: ``ContextNetworkStore``, LangGraph's ``BaseStore``
  (extra ``langgraph``).
* ``ctxnet.integrations.llamaindex``: ``ContextNetworkMemoryBlock``, a memory block of
  LlamaIndex's ``Memory`` (extra ``llamaindex``).
* ``ctxnet.integrations.openai_agents``: ``ContextNetworkSession``, the OpenAI Agents SDK's
  ``Session`` (extra ``openai-agents``).
* ``ctxnet.integrations.anthropic_memory``: ``ContextNetworkMemoryTool``, a backend of the
  Anthropic SDK's memory tool for Claude (extra ``anthropic``).

Importing this package imports no framework; each module imports only its own.
"""
