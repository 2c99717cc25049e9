package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Identities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code /link} in a chat: a code in a direct chat only, its status, and unlinking. */
class LinkCommandTest {
    final Identities identities = Identities.inMemory(Clock.systemUTC());
    final LinkCommand command = new LinkCommand(identities);

    private String say(SessionSource from, String text) {
        return command.handle(MessageEvent.text(from, text, null, Instant.now()), new SessionKey("agent:main:test"), false);
    }

    private static SessionSource source(String platform, ChatType type, String user) {
        return new SessionSource(Platform.of(platform), "chat-1", type, user, null, null, null);
    }

    @Test
    void inAGroup_noCodeIsShown() {
        String reply = say(source("telegram", ChatType.GROUP, "100"), "/link");
        assertThat(reply).contains("direct message").doesNotContainPattern("[A-Z2-9]{4}-[A-Z2-9]{4}");
    }

    @Test
    void inADirectChat_theCodeLinks_statusSaysSo_andRemoveUnlinks() {
        SessionSource dm = source("telegram", ChatType.DM, "100");
        assertThat(say(dm, "/link status")).contains("not linked");
        String reply = say(dm, "/link");
        String code = reply.replaceAll("(?s).*Your link code: (\\S+).*", "$1");
        assertThat(identities.redeem("ann", code)).isInstanceOf(Identities.Redeemed.Linked.class);
        assertThat(say(dm, "/link status")).contains("telegram:100").contains("'ann'");
        assertThat(command.statusLines(MessageEvent.text(dm, "/status", null, Instant.now()), null, false))
                .containsExactly("Linked to the Herald account 'ann'");
        assertThat(say(dm, "/link")).as("a new code tells who it is linked to now").contains("linked to 'ann' now");
        assertThat(say(dm, "/link remove")).startsWith("Unlinked");
        assertThat(say(dm, "/link remove")).contains("not linked");
        assertThat(say(dm, "/link sideways")).startsWith("Usage:");
    }

    @Test
    void fromTheWebChat_theUserIsAnAccountAlready() {
        assertThat(say(source("webchat", ChatType.DM, "u:ann"), "/link")).contains("signed in to your Herald account here already");
    }
}
