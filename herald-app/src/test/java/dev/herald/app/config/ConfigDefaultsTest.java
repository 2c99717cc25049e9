package dev.herald.app.config;

import dev.herald.web.api.ApiServerConfig;

import dev.herald.core.config.ConfigException;
import dev.herald.core.gateway.GatewayConfig;
import dev.herald.core.lanes.BusyPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigDefaultsTest {
    @TempDir
    Path home;

    @Test
    void load_missingFile_givesEveryDefault() {
        LoadedConfig loaded = new ConfigLoader(Map.of()).load(home.resolve("config.yaml"), false, home);

        assertThat(loaded.fileFound()).isFalse();
        assertThat(loaded.source()).endsWith("config.yaml (no such file; built-in defaults)");
        assertThat(loaded.config()).isEqualTo(HeraldConfig.defaults().resolvedIn(home));
        HeraldConfig c = loaded.config();
        assertThat(c.model().configured()).isFalse();
        assertThat(c.model().endpoint()).isEmpty();
        assertThat(c.model().apiKey().isSet()).isFalse();
        assertThat(c.model().name()).isEqualTo("llama3.1");
        assertThat(c.model().connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.model().idleTimeout()).isEqualTo(Duration.ofSeconds(120));
        assertThat(c.model().maxRetries()).isEqualTo(3);
        assertThat(c.model().systemPromptText()).isEmpty();
        ApiServerConfig api = c.platforms().apiServer();
        assertThat(api.enabled()).isTrue();
        assertThat(api.host()).isEqualTo("127.0.0.1");
        assertThat(api.port()).isEqualTo(8642);
        assertThat(api.key().isSet()).isFalse();
        assertThat(api.maxBodyBytes()).isEqualTo(1_048_576L);
        assertThat(api.requestTimeout()).isEqualTo(Duration.ofSeconds(600));
        assertThat(api.loopbackOnly()).isTrue();
        GatewayConfig g = c.gateway();
        assertThat(g.autoContinueFreshness()).isEqualTo(Duration.ofHours(1));
        assertThat(g.drainTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(g.startupRestoreDrainTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(g.busyInput()).isEqualTo(BusyPolicy.QUEUE);
        assertThat(g.stuckLoopThreshold()).isEqualTo(3);
        assertThat(c.store().path()).isEqualTo(home.resolve("herald.db").toAbsolutePath());
    }

    @Test
    void load_emptyOrCommentOnlyFile_givesEveryDefault() {
        ConfigFixture f = new ConfigFixture(home);
        assertThat(f.config("")).isEqualTo(HeraldConfig.defaults().resolvedIn(home));
        assertThat(f.config("# nothing yet\n")).isEqualTo(HeraldConfig.defaults().resolvedIn(home));
        assertThat(f.write("").load().fileFound()).isTrue();
    }

    @Test
    void load_partialSection_keepsDefaultsForTheKeysLeftOut() {
        HeraldConfig c = new ConfigFixture(home).config("""
                platforms:
                  api_server:
                    port: 9000
                gateway:
                """);

        assertThat(c.platforms().apiServer().port()).isEqualTo(9000);
        assertThat(c.platforms().apiServer().host()).isEqualTo("127.0.0.1");
        assertThat(c.platforms().apiServer().maxBodyBytes()).isEqualTo(1_048_576L);
        assertThat(c.gateway()).isEqualTo(GatewayConfig.defaults());
    }

    @Test
    void load_emptyValue_meansTheDefault() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  name: ""
                  base_url:
                """);

        assertThat(c.model().name()).isEqualTo("llama3.1");
        assertThat(c.model().configured()).isFalse();
    }

    @Test
    void load_fullExample_bindsEveryKey() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: https://api.openai.com/v1
                  api_key: sk-test
                  name: gpt-4o-mini
                  connect_timeout_seconds: 5
                  idle_timeout_seconds: 30
                  max_retries: 0
                  system_prompt: |
                    You are terse.
                platforms:
                  api_server:
                    enabled: false
                    host: 0.0.0.0
                    port: 8080
                    key: k-123
                    max_body_bytes: 2048
                    request_timeout_seconds: 60
                gateway:
                  auto_continue_freshness_seconds: 0
                  drain_timeout_seconds: 0.5
                  startup_restore_drain_timeout_seconds: 0
                  busy_input: interrupt
                  stuck_loop_threshold: 5
                store:
                  path: data/conversations.db
                """);

        assertThat(c.model().endpoint()).hasValueSatisfying(u -> assertThat(u.toString()).isEqualTo("https://api.openai.com/v1"));
        assertThat(c.model().apiKey().reveal()).hasValue("sk-test");
        assertThat(c.model().systemPromptText()).hasValue("You are terse.\n");
        assertThat(c.model().maxRetries()).isZero();
        ApiServerConfig api = c.platforms().apiServer();
        assertThat(api.enabled()).isFalse();
        assertThat(api.loopbackOnly()).isFalse();
        assertThat(api.key().reveal()).hasValue("k-123");
        assertThat(api.maxBodyBytes()).isEqualTo(2048);
        assertThat(c.gateway().autoContinueFreshness()).isZero();
        assertThat(c.gateway().drainTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.gateway().busyInput()).isEqualTo(BusyPolicy.INTERRUPT);
        assertThat(c.gateway().stuckLoopThreshold()).isEqualTo(5);
        assertThat(c.store().path()).isEqualTo(home.resolve("data/conversations.db").toAbsolutePath());
    }

    @Test
    void load_absoluteStorePath_isKeptAsWritten() {
        HeraldConfig c = new ConfigFixture(home).config("store:\n  path: /var/lib/herald/h.db\n");

        assertThat(c.store().path()).isEqualTo(Path.of("/var/lib/herald/h.db"));
    }

    @Test
    void load_explicitConfigFileThatDoesNotExist_isAnErrorNamingIt() {
        Path missing = home.resolve("elsewhere.yaml");

        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(missing, true, home))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config - " + missing + ": no such file (given with --config); create it, or drop --config to use "
                        + home.resolve("config.yaml"));
    }

    @Test
    void load_busyInputInAnyCase_isAccepted() {
        assertThat(new ConfigFixture(home).config("gateway:\n  busy_input: Interrupt\n").gateway().busyInput())
                .isEqualTo(BusyPolicy.INTERRUPT);
    }

    @Test
    void loopbackOnly_knowsLoopbackSpellings() {
        for (String host : new String[] {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1"}) {
            assertThat(ApiServerConfig.isLoopback(host)).as(host).isTrue();
        }
        for (String host : new String[] {"0.0.0.0", "192.168.1.5", "::", "example.com", "128.0.0.1", "localhost.example.com"}) {
            assertThat(ApiServerConfig.isLoopback(host)).as(host).isFalse();
        }
    }
}
