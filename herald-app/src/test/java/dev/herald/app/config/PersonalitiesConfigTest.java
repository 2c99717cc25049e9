package dev.herald.app.config;

import dev.herald.agent.persona.PersonalityConfig;


import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code personalities:}: personas chosen per chat with /personality. */
class PersonalitiesConfigTest {
    @TempDir
    Path home;

    @Test
    void personasAreRead_inOrder_theModelOptional() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                  system_prompt: You are Herald.
                models:
                  big:
                    name: large
                personalities:
                  pirate:
                    system_prompt: Talk like a pirate.
                    model: big
                  poet:
                    system_prompt: Answer in verse.
                """);

        assertThat(c.personalities().keySet()).containsExactly("pirate", "poet");
        assertThat(c.personalities().get("pirate")).isEqualTo(new PersonalityConfig("Talk like a pirate.", "big"));
        assertThat(c.personalities().get("poet").model()).isNull();
        assertThat(c.commands().tiers().allows("personality", false)).as("users may choose one by default").isTrue();
    }

    @Test
    void anUnknownModel_aMissingPrompt_orAReservedName_isRefusedByKey() {
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                models:
                  big:
                    name: large
                personalities:
                  pirate:
                    system_prompt: Talk like a pirate.
                    model: bog
                """)).contains("personalities.pirate.model").contains("names no model profile: \"bog\"").contains("did you mean big?");
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                personalities:
                  poet:
                    model: default
                """)).contains("personalities.poet.system_prompt").contains("is needed");
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                personalities:
                  default:
                    system_prompt: Be brief.
                """)).contains("personalities.default").contains("is reserved");
    }
}
