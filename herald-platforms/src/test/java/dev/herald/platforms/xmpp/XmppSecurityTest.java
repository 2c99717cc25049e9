package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.ConfigException;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Logging in to a real Prosody: a wrong password fails start naming the keys (never the password), a server without
 * STARTTLS is not used in plain when starttls is asked for, a plain connection is refused by the configuration unless
 * it goes to loopback, and a room that hides real JIDs is not a way around {@code allowed_users}.
 */
class XmppSecurityTest {
    static Prosody prosody;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, prosody.port, List.of("hidden@" + Prosody.MUC)), XmppTest.ALICE);

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        prosody.close();
    }

    @Test
    void aWrongPassword_failsStart_namingTheKeys_withoutThePassword() {
        XmppSettings wrong = XmppSettings.of(XmppTest.BOT, "not-the-password-42").withServer("127.0.0.1", prosody.port, XmppSettings.Security.NONE);
        XmppAdapter adapter = new XmppAdapter(wrong, XmppTest.TIMING, Clock.systemUTC());
        try {
            assertThatThrownBy(() -> adapter.start(new RecordingSink())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("refused the login").hasMessageContaining("platforms.xmpp.password")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-password-42"));
        } finally {
            adapter.close();
        }
    }

    @Test
    void starttlsAskedFor_butNotOffered_neverLogsInInPlain_andSaysWhy() throws Exception {
        XmppSettings tls = XmppSettings.of(XmppTest.BOT, XmppTest.BOT_PASSWORD).withServer("127.0.0.1", prosody.port, XmppSettings.Security.STARTTLS);
        XmppAdapter adapter = new XmppAdapter(tls, XmppTest.TIMING, Clock.systemUTC());
        RecordingSink sink = new RecordingSink();
        try {
            adapter.start(sink);
            await().atMost(WAIT).until(() -> sink.states.contains(ConnectionState.BACKING_OFF));
            assertThat(sink.states).doesNotContain(ConnectionState.CONNECTED);
            assertThat(sink.details).anySatisfy(d -> assertThat(d).contains("offers no STARTTLS"));
        } finally {
            adapter.close();
        }
    }

    @Test
    void securityNone_isAConfigurationError_unlessTheHostIsLoopback() {
        XmppSettings remote = XmppSettings.of("herald@example.org", "pw").withServer("xmpp.example.org", 5222, XmppSettings.Security.NONE);
        assertThatThrownBy(() -> remote.validate(checks())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("platforms.xmpp.security").hasMessageContaining("loopback");
        XmppSettings byDomain = XmppSettings.of("herald@example.org", "pw").withServer(null, 5222, XmppSettings.Security.NONE);
        assertThatThrownBy(() -> byDomain.validate(checks())).isInstanceOf(ConfigException.class);

        XmppSettings.of("herald@localhost", "pw").withServer("127.0.0.1", 5222, XmppSettings.Security.NONE).validate(checks());
        XmppSettings.of("herald@example.org", "pw").withServer("::1", 5222, XmppSettings.Security.NONE).validate(checks());
        XmppSettings.of("herald@example.org", "pw").validate(checks());
    }

    @Test
    void aRoomThatHidesRealJids_refusesAMentionFromAnOccupantNotKnownToBeAllowed() throws Exception {
        // alice creates the room first (she owns it, it stays semi-anonymous), then the bot joins as a plain participant
        try (XmppUser alice = XmppUser.login(prosody, "alice", "alice-pw")) {
            alice.join("hidden@" + Prosody.MUC, "alice");
            Thread.sleep(300);
            herald.start();
            alice.sayInRoom("hidden@" + Prosody.MUC, "herald: can you hear me?");
            alice.say(XmppTest.BOT, "and here?");

            await().atMost(WAIT).until(() -> alice.bodiesFrom(XmppTest.BOT).contains("echo: and here?"));
            assertThat(herald.agent.messages()).containsExactly("and here?");
            assertThat(alice.bodiesFrom("hidden@" + Prosody.MUC)).noneMatch(b -> b.startsWith("echo"));
        }
    }

    private static ConfigChecks checks() {
        return new ConfigChecks("platforms.xmpp", new ConfigChecks.Origins() {
            @Override
            public String where(String path) {
                return "config.yaml";
            }

            @Override
            public String origin(String path) {
                return "";
            }
        });
    }
}
