package dev.herald.app.config;

import dev.herald.core.config.ClosestKey;


import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Every way a file can be wrong stops with one message naming the file, the line and the key path. */
class ConfigValidationTest {
    @TempDir
    Path home;

    static Stream<Arguments> brokenFiles() {
        return Stream.of(
                arguments("port out of range", """
                        model:
                          name: llama3.1
                        platforms:
                          api_server:
                            enabled: true
                            host: 127.0.0.1
                            port: 70000
                        """, "line 7: platforms.api_server.port must be 1..65535, was 70000"),
                arguments("port zero", "platforms:\n  api_server:\n    port: 0\n",
                        "line 3: platforms.api_server.port must be 1..65535, was 0"),
                arguments("port not a number", "platforms:\n  api_server:\n    port: abc\n",
                        "line 3: platforms.api_server.port must be a whole number, was \"abc\""),
                arguments("port with a fraction", "platforms:\n  api_server:\n    port: 8642.5\n",
                        "line 3: platforms.api_server.port must be a whole number, was 8642.5"),
                arguments("port a boolean", "platforms:\n  api_server:\n    port: true\n",
                        "line 3: platforms.api_server.port must be a whole number, was true"),
                arguments("port beyond int", "platforms:\n  api_server:\n    port: 99999999999\n",
                        "line 3: platforms.api_server.port cannot be read: Numeric value (99999999999) out of range of int"),
                arguments("enabled not a boolean", "platforms:\n  api_server:\n    enabled: maybe\n",
                        "line 3: platforms.api_server.enabled must be true or false, was \"maybe\""),
                arguments("busy_input unknown", "gateway:\n  busy_input: sometimes\n",
                        "line 2: gateway.busy_input must be one of queue, interrupt, steer, was \"sometimes\""),
                arguments("negative drain timeout", "gateway:\n  drain_timeout_seconds: -1\n",
                        "line 2: gateway.drain_timeout_seconds must be 0 or more seconds, was -1"),
                arguments("negative restore drain timeout", "gateway:\n  startup_restore_drain_timeout_seconds: -0.5\n",
                        "line 2: gateway.startup_restore_drain_timeout_seconds must be 0 or more seconds, was -0.5"),
                arguments("zero stuck-loop threshold", "gateway:\n  stuck_loop_threshold: 0\n",
                        "line 2: gateway.stuck_loop_threshold must be at least 1, was 0"),
                arguments("tool result limit the tools would refuse at start", "agent:\n  tool_result_limit: 500\n",
                        "line 2: agent.tool_result_limit must be 1000..1000000 characters, was 500"),
                arguments("MCP server with neither command nor url", "mcp_servers:\n  - name: files\n",
                        "line 2: mcp_servers[0].command give either command (a process) or url (streamable HTTP), not both or neither"),
                arguments("negative connect timeout", "model:\n  connect_timeout_seconds: -3\n",
                        "line 2: model.connect_timeout_seconds must be at least 1, was -3"),
                arguments("model profile named default", "model:\n  base_url: http://127.0.0.1:11434/v1\nmodels:\n  default:\n    name: x\n",
                        "line 4: models.default is reserved (default is model:, herald names a conversation's own choice); pick another name"),
                arguments("model profile without a name", "model:\n  base_url: http://127.0.0.1:11434/v1\nmodels:\n  fast:\n    vision: true\n",
                        "line 4: models.fast.name must be set: the model's name on its server, e.g. gpt-4o-mini"),
                arguments("model profile without any endpoint", "models:\n  fast:\n    name: gpt-4o-mini\n",
                        "line 2: models.fast.base_url is needed: model.base_url is not set either"),
                arguments("model profile temperature out of range", "model:\n  base_url: http://127.0.0.1:11434/v1\nmodels:\n  hot:\n    name: x\n    temperature: 2.5\n",
                        "line 6: models.hot.temperature must be 0..2, was 2.5"),
                arguments("zero idle timeout", "model:\n  idle_timeout_seconds: 0\n",
                        "line 2: model.idle_timeout_seconds must be at least 1, was 0"),
                arguments("negative retries", "model:\n  max_retries: -1\n",
                        "line 2: model.max_retries must be 0..100, was -1"),
                arguments("negative request timeout", "platforms:\n  api_server:\n    request_timeout_seconds: -1\n",
                        "line 3: platforms.api_server.request_timeout_seconds must be at least 1, was -1"),
                arguments("zero body size", "platforms:\n  api_server:\n    max_body_bytes: 0\n",
                        "line 3: platforms.api_server.max_body_bytes must be at least 1, was 0"),
                arguments("base_url without scheme", "model:\n  base_url: localhost:11434/v1\n",
                        "line 2: model.base_url must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:11434/v1, was \"localhost:11434/v1\""),
                arguments("base_url with another scheme", "model:\n  base_url: ftp://example.com/v1\n",
                        "line 2: model.base_url must be an http:// or https:// URL with a host"),
                arguments("base_url not a URL", "model:\n  base_url: \"http://exa mple.com\"\n",
                        "line 2: model.base_url must be an http:// or https:// URL with a host"),
                arguments("host with a scheme", "platforms:\n  api_server:\n    host: http://0.0.0.0\n",
                        "line 3: platforms.api_server.host must be a host name or IP address such as 127.0.0.1 or 0.0.0.0, was \"http://0.0.0.0\""),
                arguments("public host without a key", """
                        platforms:
                          api_server:
                            host: 0.0.0.0
                        """, "line 2: platforms.api_server.key is required when host is 0.0.0.0 (not a loopback address), "
                        + "or anyone who can reach port 8642 talks to the agent; set platforms.api_server.key "
                        + "(e.g. key: ${HERALD_API_KEY}) or bind platforms.api_server.host to 127.0.0.1"),
                arguments("section given a scalar (not quoted: a section written as one string may be a pasted secret)", "model: hello\n",
                        "line 1: model must be a section of key: value lines, was text of 5 characters"),
                arguments("text given a list", "model:\n  name: [a, b]\n",
                        "line 2: model.name must be text, was a list"),
                arguments("secret given a section", "model:\n  api_key: {value: sk-live-abc}\n",
                        "line 2: model.api_key must be text"),
                arguments("store path with a tilde", "store:\n  path: ~/h.db\n",
                        "line 2: store.path must not start with ~ (it is not expanded), was \"~/h.db\""),
                arguments("not YAML", "model:\n  name: x\n   bad: indent\n",
                        "line 3: not valid YAML: mapping values are not allowed here"),
                arguments("a key twice", "model:\n  name: a\n  name: b\n",
                        "line 3: model.name appears twice (first on line 2); keep one"),
                arguments("a list at the top", "- model\n- gateway\n",
                        "line 1: the file must be a mapping of sections such as model:, platforms:, gateway:, store:, was a list"),
                arguments("a scalar at the top", "hello\n",
                        "line 1: the file must be a mapping of sections such as model:, platforms:, gateway:, store:, was a single value"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenFiles")
    void load_brokenFile_stopsWithOneMessageNamingFileLineAndKey(String name, String yaml, String expected) {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error(yaml);

        assertThat(message).startsWith("config - " + f.file + " " + expected);
        assertThat(message.lines()).hasSize(1);
    }

    @Test
    void load_unknownKey_namesItsLineAndSuggestsTheClosestKnownKey() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("""
                model:
                  name: llama3.1
                platforms:
                  api_server:
                    prot: 8642
                """);

        assertThat(message).isEqualTo("config - " + f.file + " line 5: unknown key platforms.api_server.prot; "
                + "did you mean platforms.api_server.port? (known keys under platforms.api_server: "
                + "enabled, host, port, key, max_body_bytes, request_timeout_seconds, allow_all_users, allowed_users, "
                + "header_timeout_seconds, max_connections_per_address)");
    }

    @Test
    void load_unknownSection_suggestsTheClosestSection() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("modle:\n  name: x\n");

        assertThat(message).isEqualTo("config - " + f.file + " line 1: unknown key modle; did you mean model? "
                + "(known sections: model, models, platforms, gateway, auth, agent, mcp_servers, store, logging, schedules, cluster, voice, commands, personalities, hooks)");
    }

    @Test
    void load_unknownKeyFarFromAnyKnownOne_listsTheKnownKeysWithoutAGuess() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("gateway:\n  completely_different: 1\n");

        assertThat(message).isEqualTo("config - " + f.file + " line 2: unknown key gateway.completely_different "
                + "(known keys under gateway: auto_continue_freshness_seconds, drain_timeout_seconds, "
                + "startup_restore_drain_timeout_seconds, busy_input, stuck_loop_threshold, redelivery_interval_seconds, restart_mode)");
    }

