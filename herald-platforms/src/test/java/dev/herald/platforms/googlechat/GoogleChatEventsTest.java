package dev.herald.platforms.googlechat;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
 * Google Chat's calls to Herald's route: the bearer JWT checked before the body is read (wrong key, audience, issuer
 * or an expired token is 401), an empty synchronous answer and the reply through {@code spaces.messages.create} in the
 * thread with the app's token, dedupe by message name, mention gating in spaces, threads as sessions, and the approval
 * card with its buttons.
 */
class GoogleChatEventsTest {
    static final String ALICE = "109876543210987654321";
    static final String STRANGER = "100000000000000000001";
    static final String DM = "AAAAdm1Qx2k";
    static final String SPACE = "AAAAspace42";

    final FakeGoogleChat chat = new FakeGoogleChat();
    @RegisterExtension
    final GatewayFixture herald = chat.herald(ALICE).withPairing();

    @Test
    void aDirectMessage_isAcknowledgedEmpty_andAnsweredThroughTheChatApi_inChatFormatting() {
        herald.start();
        herald.agent.reply("**Done**: see [the report](https://example.com/r).");

        var ack = chat.post(FakeGoogleChat.dm(DM, ALICE, "msg1.abc", "write the report").toString(),
                "Bearer " + FakeGoogleChat.sign(chat.claims().build(), chat.chatKey));
        assertThat(ack.statusCode()).isEqualTo(200);
        assertThat(ack.body()).as("no synchronous reply").isEqualTo("{}");

        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
        FakeGoogleChat.Created reply = chat.createdIn(DM).getFirst();
        assertThat(reply.text()).isEqualTo("*Done*: see <https://example.com/r|the report>.");
        assertThat(reply.requestId()).as("an idempotent create").startsWith("herald-");
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        assertThat(herald.turns(TurnState.DELIVERED).getFirst().source().userId()).isEqualTo(ALICE);

        chat.post(FakeGoogleChat.dm(DM, ALICE, "msg2.abc", "again").toString());
        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 2);
        assertThat(chat.tokenRequests.get()).as("the app's token is kept until it expires").isEqualTo(1);
    }

    @Test
    void tokensThatAreNotGoogleChatsForThisProject_are401_andNothingIsStored_andARedeliveryIsAnsweredOnce() {
        herald.start();
        String event = FakeGoogleChat.dm(DM, ALICE, "msg3.abc", "hello").toString();
        Instant now = Instant.now();

        assertThat(chat.post(event, null).statusCode()).as("no token").isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(chat.claims().build(), chat.forged)).statusCode()).as("a forged key")
                .isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(chat.claims().audience("999999999999").build(), chat.chatKey)).statusCode())
                .as("another project").isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(chat.claims().issuer("someone@else.iam.gserviceaccount.com").build(),
                chat.chatKey)).statusCode()).as("another issuer").isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(chat.claims().expirationTime(Date.from(now.minusSeconds(900))).build(),
                chat.chatKey)).statusCode()).as("expired").isEqualTo(401);
        assertThat(herald.turns()).isEmpty();

        assertThat(chat.post(event)).isEqualTo(200);
        assertThat(chat.post(event)).as("the same message again").isEqualTo(200);
        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void inASpace_onlyAMentionCounts_andEachThreadIsASession_answeredInItsThread() {
        herald.start();

        chat.post(FakeGoogleChat.message(SPACE, "SPACE", "thrA", ALICE, "m1.x", "people talking", false).toString());
        chat.post(FakeGoogleChat.message(SPACE, "SPACE", "thrA", ALICE, "m2.x", "what's up?", true).toString());
        await().atMost(WAIT).until(() -> chat.createdIn(SPACE).size() == 1);
        chat.post(FakeGoogleChat.message(SPACE, "SPACE", "thrB", ALICE, "m3.x", "another thread", true).toString());
        await().atMost(WAIT).until(() -> chat.createdIn(SPACE).size() == 2);

        assertThat(herald.agent.calls()).extracting(c -> c.userMessage()).containsExactly("what's up?", "another thread");
        FakeGoogleChat.Created first = chat.createdIn(SPACE).get(0);
        assertThat(first.thread()).isEqualTo("spaces/" + SPACE + "/threads/thrA");
        assertThat(first.replyOption()).isEqualTo("REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
        assertThat(chat.createdIn(SPACE).get(1).thread()).isEqualTo("spaces/" + SPACE + "/threads/thrB");
        assertThat(herald.turns()).extracting(t -> t.source().threadId()).containsExactlyInAnyOrder("thrA", "thrB");
    }

    @Test
    void anApprovalQuestion_isACardWithButtons_andAClick_reachesTheGatewayAsItsCommand() {
        herald.start();

        var result = herald.current.send(new OutboundMessage(new ChatTarget(SPACE, "thrC"),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));
        assertThat(result.success()).isTrue();
        var card = chat.createdIn(SPACE).getFirst().body().path("cardsV2").path(0).path("card");
        assertThat(card.path("sections").path(0).path("widgets").path(0).path("textParagraph").path("text").asText()).contains("`rm -rf build`");
        var buttons = card.path("sections").path(0).path("widgets").path(1).path("buttonList").path("buttons");
        assertThat(buttons.findValuesAsText("text")).containsExactly("Approve", "Always", "Deny");
        assertThat(buttons.findValuesAsText("function")).containsOnly(GoogleChatEvents.APPROVAL_FUNCTION);
        assertThat(buttons.findValuesAsText("value")).containsExactly("/approve", "/approve always", "/deny");

        assertThat(chat.post(FakeGoogleChat.cardClicked(SPACE, "SPACE", "thrC", ALICE, "9001.herald", GoogleChatEvents.APPROVAL_FUNCTION, "/deny")
                .toString())).isEqualTo(200);
        assertThat(chat.post(FakeGoogleChat.cardClicked(SPACE, "SPACE", "thrC", ALICE, "9001.herald", "someone_elses", "/approve").toString()))
                .as("another function: skipped").isEqualTo(200);
        await().atMost(WAIT).until(() -> chat.createdIn(SPACE).size() == 2);
        assertThat(herald.agent.calls()).as("a command, answered inline").isEmpty();
        assertThat(chat.createdIn(SPACE).get(1).thread()).isEqualTo("spaces/" + SPACE + "/threads/thrC");
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> chat.createdIn(SPACE).size() == 2);
    }

    @Test
    void withTheEndpointUrlAsAudience_onlyAGoogleIdTokenForGoogleChatsAccount_passes() {
        String url = "https://herald.example.com/platforms/google_chat/events";
        chat.settings = GoogleChatSettings.of(url, chat.baseUrl() + "/jwks", chat.keyFile.toString(), chat.baseUrl() + "/token", chat.baseUrl());
        herald.start();
        String event = FakeGoogleChat.dm(DM, ALICE, "idt1.x", "hello").toString();
        var idToken = chat.claims().issuer("https://accounts.google.com").audience(url).claim("email", FakeGoogleChat.ISSUER)
                .claim("email_verified", true);

        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(chat.claims().build(), chat.chatKey)).statusCode())
                .as("a project-number token").isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(idToken.claim("email", "someone@example.com").build(), chat.chatKey))
                .statusCode()).as("an ID token of another account").isEqualTo(401);
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(idToken.claim("email", FakeGoogleChat.ISSUER).claim("email_verified", false)
                .build(), chat.chatKey)).statusCode()).as("an unverified email").isEqualTo(401);
        assertThat(herald.turns()).isEmpty();
        assertThat(chat.post(event, "Bearer " + FakeGoogleChat.sign(idToken.claim("email_verified", true).build(), chat.chatKey)).statusCode())
                .isEqualTo(200);
        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
    }

    @Test
    void aRefusedServiceAccount_stopsTheStart_andAKeyFileThatIsNoKey_isRefusedNamingTheKey() throws Exception {
        java.nio.file.Path other = java.nio.file.Files.createTempFile("herald-gchat-other", ".json");
        try {
            var key = new com.nimbusds.jose.jwk.gen.RSAKeyGenerator(2048).generate();
            String pem = "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder().encodeToString(key.toPrivateKey().getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            java.nio.file.Files.writeString(other, dev.herald.platforms.LocalJsonServer.JSON.createObjectNode().put("type", "service_account")
                    .put("client_email", FakeGoogleChat.CLIENT_EMAIL).put("private_key", pem).toString());
            var settings = GoogleChatSettings.of(FakeGoogleChat.PROJECT_NUMBER, chat.baseUrl() + "/jwks", other.toString(), chat.baseUrl() + "/token",
                    chat.baseUrl());
            GoogleChatAdapter adapter = new GoogleChatAdapter(settings, FakeGoogleChat.timing(), java.time.Clock.systemUTC());
            assertThatThrownBy(() -> adapter.start(new dev.herald.platforms.RecordingSink())).hasMessageContaining("invalid_grant")
                    .hasMessageContaining("check platforms.google_chat.service_account_file");
            adapter.close();

            java.nio.file.Files.writeString(other, "{\"type\":\"authorized_user\",\"refresh_token\":\"1//secret-refresh\"}");
            assertThatThrownBy(() -> new GoogleChatAdapter(settings, FakeGoogleChat.timing(), java.time.Clock.systemUTC()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("platforms.google_chat.service_account_file")
                    .hasMessageContaining("is not a service account key").hasMessageNotContaining("secret-refresh");
        } finally {
            java.nio.file.Files.deleteIfExists(other);
        }
    }

    @Test
    void anUnknownUser_getsAPairingCode_andOtherEvents_startNoTurn() {
        herald.start();

        var added = FakeGoogleChat.dm(DM, STRANGER, "add1", null).put("type", "ADDED_TO_SPACE");
        assertThat(chat.post(added.toString())).isEqualTo(200);
        assertThat(chat.post("{not json")).as("a verified body that is not JSON").isEqualTo(400);
        chat.post(FakeGoogleChat.dm("AAAAdmStrngr", STRANGER, "msg9.abc", "let me in").toString());

        await().atMost(WAIT).until(() -> chat.createdIn("AAAAdmStrngr").size() == 1);
        assertThat(chat.createdIn("AAAAdmStrngr").getFirst().text()).contains("pairing code").contains("herald pairing approve google_chat");
        assertThat(herald.turns()).isEmpty();
    }
}
