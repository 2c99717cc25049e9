package dev.herald.app.config;

import dev.herald.core.config.Secret;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** Secrets never show: not in the effective configuration, not in toString, not in error messages. */
class ConfigSecretsTest {
    private static final String OPENAI_KEY = "sk-live-0123456789abcdef";
    private static final String API_KEY = "herald-bearer-fedcba9876";

    @TempDir
    Path home;

    private LoadedConfig withSecrets() {
        return new ConfigFixture(home).write("""
                model:
                  base_url: https://api.openai.com/v1
                  api_key: ${OPENAI_API_KEY}
                  name: gpt-4o-mini
                platforms:
                  api_server:
                    host: 0.0.0.0
                    key: %s
                """.formatted(API_KEY)).load(Map.of("OPENAI_API_KEY", OPENAI_KEY));
    }

    @Test
    void effectiveConfig_masksEverySecret() {
        String printed = withSecrets().effective();

        assertThat(printed).doesNotContain(OPENAI_KEY).doesNotContain(API_KEY)
                .contains("  api_key: ****\n")
                .contains("    key: ****\n")
                .contains("  base_url: https://api.openai.com/v1\n");
    }

    @Test
    void effectiveConfig_showsUnsetSecretsAsNotSet() {
        String printed = new ConfigFixture(home).write("").load().effective();

        assertThat(printed).contains("  api_key: (not set)\n").contains("    key: (not set)\n");
    }

    @Test
    void toString_ofTheRecords_masksEverySecret() {
        HeraldConfig c = withSecrets().config();

        assertThat(c.toString()).doesNotContain(OPENAI_KEY).doesNotContain(API_KEY).contains("apiKey=****").contains("key=****");
        assertThat(Secret.NONE.toString()).isEqualTo("(not set)");
    }

    @Test
    void errors_neverQuoteASecretValue() {
        ConfigFixture f = new ConfigFixture(home);

        String typeError = f.error("model:\n  api_key: [" + OPENAI_KEY + "]\n");
        String badOverride = f.error("platforms:\n  api_server:\n    key: " + API_KEY + "\n    port: 0\n");

        assertThat(typeError).isEqualTo("config - " + f.file + " line 2: model.api_key must be text").doesNotContain(OPENAI_KEY);
        assertThat(badOverride).doesNotContain(API_KEY);
    }

    @Test
    void printer_masksAnyKeyNamedLikeACredential_evenIfItIsPlainText() {
        var tree = Mappers.yaml().createObjectNode();
        tree.put("bot_token", "123:abc").put("client_secret", "shh").put("password", "pw").put("name", "visible");

        assertThat(ConfigPrinter.scalar(tree.get("bot_token"), "bot_token")).isEqualTo("****");
        assertThat(ConfigPrinter.scalar(tree.get("client_secret"), "client_secret")).isEqualTo("****");
        assertThat(ConfigPrinter.scalar(tree.get("password"), "password")).isEqualTo("****");
        assertThat(ConfigPrinter.scalar(tree.get("name"), "name")).isEqualTo("visible");
    }

    @Test
    void everyKeyNamedLikeACredential_isTypedSecret() {
        List<String> wrong = new ArrayList<>();
        collectPlainCredentials(HeraldConfig.class, "", wrong);

        assertThat(wrong).as("keys named *key/*token/*secret/*password must be typed Secret").isEmpty();
    }

    private static void collectPlainCredentials(Class<?> section, String prefix, List<String> wrong) {
        for (Sections.Key key : Sections.builtIn().keys(section)) {
            String path = Provenance.child(prefix, key.name());
            if (key.isSection()) {
                collectPlainCredentials(key.type(), path, wrong);
            } else if (key.isSectionList()) {
                collectPlainCredentials(key.element(), path + "[]", wrong);
            } else if (key.isSectionMap()) {
                collectPlainCredentials(key.mapValue(), path + ".<name>", wrong);
            } else if (Sections.isSecretName(key.name()) && key.type() != Secret.class) {
                wrong.add(path + " (" + key.type().getSimpleName() + ")");
            }
        }
    }
}
