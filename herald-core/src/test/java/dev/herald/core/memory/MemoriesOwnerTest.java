package dev.herald.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import org.junit.jupiter.api.Test;

/** Whose memory a turn uses: the sender's platform and user id; a background task's is its asker's. */
class MemoriesOwnerTest {
    private static final Platform CHAT = Platform.of("loopback");

    @Test
    void owner_isThePlatformAndTheSender_inAGroupToo_andUnknownWithoutAUser() {
        assertThat(Memories.ownerOf(SessionSource.dm(CHAT, "42", "42"))).isEqualTo("loopback:42");
        assertThat(Memories.ownerOf(new SessionSource(CHAT, "-100", ChatType.GROUP, "7", "Ann", null, "team"))).isEqualTo("loopback:7");
        assertThat(Memories.ownerOf(new SessionSource(CHAT, "-100", ChatType.GROUP, null, null, null, null))).isNull();
        assertThat(Memories.ownerOf(null)).isNull();
    }

    @Test
    void aBackgroundTasksTurn_isItsAskersOnTheirPlatform() {
        SessionSource asked = new SessionSource(CHAT, "-100", ChatType.GROUP, "7", "Ann", "t1", "team");
        SessionSource task = BackgroundChats.source(asked, 3, "k9");
        assertThat(task.platform()).isEqualTo(BackgroundChats.PLATFORM);
        assertThat(Memories.ownerOf(task)).isEqualTo("loopback:7");
    }
}
