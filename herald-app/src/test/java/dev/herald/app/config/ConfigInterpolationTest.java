package dev.herald.app.config;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** <code>${VAR}</code> and <code>${VAR:-default}</code> work in any value; unset variables are errors except in secrets. */
class ConfigInterpolationTest {
    @TempDir
    Path home;

    @Test
    void interpolate_setVariable_replacesItAnywhereInTheValue() {
        HeraldConfig c = new ConfigFixture(home).write("""
                model:
                  base_url: http://${LLM_HOST}:11434/v1
                  name: ${LLM_MODEL}
                """).load(Map.of("LLM_HOST", "10.0.0.7", "LLM_MODEL", "qwen2.5")).config();

        assertThat(c.model().baseUrl()).isEqualTo("http://10.0.0.7:11434/v1");
        assertThat(c.model().name()).isEqualTo("qwen2.5");
    }

    @Test
    void interpolate_numberAndBooleanKeys_areTypedAfterSubstitution() {
        HeraldConfig c = new ConfigFixture(home).write("""
                platforms:
                  api_server:
                    enabled: ${API_ON}
                    port: ${API_PORT}
                gateway:
                  drain_timeout_seconds: ${DRAIN}
                """).load(Map.of("API_ON", "false", "API_PORT", "9001", "DRAIN", "2.5")).config();

        assertThat(c.platforms().apiServer().enabled()).isFalse();
        assertThat(c.platforms().apiServer().port()).isEqualTo(9001);
        assertThat(c.gateway().drainTimeoutSeconds()).isEqualTo(2.5);
    }

    @Test
    void interpolate_defaultApplies_whenTheVariableIsUnsetOrEmpty() {
        ConfigFixture f = new ConfigFixture(home).write("model:\n  name: ${LLM_MODEL:-mistral}\n");

        assertThat(f.load(Map.of()).config().model().name()).isEqualTo("mistral");
        assertThat(f.load(Map.of("LLM_MODEL", "")).config().model().name()).isEqualTo("mistral");
        assertThat(f.load(Map.of("LLM_MODEL", "phi3")).config().model().name()).isEqualTo("phi3");
    }

    @Test
    void interpolate_unsetVariableWithoutDefault_isAnErrorNamingVariableKeyAndLine() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("model:\n  base_url: http://127.0.0.1:11434/v1\n  name: ${LLM_MODEL}\n");

        assertThat(message).isEqualTo("config - " + f.file + " line 3: model.name uses ${LLM_MODEL}, which is not set; "
                + "set LLM_MODEL or write ${LLM_MODEL:-default}");
    }

    @Test
    void interpolate_unsetVariableInASecret_meansNotSet() {
        HeraldConfig c = new ConfigFixture(home).write("""
                model:
                  api_key: ${OPENAI_API_KEY}
                platforms:
                  api_server:
                    key: ${HERALD_API_KEY}
                """).load(Map.of()).config();

        assertThat(c.model().apiKey().isSet()).isFalse();
        assertThat(c.platforms().apiServer().key().isSet()).isFalse();
    }

    @Test
    void interpolate_setVariableInASecret_isTheSecret() {
        HeraldConfig c = new ConfigFixture(home).write("model:\n  api_key: ${OPENAI_API_KEY}\n")
                .load(Map.of("OPENAI_API_KEY", "sk-live-123")).config();

        assertThat(c.model().apiKey().reveal()).hasValue("sk-live-123");
    }

    @Test
    void interpolate_requiredSecretFromAnUnsetVariable_saysWhichVariable() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("platforms:\n  api_server:\n    host: 0.0.0.0\n    key: ${HERALD_API_KEY}\n");

        assertThat(message).startsWith("config - " + f.file + " line 4: platforms.api_server.key is required when host is 0.0.0.0")
                .endsWith("(platforms.api_server.key is ${HERALD_API_KEY}, which is not set)");
    }

    @Test
    void interpolate_valueOutOfRange_namesTheTemplateItCameFrom() {
        ConfigFixture f = new ConfigFixture(home);

        String message = f.error("platforms:\n  api_server:\n    port: ${API_PORT}\n", Map.of("API_PORT", "70000"));

        assertThat(message).isEqualTo("config - " + f.file + " line 3: platforms.api_server.port must be 1..65535, "
                + "was 70000 (value from ${API_PORT})");
    }

    @Test
    void interpolate_doubleDollar_writesALiteralReference() {
        HeraldConfig c = new ConfigFixture(home).config("model:\n  system_prompt: \"Costs are in $${CURRENCY}.\"\n");

        assertThat(c.model().systemPrompt()).isEqualTo("Costs are in ${CURRENCY}.");
    }

    @Test
    void interpolate_malformedReference_isAnError() {
        ConfigFixture f = new ConfigFixture(home);

        assertThat(f.error("model:\n  name: ${LLM MODEL}\n")).isEqualTo("config - " + f.file
                + " line 2: model.name has a malformed ${...} reference in \"${LLM MODEL}\"; write ${NAME} or ${NAME:-default}");
        assertThat(f.error("model:\n  name: ${UNCLOSED\n")).contains("line 2: model.name has a malformed ${...} reference");
    }

    @Test
    void interpolate_malformedReferenceInASecret_doesNotQuoteTheValue() {
        String message = new ConfigFixture(home).error("model:\n  api_key: sk-live-9f8e${oops\n");

        assertThat(message).contains("model.api_key has a malformed ${...} reference").doesNotContain("sk-live-9f8e");
    }

    @Test
    void interpolate_keysAreNotInterpolated() {
        String message = new ConfigFixture(home).error("model:\n  ${KEY}: x\n", Map.of("KEY", "name"));

        assertThat(message).contains("unknown key model.${KEY}");
    }
}
