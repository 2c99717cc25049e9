package dev.herald.platforms.teams;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.SignedJWT;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Bot Connector's calls to Herald's route: a JWT checked against the Bot Framework's OpenID keys before the body is
 * read (wrong key, audience, issuer, algorithm or an expired token is 401), the serviceUrl bound to the token and the
 * allow-list (403), replies through the Connector with the bot's cached token, mention gating in group chats and
 * channels, threads, approval cards and the typing activity.
 */
class TeamsWebhookTest {
    static final String ALICE = "3f2a6c1e-8b4d-4f7a-9e21-5c0b7d9e1a33";
    static final String STRANGER = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
    static final String GROUP = "19:3b1e7c2a9f4d4e8b8a6c5d2e1f0a9b8c@thread.v2";
    static final String CHANNEL = "19:8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d@thread.tacv2";

    final FakeTeams teams = new FakeTeams();
    @RegisterExtension
    final GatewayFixture herald = teams.herald(ALICE).withPairing();

    @Test
    void aVerifiedPersonalMessage_isAnsweredAsAReply_withTheBotsCachedToken() {
        herald.start();
        herald.agent.reply("**Done**: the report is ready.");

        assertThat(teams.post(teams.personal(ALICE, "1700000000001", "write the report").toString())).isEqualTo(200);
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        FakeTeams.Posted reply = teams.messages().getFirst();
        assertThat(reply.conversation()).isEqualTo("a:1" + ALICE.replace("-", "") + "personal");
        assertThat(reply.replyTo()).as("posted to /activities/{activityId}").isEqualTo("1700000000001");
        assertThat(reply.body().path("replyToId").asText()).isEqualTo("1700000000001");
        assertThat(reply.text()).isEqualTo("**Done**: the report is ready.");
        assertThat(reply.body().path("textFormat").asText()).isEqualTo("markdown");
        assertThat(reply.authorization()).startsWith("Bearer " + FakeTeams.BOT_TOKEN_PREFIX);
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        assertThat(herald.turns(TurnState.DELIVERED).getFirst().source().userId()).isEqualTo(ALICE);

        teams.post(teams.personal(ALICE, "1700000000002", "and again").toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 2);
        assertThat(teams.tokenRequests.get()).as("the token is kept until it expires").isEqualTo(1);
    }

