package dev.herald.agent.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import dev.herald.agent.tool.TooLongToApprove;

/** One tool of an MCP server as the model sees it ({@code <server>__<tool>}); calls go to the server's current connection. */
final class McpTool implements Tool {
    private final McpServer server;
    private final String remoteName;
    private final String name;
    private final String description;
    private final JsonNode parameters;

    McpTool(McpServer server, String remoteName, String name, String description, JsonNode parameters) {
        this.server = server;
        this.remoteName = remoteName;
        this.name = name;
        this.description = description;
        this.parameters = parameters;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public JsonNode parameters() {
        return parameters;
    }

    @Override
    public boolean alwaysAsks() {
        return !server.settings().trusted();
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return server.settings().trusted() ? Danger.NONE
                : Danger.because("calls the MCP server '" + server.settings().name() + "' (not marked trusted)");
    }

    @Override
    public String summarize(JsonNode args) {
        return name + " " + Texts.line(args.toString(), 200);
    }

    /** The tool and its whole arguments as JSON; refused when longer than {@link #APPROVAL_LIMIT}. */
    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        String json = TooLongToApprove.check(args.toPrettyString(), "call's JSON arguments", APPROVAL_LIMIT);
        return "MCP server '" + server.settings().name() + "', tool '" + remoteName + "', arguments:\n" + json;
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        return server.call(remoteName, name, args, context);
    }
}
