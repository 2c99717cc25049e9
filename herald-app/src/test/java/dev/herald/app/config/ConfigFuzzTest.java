package dev.herald.app.config;

import dev.herald.core.config.ConfigException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.fuzz.Fuzzer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broken configuration files: loading one either succeeds or fails with one {@link ConfigException} whose
 * message names the problem (it starts with {@code config - }), never with another exception, a hang or an
 * alias bomb's memory; and no message carries the secret values the file holds.
 */
@Tag("fuzz")
class ConfigFuzzTest {
    private static final String API_KEY = "sk-fuzz-secret-4711";
    private static final String BOT_TOKEN = "123456:fuzz-secret-bot-token";
    static final List<String> CORPUS = List.of(
            """
            model:
              base_url: http://127.0.0.1:11434/v1
              api_key: %s
              name: llama3.1
              context_tokens: 8192
            platforms:
              api_server:
                enabled: true
                host: 127.0.0.1
                port: 8642
              telegram:
                enabled: true
                token: %s
                allowed_users: ["123456789"]
                home_channel: {chat_id: "123456789"}
              webhook:
                enabled: true
                routes:
                  github: {secret: "${GH_SECRET:-whsec}", signature: github, prompt: "PR {action} #{number}", deliver: log}
            gateway:
              auto_continue_freshness_seconds: 3600
              busy_input: queue
            agent:
              tools: [shell, read_file, http_get]
              platform_tools: {webhook: []}
            mcp_servers:
              - name: docs
                url: http://127.0.0.1:9/mcp
                headers: {Authorization: "Bearer x"}
            """.formatted(API_KEY, BOT_TOKEN),
            """
            {"model": {"name": "m", "api_key": "%s", "max_retries": 3}, "platforms": {"discord": {"enabled": true, "token": "%s",
             "require_mention": false}, "slack": {"enabled": false}}, "store": {"path": "herald.db"},
             "auth": {"allow_all_users": false}}""".formatted(API_KEY, BOT_TOKEN),
            """
            a: &a ["x","x","x","x","x","x","x","x","x"]
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
            c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
            model: {name: *d}
            """,
            """
            model:
              name: ${MODEL_NAME:-llama3.1}
              base_url: ${UNSET_BASE_URL}
            gateway: {drain_timeout_seconds: -1}
            """);

    @TempDir
    Path home;

    @Test
    void loading_eitherSucceedsOrNamesTheProblem_andNeverPrintsASecret() {
        Path file = home.resolve("config.yaml");
        ConfigLoader loader = new ConfigLoader(Map.of("MODEL_NAME", "qwen"));
        Fuzzer.of("config yaml", CORPUS, 400).run(input -> {
            Files.write(file, input.getBytes(StandardCharsets.UTF_8)); // a lone surrogate becomes "?", as an editor would save it
            try {
                loader.load(file, true, home);
            } catch (ConfigException e) {
                assertThat(e.getMessage()).startsWith("config - ");
                // a secret the fuzzer copied into a plain key is no longer a secret there: check those still under their key
                for (String[] secret : new String[][] {{"api_key", API_KEY}, {"token", BOT_TOKEN}}) {
                    if (onlyUnderItsKey(input, secret[0], secret[1])) {
                        assertThat(e.getMessage()).doesNotContain(secret[1]);
                    }
                }
                throw e;
            }
        }, t -> t instanceof ConfigException);
    }

    @Test
    void aFileNestedHundredsOfLevelsDeep_isRefusedAsInvalidYaml_beforeTheYamlLibraryReadsIt() throws Exception {
        Path file = home.resolve("config.yaml");
        for (String text : List.of("[".repeat(5_000) + "]".repeat(2_500), "model: " + "{a: ".repeat(70) + "1" + "}".repeat(70))) {
            Files.writeString(file, text);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(file, true, home))
                    .isInstanceOf(ConfigException.class).hasMessageContaining("not valid YAML");
        }
    }

    /** Found by the fuzzer: a value glued to its key (no ': ') made an unknown key, and the error quoted it whole. */
    @Test
    void aSecretGluedToItsKey_isNotQuotedInTheUnknownKeyError() throws Exception {
        Path file = home.resolve("config.yaml");
        Files.writeString(file, "{\"model\": {d\"api_key\":\"" + API_KEY + "\"}}\n");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(file, true, home))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key model.<")
                .hasMessageContaining("check for a missing ': '").hasMessageNotContaining(API_KEY);
    }

    private static boolean onlyUnderItsKey(String input, String key, String value) {
        int all = count(input, value);
        int underKey = count(input, key + ": " + value) + count(input, "\"" + key + "\": \"" + value) + count(input, "\"" + key + "\":\"" + value);
        return all > 0 && all == underKey;
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
