package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.ConfigSummary;
import dev.herald.app.config.HeraldConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up lines a person reads: "ready" names only what is served; the configuration fits on one line. */
class ReadyLineTest {
    @TempDir
    Path home;

    private HeraldConfig config(String yaml) throws Exception {
        Path file = Files.writeString(home.resolve("config.yaml"), yaml);
        return new ConfigLoader(Map.of("WEBHOOK_SECRET", "s3cret-hook")).load(file, true, home).config();
    }

    @Test
    void defaults_advertiseTheChatAdminMetricsAndApi() throws Exception {
        assertThat(ReadyLine.text(config(""), "http://127.0.0.1:8642")).isEqualTo("runtime - Herald is ready: open http://127.0.0.1:8642/ "
                + "(admin at http://127.0.0.1:8642/admin, metrics at http://127.0.0.1:8642/metrics); "
                + "OpenAI-compatible API at http://127.0.0.1:8642/v1");
    }

    @Test
    void webchatOff_advertisesTheAdminPageNotTheChat() throws Exception {
        assertThat(ReadyLine.text(config("platforms:\n  webchat:\n    enabled: false\n"), "http://127.0.0.1:8642"))
                .isEqualTo("runtime - Herald is ready: admin at http://127.0.0.1:8642/admin (metrics at http://127.0.0.1:8642/metrics); "
                        + "OpenAI-compatible API at http://127.0.0.1:8642/v1");
    }

    @Test
    void onlyWebhooks_advertiseTheirRoutesAndNothingElse() throws Exception {
        HeraldConfig c = config("platforms:\n  api_server:\n    enabled: false\n  webhook:\n    enabled: true\n    routes:\n"
                + "      github:\n        secret: ${WEBHOOK_SECRET}\n");

        assertThat(ReadyLine.text(c, "http://127.0.0.1:8642"))
                .isEqualTo("runtime - Herald is ready: webhooks at http://127.0.0.1:8642/webhooks/github");
        assertThat(ReadyLine.text(config("platforms:\n  api_server:\n    enabled: false\n"), null))
                .isEqualTo("runtime - Herald is ready (no HTTP listener: platforms.api_server and platforms.webhook are off)");
    }

    @Test
    void configSummary_isOneLine_withoutSecrets() throws Exception {
        HeraldConfig c = config("model:\n  base_url: https://models.example/v1?token=t0k\n  api_key: sk-live-123\n  name: gpt-x\n"
                + "platforms:\n  api_server:\n    key: k-999\nlogging:\n  format: json\n");

        String line = ConfigSummary.line(c);

        assertThat(line).doesNotContain("\n").doesNotContain("sk-live-123").doesNotContain("k-999").doesNotContain("pw")
                .doesNotContain("t0k");
        assertThat(line).startsWith("model gpt-x at https://models.example/v1 (api key set); api_server 127.0.0.1:8642 (key set); "
                + "platforms api_server,webchat; store sqlite " + home.resolve("herald.db") + "; drain 60 s; tools ")
                .endsWith("; 0 MCP server(s); logging json");
    }
}