    @Test
    void tokensThatAreNotTheBotFrameworksForThisBot_are401_andNothingIsStored_andAReplayIsAnsweredOnce() throws Exception {
        herald.start();
        String activity = teams.personal(ALICE, "1700000000010", "hello").toString();
        Instant now = Instant.now();

        assertThat(teams.post(activity, null)).as("no token").isEqualTo(401);
        assertThat(teams.post(activity, "Basic dXNlcjpwYXNz")).as("not a bearer token").isEqualTo(401);
        assertThat(teams.post(activity, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).build(), teams.forged)))
                .as("signed with a key the Bot Framework did not publish, under a published key id").isEqualTo(401);
        assertThat(teams.post(activity, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).audience("another-bot").build(), teams.k1)))
                .as("another bot's audience").isEqualTo(401);
        assertThat(teams.post(activity, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).issuer("https://sts.windows.net/x/").build(), teams.k1)))
                .as("another issuer").isEqualTo(401);
        assertThat(teams.post(activity, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl())
                .expirationTime(Date.from(now.minusSeconds(600))).build(), teams.k1))).as("expired beyond the 5-minute skew").isEqualTo(401);
        assertThat(teams.post(activity, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl())
                .notBeforeTime(Date.from(now.plusSeconds(900))).build(), teams.k1))).as("not valid yet").isEqualTo(401);
        SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k1").build(), teams.claims(teams.serviceUrl()).build());
        hmac.sign(new MACSigner("a-shared-secret-of-at-least-256-bits-0123456789"));
        assertThat(teams.post(activity, "Bearer " + hmac.serialize())).as("HS256 is never taken").isEqualTo(401);
        assertThat(herald.turns()).isEmpty();

        assertThat(teams.post(activity)).isEqualTo(200);
        assertThat(teams.post(activity)).as("the same activity again (a replay or a redelivery)").isEqualTo(200);
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> teams.messages().size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aServiceUrlThatIsNotTheTokens_orNotAllowListed_is403_andNothingIsPostedAnywhere() {
        herald.start();
        var forged = teams.personal(ALICE, "1700000000020", "post elsewhere").put("serviceUrl", "https://attacker.example.net/");

        assertThat(teams.post(forged.toString(), "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).build(), teams.k1)))
                .as("the activity's serviceUrl is not the token's").isEqualTo(403);
        assertThat(teams.post(forged.toString(), "Bearer " + FakeTeams.sign(teams.claims("https://attacker.example.net/").build(), teams.k1)))
                .as("token and activity agree, but the host is not on service_url_hosts").isEqualTo(403);
        assertThat(teams.post(teams.personal(ALICE, "1700000000021", "no claim").toString(),
                "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).claim("serviceurl", null).build(), teams.k1)))
                .as("a token without a serviceurl claim").isEqualTo(403);

        assertThat(herald.turns()).isEmpty();
        assertThat(teams.posted).isEmpty();
        assertThat(TeamsConnector.allowed("https://smba.trafficmanager.net/amer/", TeamsSettings.DEFAULT_SERVICE_URL_HOSTS)).isTrue();
        assertThat(TeamsConnector.allowed("https://europe.webchat.botframework.com/", TeamsSettings.DEFAULT_SERVICE_URL_HOSTS)).isTrue();
        assertThat(TeamsConnector.allowed("https://evilbotframework.com/", TeamsSettings.DEFAULT_SERVICE_URL_HOSTS)).isFalse();
        assertThat(TeamsConnector.allowed("http://smba.trafficmanager.net/amer/", TeamsSettings.DEFAULT_SERVICE_URL_HOSTS)).as("https only").isFalse();
        assertThat(TeamsConnector.allowed("https://user@smba.trafficmanager.net/", TeamsSettings.DEFAULT_SERVICE_URL_HOSTS)).isFalse();
    }

    @Test
    void aRotatedKey_isFetchedOnItsFirstUse_andUnknownKeyIds_doNotMakeHeraldFetchAgainAndAgain() {
        herald.start();
        assertThat(teams.post(teams.personal(ALICE, "1700000000030", "first").toString())).isEqualTo(200);
        assertThat(teams.keyRequests.get()).isEqualTo(1);

        teams.publish(teams.k1, teams.k2);
        String second = teams.personal(ALICE, "1700000000031", "second").toString();
        assertThat(teams.post(second, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).build(), teams.k2))).isEqualTo(200);
        assertThat(teams.keyRequests.get()).as("fetched again for the new key id").isEqualTo(2);

        var unknown = new com.nimbusds.jose.jwk.RSAKey.Builder(teams.forged).keyID("k9").build();
        for (int i = 0; i < 3; i++) {
            assertThat(teams.post(second, "Bearer " + FakeTeams.sign(teams.claims(teams.serviceUrl()).build(), unknown))).isEqualTo(401);
        }
        assertThat(teams.keyRequests.get()).as("at most one fetch per refresh interval").isEqualTo(2);
        await().atMost(WAIT).until(() -> teams.messages().size() == 2);
    }

    @Test
    void inAGroupChat_onlyAMention_isAnswered_withoutTheMentionInTheText() {
        herald.start();

        assertThat(teams.post(teams.inGroup(GROUP, "groupChat", ALICE, "1700000000040", "talking to people", false).toString())).isEqualTo(200);
        assertThat(teams.post(teams.inGroup(GROUP, "groupChat", ALICE, "1700000000041", "what's up?", true).toString())).isEqualTo(200);

        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("what's up?"));
        assertThat(teams.messages().getFirst().conversation()).isEqualTo(GROUP);
        assertThat(teams.messages().getFirst().replyTo()).isEqualTo("1700000000041");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void inAChannel_aThreadIsASession_andTheReplyGoesIntoThatThread() {
        herald.start();

        teams.post(teams.inGroup(CHANNEL + ";messageid=1699999999000", "channel", ALICE, "1700000000050", "in the thread", true).toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        teams.post(teams.inGroup(CHANNEL, "channel", ALICE, "1700000000051", "a new post", true).toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 2);

        assertThat(teams.messages().get(0).conversation()).isEqualTo(CHANNEL + ";messageid=1699999999000");
        assertThat(teams.messages().get(1).conversation()).as("a new post starts its own thread").isEqualTo(CHANNEL + ";messageid=1700000000051");
        assertThat(herald.turns()).extracting(t -> t.source().threadId()).containsExactlyInAnyOrder("1699999999000", "1700000000051");
    }

    @Test
    void anApprovalQuestion_isAnAdaptiveCard_andAPressedButton_reachesTheGatewayAsItsCommand() {
        herald.start();
        teams.post(teams.personal(ALICE, "1700000000060", "hi").toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);

        var result = herald.current.send(new OutboundMessage(ChatTarget.of("a:1" + ALICE.replace("-", "") + "personal"),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));
        assertThat(result.success()).isTrue();
        var card = teams.messages().get(1).body().path("attachments").path(0);
        assertThat(card.path("contentType").asText()).isEqualTo("application/vnd.microsoft.card.adaptive");
        assertThat(card.path("content").path("body").path(0).path("text").asText()).contains("`rm -rf build`");
        assertThat(card.path("content").path("actions").findValuesAsText("type")).containsOnly("Action.Submit");
        assertThat(card.path("content").path("actions").findValuesAsText("herald")).containsExactly("/approve", "/approve always", "/deny");

        var press = teams.inGroup(GROUP, "groupChat", ALICE, "1700000000061", null, false);
        press.putObject("value").put("herald", "/deny");
        assertThat(teams.post(press.toString())).as("a button press needs no mention").isEqualTo(200);
        await().atMost(WAIT).until(() -> teams.messages().size() == 3);
        assertThat(herald.agent.calls()).as("the command is answered inline, no new agent turn").hasSize(1);
        assertThat(teams.messages().get(2).text()).isNotBlank();
    }

    @Test
    void aRunningTurn_showsTheTypingActivity_andAnUnknownUser_getsAPairingCode() {
        herald.start();
        var hold = herald.agent.hold("thought about it");

        teams.post(teams.personal(ALICE, "1700000000070", "think hard").toString());
        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> teams.posted.stream().anyMatch(p -> p.type().equals("typing")));
        hold.release();
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);

        teams.post(teams.personal(STRANGER, "1700000000071", "let me in").toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 2);
        assertThat(teams.messages().get(1).text()).contains("pairing code").contains("herald pairing approve teams");
        assertThat(herald.agent.calls()).hasSize(1);
    }
}
