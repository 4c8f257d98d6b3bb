"""tinmem inside agent frameworks that are not pluggy hosts: the OpenAI Agents SDK
(``adapters.openai_agents``) and LangGraph (``adapters.langgraph``), on one binding
(``adapters.binding``) that calls the same hooks and tools as every other host."""
