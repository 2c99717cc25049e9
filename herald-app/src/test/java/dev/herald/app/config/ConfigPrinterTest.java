package dev.herald.app.config;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The effective configuration reads like the YAML a person would write. */
class ConfigPrinterTest {
    @TempDir
    Path home;

    @Test
    void effective_printsSectionsIndentedInDeclarationOrder() {
        String printed = new ConfigFixture(home).write("").load().effective();

        assertThat(printed).startsWith("model:\n  base_url: (not set)\n  api_key: (not set)\n  name: llama3.1\n")
                .contains("platforms:\n  api_server:\n    enabled: true\n    host: 127.0.0.1\n    port: 8642\n")
                .contains("gateway:\n  auto_continue_freshness_seconds: 3600\n  drain_timeout_seconds: 60\n")
                .contains("  busy_input: queue\n")
                .endsWith("\npersonalities: {}\nhooks: []")
                .contains("store:\n  path: " + home.resolve("herald.db") + "\n  url: (not set)\n  user: (not set)\n  password: (not set)\n  outage_wait_seconds: 60\n  low_space_warning_mb: 512"
                        + "\nlogging:\n  format: text\nschedules:\n  time_zone: (not set)\n  jobs: {}\ncluster:\n  enabled: false\n  node_id: (not set)\n  lease_seconds: 15"
                        + "\nvoice:\n  transcription:\n    base_url: (not set)\n    api_key: (not set)\n    model: whisper-1\n"
                        + "    language: (not set)\n    format: original\n    timeout_seconds: 120\n    max_bytes: 26214400\n    max_seconds: 600\n"
                        + "  speech:\n    base_url: (not set)\n    api_key: (not set)\n    model: tts-1\n    voice: alloy\n    format: opus\n"
                        + "    max_characters: 1500\n    timeout_seconds: 60\ncommands:\n  users:\n    - approve\n");
    }

    @Test
    void effective_keepsFractionsAndQuotesTextThatWouldReadAsSomethingElse() {
        String printed = new ConfigFixture(home).write("""
                model:
                  name: "1.5"
                  system_prompt: "yes"
                gateway:
                  drain_timeout_seconds: 0.25
                """).load().effective();

        assertThat(printed).contains("  name: \"1.5\"\n").contains("  system_prompt: \"yes\"\n").contains("  drain_timeout_seconds: 0.25\n");
    }

    @Test
    void effective_shortensLongTextAndSaysHowLongItWas() {
        String prompt = "You are a careful assistant. ".repeat(20).strip();

        String printed = new ConfigFixture(home).write("model:\n  system_prompt: \"" + prompt + "\"\n").load().effective();

        assertThat(printed).contains("  system_prompt: \"" + prompt.substring(0, 100) + "...\" (" + prompt.length() + " characters)\n");
    }
}
