package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dangerous tool call in the web chat with the real agent loop (a scripted model server asks for {@code shell}):
 * the approval card shows the whole 371-character command, and after the person clicks Deny the call's line reads
 * "denied", live and after a reload, and the command never ran.
 */
class ToolStateBrowserTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void deniedShellCall_isShownWholeWhenAskedAndAsDeniedAfterwards_inChromium() throws Exception {
        Path marker = dir.resolve("ran.txt");
        String command = "touch " + marker + "; echo " + "z".repeat(371 - 24 - marker.toString().length()) + "; echo tail";
        assertThat(command).hasSize(371);
        try (FakeModelServer model = FakeModelServer.start()) {
            model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_rm", "shell", "{\"command\":\"" + command + "\"}")),
                    Reply.text("Understood. I did not run it."));
            OpenAiCompatibleClient client = new OpenAiCompatibleClient(new ModelSettings(model.baseUrl(), null, "test-model",
                    Duration.ofSeconds(2), Duration.ofSeconds(10), 0));
            ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT, ToolRegistry.standard(ToolSettings.defaults(dir.resolve("ws"))));
            Map<String, String> env = new HashMap<>();
            try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
                env.putAll(WebChatBrowserTest.env(fx));
                env.put("HERALD_COMMAND", command);
                try (BrowserScript page = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/tools.mjs", env)) {
                    assertThat(page.awaitStep("asked", STEP).path("length").asInt()).isEqualTo(371);
                    page.awaitStep("denied-live", STEP);
                    page.awaitStep("denied-after-reload", STEP);
                    page.awaitDone(STEP);
                }
            } finally {
                client.close();
            }
            assertThat(Files.exists(marker)).as("the denied command ran").isFalse();
            assertThat(model.requests().get(1).messages().getLast().content()).startsWith("Denied: the user did not approve");
        }
    }
}
