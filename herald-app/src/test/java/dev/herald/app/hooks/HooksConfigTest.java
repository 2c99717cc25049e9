package dev.herald.app.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.app.config.ConfigLoader;
import dev.herald.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hooks:} in a config file: a wrong entry stops the start with a message naming the entry and the fix. */
class HooksConfigTest {
    @TempDir
    Path home;

    private String error(String hooks) throws Exception {
        Path file = Files.writeString(home.resolve("config.yaml"), "hooks:\n" + hooks);
        var thrown = org.assertj.core.api.Assertions.catchThrowable(() -> new ConfigLoader(Map.of()).load(file, true, home));
        assertThat(thrown).isInstanceOf(ConfigException.class);
        return thrown.getMessage();
    }

    @Test
    void anUnknownEventName_isRefused_namingTheEntryAndTheClosestEvent() throws Exception {
        assertThat(error("  - events: [turn.complete]\n    command: [/bin/true]\n"))
                .contains("hooks[0].events[0]").contains("is not an event: \"turn.complete\"").contains("did you mean turn.completed?");
    }

    @Test
    void bothOrNeitherOfCommandAndUrl_isRefused() throws Exception {
        assertThat(error("  - events: [turn.completed]\n    command: [/bin/true]\n  - events: [turn.failed]\n    command: [/bin/true]\n"
                + "    url: http://127.0.0.1:9/x\n"))
                .contains("hooks[1].command").contains("give either command (a program and its arguments) or url, not both or neither")
                .doesNotContain("hooks[0]");
        assertThat(error("  - events: [turn.completed]\n")).contains("hooks[0].command").contains("not both or neither");
    }

    @Test
    void aUrlThatIsNotHttp_andAnEntryWithoutEvents_areRefused() throws Exception {
        assertThat(error("  - events: [gateway.started]\n    url: ftp://127.0.0.1/x\n"))
                .contains("hooks[0].url").contains("must be an http:// or https:// URL with a host, was \"ftp://127.0.0.1/x\"");
        assertThat(error("  - command: [/bin/true]\n")).contains("hooks[0].events").contains("must name at least one event: session.started");
    }

    @Test
    void aUrlWithCredentials_isRefusedWithoutQuotingThem() throws Exception {
        assertThat(error("  - events: [turn.failed]\n    url: https://bot:pw-91x@127.0.0.1/hook\n"))
                .contains("hooks[0].url must not carry credentials").contains("send it in hooks[0].headers").doesNotContain("pw-91x");
    }

    @Test
    void aValidEntry_loadsWithItsEventsAndTheDefaultTimeout() throws Exception {
        Path file = Files.writeString(home.resolve("config.yaml"), "hooks:\n  - events: [turn.completed, approval.requested]\n"
                + "    url: https://127.0.0.1:8443/herald\n    headers:\n      X-Token: ${T}\n");
        var config = new ConfigLoader(Map.of("T", "tok-1")).load(file, true, home).config();
        assertThat(config.hooks()).hasSize(1);
        assertThat(config.hooks().get(0).eventSet()).containsExactly(HookEvent.TURN_COMPLETED, HookEvent.APPROVAL_REQUESTED);
        assertThat(config.hooks().get(0).timeoutSeconds()).isEqualTo(10);
        assertThat(config.hooks().get(0).headers().get("X-Token").reveal()).contains("tok-1");
        assertThatThrownBy(() -> config.hooks().get(0).headers().put("x", null)).isInstanceOf(UnsupportedOperationException.class);
    }
}
