package dev.herald.agent.mcp;

import dev.herald.agent.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;

/** An MCP call result as text for the model: text parts joined, other parts described, errors marked. */
final class McpResults {
    private McpResults() {
    }

    static ToolResult render(McpSchema.CallToolResult result, String exposed) {
        StringBuilder text = new StringBuilder();
        if (result.content() != null) {
            for (McpSchema.Content part : result.content()) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(describe(part));
            }
        }
        if (text.isEmpty() && result.structuredContent() != null) {
            text.append(String.valueOf(result.structuredContent()));
        }
        String body = text.isEmpty() ? "(no content)" : text.toString();
        return Boolean.TRUE.equals(result.isError()) ? ToolResult.error("'" + exposed + "' reported an error: " + body) : ToolResult.ok(body);
    }

    private static String describe(McpSchema.Content part) {
        return switch (part) {
            case McpSchema.TextContent t -> t.text();
            case McpSchema.ImageContent i -> "[image, " + i.mimeType() + ", " + (i.data() == null ? 0 : i.data().length() * 3 / 4) + " bytes]";
            case McpSchema.EmbeddedResource r when r.resource() instanceof McpSchema.TextResourceContents t -> t.text();
            case McpSchema.EmbeddedResource r -> "[resource " + r.resource().uri() + "]";
            default -> "[" + part.type() + " content]";
        };
    }
}
