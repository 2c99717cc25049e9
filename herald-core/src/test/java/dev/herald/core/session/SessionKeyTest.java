package dev.herald.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import org.junit.jupiter.api.Test;

class SessionKeyTest {
    static final Platform TG = Platform.of("telegram");

    @Test
    void dm_isOneLanePerChat() {
        assertThat(SessionKey.of(SessionSource.dm(TG, "1", "u1")).value()).isEqualTo("agent:main:telegram:dm:1");
        assertThat(SessionKey.of(SessionSource.dm(TG, "1", "u2")).value()).isEqualTo("agent:main:telegram:dm:1");
    }

    @Test
    void dmWithThread_addsTheThread() {
        SessionSource s = SessionSource.dm(TG, "1", "u1").withThread("t9");
        assertThat(SessionKey.of(s).value()).isEqualTo("agent:main:telegram:dm:1:t9");
    }

    @Test
    void group_isOneLanePerUserByDefault() {
        SessionSource a = new SessionSource(TG, "g1", ChatType.GROUP, "u1", null, null, null);
        SessionSource b = new SessionSource(TG, "g1", ChatType.GROUP, "u2", null, null, null);
        assertThat(SessionKey.of(a).value()).isEqualTo("agent:main:telegram:group:g1:u1");
        assertThat(SessionKey.of(a)).isNotEqualTo(SessionKey.of(b));
    }

    @Test
    void threadInAGroup_isSharedByDefault() {
        SessionSource a = new SessionSource(TG, "resume-chat", ChatType.GROUP, "u1", null, "topic-1", null);
        SessionSource b = new SessionSource(TG, "resume-chat", ChatType.GROUP, "u2", null, "topic-1", null);
        assertThat(SessionKey.of(a).value()).isEqualTo("agent:main:telegram:group:resume-chat:topic-1");
        assertThat(SessionKey.of(a)).isEqualTo(SessionKey.of(b));
    }

    @Test
    void policy_canMakeThreadsPerUserAndGroupsShared() {
        SessionSource inThread = new SessionSource(TG, "c", ChatType.GROUP, "u1", null, "t", null);
        SessionSource plain = new SessionSource(TG, "c", ChatType.GROUP, "u1", null, null, null);
        assertThat(SessionKey.of(inThread, new SessionKey.KeyPolicy("agent:main", true, true)).value())
                .isEqualTo("agent:main:telegram:group:c:t:u1");
        assertThat(SessionKey.of(plain, new SessionKey.KeyPolicy("agent:main", false, false)).value())
                .isEqualTo("agent:main:telegram:group:c");
    }

    @Test
    void key_rejectsTraversalAndControlCharacters() {
        assertThatThrownBy(() -> new SessionKey("agent:main:x:dm:../../etc")).hasMessageContaining("..");
        assertThatThrownBy(() -> new SessionKey("a\u0000b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void platform_rejectsIdsThatCannotAppearInKeys() {
        assertThatThrownBy(() -> Platform.of("Tele gram")).hasMessageContaining("invalid");
    }
}
