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
                .isEqualTo("shell, read_file, write_file, list_dir, http_get, todo, send_file, git__log, git__diff, web__fetch");
    }

    @Test
    void forPlatform_overrideWithNamesAndAServerPattern_offersExactlyThose() {
        ToolSettings settings = ToolSettings.defaults(root).withPlatformTools("webhook", List.of("read_file", "git__*"));

        assertThat(registry(settings).forPlatform("webhook").names()).isEqualTo("read_file, git__log, git__diff");
        assertThat(registry(settings).forPlatform("discord").size()).isEqualTo(10);
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

    @Test
    void workspaceDirectoryNames_keepTheirShape_oneUnderscorePerUnsafeCharacter_atMost60Readable() {
        assertThat(ToolRegistry.directoryName("telegram:dm:42")).matches("telegram_dm_42-[0-9a-f]{8}");
        assertThat(ToolRegistry.directoryName("web:é🙂x")).startsWith("web___x-"); // one '_' for the emoji, not two
        String long70 = "a".repeat(70);
        assertThat(ToolRegistry.directoryName(long70)).matches("a{60}-[0-9a-f]{8}");
        assertThat(ToolRegistry.directoryName("x/../y")).isNotEqualTo(ToolRegistry.directoryName("x_.._y"));
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 500; i++) {
            StringBuilder scope = new StringBuilder();
            for (int j = random.nextInt(80); j > 0; j--) {
                scope.appendCodePoint(random.nextInt(4) == 0 ? 0x1F600 + random.nextInt(40) : 32 + random.nextInt(95));
            }
            String regex = scope.toString().replaceAll("[^A-Za-z0-9._-]", "_");
            String expected = regex.length() > 60 ? regex.substring(0, 60) : regex;
            assertThat(ToolRegistry.directoryName(scope.toString())).startsWith(expected + "-").hasSize(expected.length() + 9);
        }
    }

    @Test
    void numbers_areGroupedByThousands() {
        assertThat(Texts.number(0)).isEqualTo("0");
        assertThat(Texts.number(999)).isEqualTo("999");
        assertThat(Texts.number(1000)).isEqualTo("1,000");
        assertThat(Texts.number(2140)).isEqualTo("2,140");
        assertThat(Texts.number(-1234567)).isEqualTo("-1,234,567");
        assertThat(Texts.number(Long.MIN_VALUE)).isEqualTo(String.format(java.util.Locale.ROOT, "%,d", Long.MIN_VALUE));
        for (long v : new long[] {12, 123456, 1234567890123L, Long.MAX_VALUE, -999, -1000}) {
            assertThat(Texts.number(v)).isEqualTo(String.format(java.util.Locale.ROOT, "%,d", v));
        }
    }
}