    @Test
    void load_hyphenatedKey_suggestsTheSnakeCaseOne() {
        String message = new ConfigFixture(home).error("model:\n  base-url: http://x/v1\n");

        assertThat(message).contains("unknown key model.base-url; did you mean model.base_url?");
    }

    @Test
    void load_publicHostWithKey_isAccepted() {
        HeraldConfig c = new ConfigFixture(home).config("platforms:\n  api_server:\n    host: 0.0.0.0\n    key: s3cret-0123456789\n");

        assertThat(c.platforms().apiServer().loopbackOnly()).isFalse();
    }

    @Test
    void load_publicHostWithAShortKey_isRefusedNamingTheKeyButNeverShowingIt() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("platforms:\n  api_server:\n    host: 0.0.0.0\n    key: s3cret-pw\n");

        assertThat(message).startsWith("config - " + f.file + " line 4: platforms.api_server.key is shorter than 16 characters while "
                + "host is 0.0.0.0 (not a loopback address), so it can be guessed; use a long random key");
        assertThat(message).doesNotContain("s3cret-pw");
    }

    @Test
    void load_loopbackHostWithAShortKey_isAccepted() {
        HeraldConfig c = new ConfigFixture(home).config("platforms:\n  api_server:\n    key: short\n");

        assertThat(c.platforms().apiServer().key().isSet()).isTrue();
    }

    @Test
    void load_webhookRouteWithoutSignature_onAPublicHost_isRefused_onLoopbackAccepted() {
        String route = "  webhook:\n    enabled: true\n    routes:\n      local:\n        signature: none\n";
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("platforms:\n  api_server:\n    host: 0.0.0.0\n    key: s3cret-0123456789\n" + route);
        HeraldConfig loopback = new ConfigFixture(home).config("platforms:\n" + route);

        assertThat(message).startsWith("config - " + f.file + " line 9: platforms.webhook.routes.local.signature is none while "
                + "platforms.api_server.host is 0.0.0.0 (not a loopback address)");
        assertThat(loopback.platforms().webhook().routes()).containsKey("local");
    }

    @Test
    void load_standardWebhookSecretThatIsNotBase64_isRefusedWithoutShowingIt() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("platforms:\n  webhook:\n    enabled: true\n    routes:\n      saas:\n        signature: standard\n"
                + "        secret: whsec_not*base64!\n");
        HeraldConfig ok = new ConfigFixture(home).config("platforms:\n  webhook:\n    enabled: true\n    routes:\n      saas:\n"
                + "        signature: standard\n        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n");

        assertThat(message).contains("platforms.webhook.routes.saas.secret is not a Standard Webhooks secret").doesNotContain("not*base64");
        assertThat(ok.platforms().webhook().routes().get("saas").signature()).isEqualTo(dev.herald.web.webhook.SignatureStyle.STANDARD);
    }

    @Test
    void load_publicHostWithApiServerDisabled_needsNoKey() {
        HeraldConfig c = new ConfigFixture(home).config("platforms:\n  api_server:\n    enabled: false\n    host: 0.0.0.0\n");

        assertThat(c.platforms().apiServer().enabled()).isFalse();
    }

    @Test
    void closestKey_toleratesSmallTyposOnly() {
        var known = java.util.List.of("enabled", "host", "port", "key", "max_body_bytes");

        assertThat(ClosestKey.to("prot", known)).hasValue("port");
        assertThat(ClosestKey.to("max_body_byte", known)).hasValue("max_body_bytes");
        assertThat(ClosestKey.to("hots", known)).hasValue("host");
        assertThat(ClosestKey.to("timeout_seconds", known)).isEmpty();
    }
}
