package dev.herald.platforms.mattermost;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.ConfigException;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Connecting, credentials and configuration: what an operator sees when something is set wrong. */
class MattermostConnectionTest {
    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE);

    /** A platform state in memory, for an adapter started without a gateway. */
    static final class MemoryState implements PlatformState {
        final Map<String, String> values = new ConcurrentHashMap<>();

        @Override
        public Optional<String> get(dev.herald.core.platform.Platform platform, String name) {
            return Optional.ofNullable(values.get(name));
        }

        @Override
        public Map<String, String> all(dev.herald.core.platform.Platform platform) {
            return Map.copyOf(values);
        }

        @Override
        public void put(dev.herald.core.platform.Platform platform, Map<String, String> v) {
            values.putAll(v);
        }
    }

    @Test
    void aRejectedToken_failsTheStart_namingTheKey_neverTheToken() {
        String wrong = "wrongtoken0000000000000001";
        MattermostAdapter adapter = new MattermostAdapter(mm.settings().withToken(wrong), FakeMattermost.timing(), Clock.systemUTC(),
                new MemoryState());

        assertThatThrownBy(() -> adapter.start(new RecordingSink()))
                .hasMessageContaining("mattermost - reading the bot's own user failed (HTTP 401")
                .hasMessageContaining("check platforms.mattermost.token").message().doesNotContain(wrong);
    }

    @Test
    void aSendWithARevokedToken_failsWithoutRetry_namingTheKey() {
        herald.start();
        MattermostAdapter revoked = new MattermostAdapter(mm.settings().withToken("revoked0000000000000000001"),
                FakeMattermost.timing(), Clock.systemUTC(), new MemoryState());

        SendResult r = revoked.send(new OutboundMessage(ChatTarget.of(FakeMattermost.TOWN_SQUARE), "hello", MessageKind.NOTICE, null, null,
                1, 1));
        revoked.close();

        assertThat(r.success()).isFalse();
        assertThat(r.retryable()).isFalse();
        assertThat(r.error()).contains("HTTP 401", "check platforms.mattermost.token").doesNotContain("revoked0000");
    }

    @Test
    void aDroppedWebsocket_isReconnected_andAuthenticatesAgain() {
        herald.start();
        int before = mm.authentications.get();

        mm.dropSockets();

        await().atMost(WAIT).until(() -> mm.authentications.get() > before && mm.botConnected());
        String dm = mm.dm(ALICE);
        mm.say(ALICE, dm, "back?");
        await().atMost(WAIT).until(() -> mm.botMessages(dm).contains("echo: back?"));
    }

    @Test
    void theSamePartOfTheSameReply_alwaysHasTheSamePendingPostId_andNoticesHaveNone() {
        String a = MattermostAdapter.pendingPostId("chan", "turn-7:part-1");
        assertThat(MattermostAdapter.pendingPostId("chan", "turn-7:part-1")).isEqualTo(a);
        assertThat(MattermostAdapter.pendingPostId("chan", "turn-7:part-2")).isNotEqualTo(a);
        assertThat(MattermostAdapter.pendingPostId("other", "turn-7:part-1")).isNotEqualTo(a);
        assertThat(MattermostAdapter.pendingPostId("chan", null)).isNull();
    }

    @Test
    void validation_refusesPlainHttpToAnotherHost_usernamesInAllowedUsers_andAMissingToken() {
        assertThat(problem(MattermostSettings.of("http://chat.example.org", "t"))).contains("platforms.mattermost.url must use https");
        assertThat(problem(MattermostSettings.of("http://127.0.0.1:8065", "t"))).isNull();
        assertThat(problem(MattermostSettings.of("https://chat.example.org", "t"))).isNull();
        assertThat(problem(MattermostSettings.of("https://chat.example.org", null))).contains("platforms.mattermost.token is required");
        MattermostSettings d = MattermostSettings.of("https://chat.example.org", "t");
        MattermostSettings usernames = new MattermostSettings(true, d.url(), d.token(), "", List.of(), true, List.of("alice"), false, List.of(),
                d.homeChannel(), d.unauthorizedDm());
        assertThat(problem(usernames)).contains("platforms.mattermost.allowed_users must be Mattermost user ids", "was alice");
        assertThat(d.toString()).doesNotContain("t,").contains("token=****");
    }

    private static String problem(MattermostSettings s) {
        try {
            s.validate(new ConfigChecks("platforms.mattermost", new ConfigChecks.Origins() {
                @Override
                public String where(String path) {
                    return "config.yaml";
                }

                @Override
                public String origin(String path) {
                    return "";
                }
            }));
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }
}
