"""The agent-facing tools: definitions, argument models, handlers, rate limit, MCP server."""
