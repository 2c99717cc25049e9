package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tool selection per platform and per-session workspaces. */
class ToolRegistryTest {
    private final Path root = Path.of("/tmp/herald-test-root");

    private record Named(String name) implements Tool {
        public String description() {
            return "";
        }

        public JsonNode parameters() {
            return Args.schema(new String[0]);
        }

        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        public String summarize(JsonNode args) {
            return name;
        }

        public ToolResult execute(JsonNode args, ToolContext context) {
            return ToolResult.ok(name);
        }
    }

    private final ToolSource mcp = () -> List.of(new Named("git__log"), new Named("git__diff"), new Named("web__fetch"));

    private ToolRegistry registry(ToolSettings settings) {
        return new ToolRegistry(settings, BuiltinTools.all(settings), List.of(mcp));
    }

    @Test
    void forPlatform_defaultListOffersEveryBuiltinThenEveryMcpTool() {
        assertThat(registry(ToolSettings.defaults(root)).forPlatform("telegram").names())
                .isEqualTo("shell, read_file, write_file, list_dir, http_get, todo, git__log, git__diff, web__fetch");
    }

    @Test
    void forPlatform_overrideWithNamesAndAServerPattern_offersExactlyThose() {
        ToolSettings settings = ToolSettings.defaults(root).withPlatformTools("webhook", List.of("read_file", "git__*"));

        assertThat(registry(settings).forPlatform("webhook").names()).isEqualTo("read_file, git__log, git__diff");
        assertThat(registry(settings).forPlatform("discord").size()).isEqualTo(9);
    }

    @Test
    void forPlatform_emptyList_offersNoTools() {
        assertThat(registry(ToolSettings.defaults(root).withTools(List.of())).forPlatform("any").isEmpty()).isTrue();
    }

    @Test
    void context_workspaceIsASafeStableDirectoryPerLaneKey() {
        ToolRegistry registry = registry(ToolSettings.defaults(root));
        TurnRequest a = new TurnRequest("s-1", "agent:main:telegram:dm:42", List.of(), "hi", true, "telegram");
        TurnRequest b = new TurnRequest("s-2", "agent:main:telegram:dm:42", List.of(), "hi", true, "telegram");
        TurnRequest stateless = new TurnRequest("s-3", null, List.of(), "hi", false, "api_server");

        Path workspace = registry.context(a, new Interrupt()).workspace();

        assertThat(workspace.getParent()).isEqualTo(root);
        assertThat(workspace.getFileName().toString()).matches("agent_main_telegram_dm_42-[0-9a-f]{8}");
        assertThat(registry.context(b, new Interrupt()).workspace()).isEqualTo(workspace);
        assertThat(registry.context(stateless, new Interrupt()).scope()).isEqualTo("s-3");
    }

    @Test
    void constructor_duplicateOrInvalidToolName_isRejected() {
        ToolSettings settings = ToolSettings.defaults(root);
        assertThatThrownBy(() -> new ToolRegistry(settings, List.of(new Named("a"), new Named("a")), List.of()))
                .hasMessage("tool - two tools are called 'a'");
        assertThatThrownBy(() -> new ToolRegistry(settings, List.of(new Named("has space")), List.of()))
                .hasMessageContaining("is not a valid tool name");
    }
}
