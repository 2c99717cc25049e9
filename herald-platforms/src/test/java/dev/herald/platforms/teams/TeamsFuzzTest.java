package dev.herald.platforms.teams;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Activities from a broken (or hostile but token-holding) sender: the parser never throws but for a body that is not
 * JSON and makes only well-formed events; the running route answers every body without a valid token 401, every one
 * with a token 200, 400 or 403, and still answers the next good message, having stored turns only for the allowed user.
 */
@Tag("fuzz")
class TeamsFuzzTest {
    static final String ALICE = TeamsWebhookTest.ALICE;

    final FakeTeams teams = new FakeTeams();
    @RegisterExtension
    final GatewayFixture herald = teams.herald(ALICE);

    List<String> corpus() {
        var image = teams.personal(ALICE, "1700000000301", "look");
        image.putArray("attachments").addObject().put("contentType", "image/png").put("contentUrl", teams.serviceUrl() + "v3/attachments/x/views/original");
        var press = teams.inGroup(TeamsWebhookTest.GROUP, "groupChat", ALICE, "1700000000302", null, false);
        press.putObject("value").put("herald", "/approve always");
        return List.of(
                teams.personal(ALICE, "1700000000300", "hello *there*").toString(),
                image.toString(),
                press.toString(),
                teams.inGroup(TeamsWebhookTest.CHANNEL + ";messageid=1699", "channel", ALICE, "1700000000303", "in a thread", true).toString(),
                """
                {"type":"conversationUpdate","id":"f:1","channelId":"msteams","serviceUrl":"http://127.0.0.1/amer/","membersAdded":[{"id":"28:x"}],
                 "conversation":{"id":"19:a@thread.v2","conversationType":"groupChat"},"recipient":{"id":"28:x"},"from":{"id":"29:y"}}""",
                """
                {"type":"invoke","name":"adaptiveCard/action","id":"f:2","channelId":"msteams","value":{"action":{"type":"Action.Execute"}}}""");
    }

    @Test
    void theParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        TeamsActivities activities = new TeamsActivities(TeamsAdapter.PLATFORM, true);
        Fuzzer.of("teams activity", corpus(), 5_000).run(input -> {
            var parsed = activities.parse(input.getBytes(StandardCharsets.UTF_8), Instant.now());
            if (parsed.message() != null) {
                wellFormed(parsed.message().event());
                assertThat(TeamsActivities.activityOf(parsed.message().event().messageId())).isEqualTo(parsed.message().activityId());
            } else {
                assertThat(parsed.skipped()).isNotBlank();
            }
        }, t -> t instanceof IOException);
    }

    @Test
    void theRoute_refusesGarbageWithoutAToken_readsItWithOne_andStillAnswersTheNextGoodMessage() {
        herald.start();
        String token = "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).build(), teams.k1);
        Fuzzer.wire("teams activity wire", corpus(), 200).run(body -> {
            assertThat(teams.post(body, "Bearer not.a.token")).as("an invalid token").isEqualTo(401);
            assertThat(teams.post(body, token)).as("a body with a valid token is read, skipped or refused").isIn(200, 400, 403, 413);
        }, t -> false);

        teams.post(teams.personal(ALICE, "1700000000399", "still there?").toString());
        await().atMost(WAIT).until(() -> teams.messages().stream().anyMatch(s -> "echo: still there?".equals(s.text())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
