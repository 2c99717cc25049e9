package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.session.SessionSource;
import dev.herald.platforms.GatewayFixture;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Command tiers in Slack's {@code !} form: {@code !restart} from a user who is not an admin is refused with the tier
 * text, from an admin it restarts; {@code !help} shows each only what they may run.
 */
class SlackCommandTiersTest {
    final FakeSlack slack = new FakeSlack();
    final List<SessionSource> restarts = new CopyOnWriteArrayList<>();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1").admins("U9").with(b -> b.onRestartRequested(restarts::add));

    private String say(String channel, String user, String ts, String text) {
        int before = slack.posts.size();
        slack.deliver(slack.message(channel, "im", user, ts, null, text));
        await().atMost(WAIT).until(() -> slack.posts.size() > before);
        return slack.posts.get(before).text();
    }

    @Test
    void bangRestart_isRefusedForAUser_andRunForAnAdmin_andBangHelpFollowsTheTier() {
        herald.start();
        assertThat(say("D1", "U1", "1712000020.000100", "!restart")).contains("/restart is for admins here; ask an admin of this Herald");
        assertThat(restarts).isEmpty();
        assertThat(say("D1", "U1", "1712000020.000200", "!help")).contains("/sessions").doesNotContain("/restart - ")
                .contains("For admins only: /restart /sethome");

        assertThat(say("D9", "U9", "1712000020.000300", "!help")).contains("/restart - restart the gateway (admins only)");
        assertThat(say("D9", "U9", "1712000020.000400", "!restart")).contains("Restarting the gateway");
        assertThat(restarts).extracting(SessionSource::userId).containsExactly("U9");
        assertThat(herald.turns()).as("commands, never turns").isEmpty();
    }
}
