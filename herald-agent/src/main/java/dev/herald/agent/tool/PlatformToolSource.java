package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.PlatformTool;
import dev.herald.core.platform.PlatformTools;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tools platform plug-ins offer ({@link PlatformTools}) as agent tools, a {@link ToolSource} of the registry: the
 * {@code mcp} entry of a tool list selects them with the MCP servers' tools. A call the plug-in says needs an approval
 * is {@link Danger dangerous}, so it goes through the same approval flow as {@code shell}.
 */
public final class PlatformToolSource implements ToolSource {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PlatformTools tools;
    /** One agent tool per plug-in tool, made once: the tool set keeps its encoded spec while the object is the same. */
    private final Map<PlatformTool, Tool> adapted = new ConcurrentHashMap<>();

    public PlatformToolSource(PlatformTools tools) {
        this.tools = Objects.requireNonNull(tools, "tools");
    }

    @Override
    public List<Tool> tools() {
        return tools.all().stream().map(t -> adapted.computeIfAbsent(t, Adapted::new)).toList();
    }

    /** One plug-in tool seen as an agent tool; the arguments go to it as JSON text. */
    private static final class Adapted implements Tool {
        private final PlatformTool tool;
        private final JsonNode schema;

        Adapted(PlatformTool tool) {
            this.tool = tool;
            try {
                this.schema = JSON.readTree(tool.parametersJson());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("tool - the schema of " + tool.name() + " is not JSON: " + e.getOriginalMessage(), e);
            }
        }

        @Override
        public String name() {
            return tool.name();
        }

        @Override
        public String description() {
            return tool.description();
        }

        @Override
        public JsonNode parameters() {
            return schema;
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return tool.approvalReason(args.toString()).map(Danger::because).orElse(Danger.NONE);
        }

        @Override
        public String summarize(JsonNode args) {
            return tool.summarize(args.toString());
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            PlatformTool.Result result = tool.call(args.toString());
            return result.error() ? ToolResult.error(result.text()) : ToolResult.ok(result.text());
        }
    }
}
