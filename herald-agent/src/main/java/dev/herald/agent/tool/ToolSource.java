package dev.herald.agent.tool;

import java.util.List;

/** Tools that come and go at run time (an MCP server's list); asked for the current list at every model call. */
public interface ToolSource {

    /** The tools available now, in a stable order. */
    List<Tool> tools();
}
