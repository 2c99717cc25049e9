package dev.herald.core.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.SessionSource;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class MessageEventTest {
    static MessageEvent msg(String text) {
        return MessageEvent.text(SessionSource.dm(Platform.of("loopback"), "1", "u1"), text, null, Instant.EPOCH);
    }

    @Test
    void command_isTheFirstWordWithoutSlashLowerCasedAndWithoutBotSuffix() {
        assertThat(msg("/Status").command()).isEqualTo("status");
        assertThat(msg("  /queue@herald_bot do this later").command()).isEqualTo("queue");
        assertThat(msg("/queue@herald_bot do this later").commandArgs()).isEqualTo("do this later");
    }

    @Test
    void pathLikeTextAndPlainText_areNotCommands() {
        assertThat(msg("/usr/bin/env is a path").isCommand()).isFalse();
        assertThat(msg("hello /status").isCommand()).isFalse();
        assertThat(msg("/").isCommand()).isFalse();
    }
}
