package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatType;
import dev.herald.platforms.GatewayFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The open platform's calls to Herald's request URL: the URL verification, encrypted and signed events answered through
 * the IM API, and everything that is not the platform's (a wrong signature, encrypt key or verification token, an old
 * timestamp, an unsigned event) refused before anything is stored; a redelivered event is answered once; group messages
 * only when they @mention the bot, threads answered in the thread.
 */
class FeishuCallbackTest {
    static final String ALICE = "ou_7d8a6e6df7621556ce0d21922b676706";
    static final String STRANGER = "ou_0000000000000000000000000000dead";
    static final String DM = "oc_84983ff6516d731e5b5f68d4ea2e1da5";
    static final String GROUP = "oc_5ad11d72b830411d72b836c20";

    final FakeFeishu feishu = new FakeFeishu();
    @RegisterExtension
    final GatewayFixture herald = feishu.herald(ALICE).withPairing();

    @Test
    void theDecryption_matchesThePublishedSample_andTheSignatureIsSha256OfTimestampNonceKeyBody() throws Exception {
        // the open platform's decryption sample: encrypt key "test key", "hello world"
        FeishuCrypto sample = new FeishuCrypto("test key");
        assertThat(new String(sample.decrypt("P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk="), StandardCharsets.UTF_8)).isEqualTo("hello world");
        assertThatThrownBy(() -> new FeishuCrypto("another key").decrypt("P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk="))
                .isInstanceOf(FeishuCrypto.Refused.class).hasMessageNotContaining("test key");

        byte[] body = "{\"encrypt\":\"abc\"}".getBytes(StandardCharsets.UTF_8);
        String good = FakeFeishu.sign("1700000000", "n1", "test key", "{\"encrypt\":\"abc\"}");
        assertThat(sample.signed(good, "1700000000", "n1", body)).isTrue();
        assertThat(sample.signed(good.toUpperCase(), "1700000000", "n1", body)).as("hex in either case").isTrue();
        assertThat(sample.signed(good, "1700000001", "n1", body)).isFalse();
        assertThat(sample.signed(good, "1700000000", "n1", "{\"encrypt\":\"abd\"}".getBytes(StandardCharsets.UTF_8))).isFalse();
    }

    @Test
    void theUrlVerification_answersTheChallenge_andRefusesAWrongToken() {
        herald.start();

        var good = feishu.verify("ajls384kdjx98XX", FakeFeishu.TOKEN);
        var wrong = feishu.verify("ajls384kdjx98XX", "guessed-token");

        assertThat(good.statusCode()).isEqualTo(200);
        assertThat(good.body()).isEqualTo("{\"challenge\":\"ajls384kdjx98XX\"}");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("ajls384kdjx98XX");
    }

    @Test
    void aDirectMessage_isAnsweredAsAPost_andARedeliveredEvent_isAnsweredOnce() {
        herald.start();
        String event = FakeFeishu.text("5e3702a84e847582be8db7fb73283c02", "om_5ce6d572455d361153b7cb51da133945", DM, "p2p", ALICE,
                "hello **there**");

        assertThat(feishu.post(event)).isEqualTo(200);
        assertThat(feishu.post(event)).as("the platform's redelivery of the same event").isEqualTo(200);

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        FakeFeishu.Sent s = feishu.sentTo(DM).getFirst();
        assertThat(s.type()).isEqualTo("post");
        assertThat(s.text()).isEqualTo("echo: hello **there**");
        assertThat(s.replyTo()).as("a DM is answered as a new message").isNull();
        assertThat(s.uuid()).isNotBlank();
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().chatType()).isEqualTo(ChatType.DM);
            assertThat(t.source().userId()).isEqualTo(ALICE);
        });
    }

    @Test
    void inAGroup_onlyMessagesThatMentionTheBot_areRead_andTheAnswerRepliesToTheQuestion() {
        herald.start();
        feishu.post(FakeFeishu.text("ev-g-1", "om_g0000000000000000000000000001", GROUP, "group", ALICE, "talking to people"));
        feishu.post(FakeFeishu.text("ev-g-2", "om_g0000000000000000000000000002", GROUP, "group", ALICE, "@_user_1 look", STRANGER));
        feishu.post(FakeFeishu.text("ev-g-3", "om_g0000000000000000000000000003", GROUP, "group", ALICE, "@_user_1 what is 2+2? cc @_user_2",
                FakeFeishu.BOT, STRANGER));

        await().atMost(WAIT).until(() -> feishu.sentTo(GROUP).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(GROUP).size() == 1);
        FakeFeishu.Sent s = feishu.sentTo(GROUP).getFirst();
        assertThat(s.text()).as("the bot's mention cut out, another's named").isEqualTo("echo: what is 2+2? cc @Bob");
        assertThat(s.replyTo()).isEqualTo("om_g0000000000000000000000000003");
        assertThat(s.inThread()).isFalse();
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.source().chatType()).isEqualTo(ChatType.GROUP));
    }

    @Test
    void whenTheBotsOpenIdIsNotKnownAtStart_groupMessagesWait_andItIsAskedAgainLater() {
        feishu.botInfoDown = true;
        herald.start();
        feishu.post(FakeFeishu.text("ev-b-1", "om_b00000000000000000000000000001", GROUP, "group", ALICE, "@_user_1 early", FakeFeishu.BOT));
        await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> feishu.sentTo(GROUP).isEmpty());

        feishu.botInfoDown = false;
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger(10);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(150)).until(() -> {
            int i = n.incrementAndGet();
            feishu.post(FakeFeishu.text("ev-b-" + i, "om_b000000000000000000000000000" + i, GROUP, "group", ALICE, "@_user_1 later",
                    FakeFeishu.BOT));
            return !feishu.sentTo(GROUP).isEmpty();
        });
        await().atMost(WAIT).until(() -> feishu.sentTo(GROUP).stream().anyMatch(s -> "echo: later".equals(s.text())));
        assertThat(feishu.sentTo(GROUP)).noneMatch(s -> s.text().contains("early"));
    }

    @Test
    void aMessageInAThread_isItsOwnSession_andAnsweredInTheThread() {
        herald.start();
        String root = "om_root00000000000000000000000001";
        feishu.post(FakeFeishu.inThread(FakeFeishu.text("ev-t-1", "om_t00000000000000000000000000001", GROUP, "group", ALICE,
                "@_user_1 in the thread", FakeFeishu.BOT), root));
        feishu.post(FakeFeishu.text("ev-t-0", root, GROUP, "group", ALICE, "@_user_1 the root", FakeFeishu.BOT));

        await().atMost(WAIT).until(() -> feishu.sentTo(GROUP).size() == 2);
        FakeFeishu.Sent inThread = feishu.sentTo(GROUP).stream().filter(s -> s.text().equals("echo: in the thread")).findFirst().orElseThrow();
        assertThat(inThread.replyTo()).isEqualTo(root);
        assertThat(inThread.inThread()).isTrue();
        assertThat(herald.turns()).extracting(t -> t.source().threadId()).containsExactlyInAnyOrder(root, null);
    }

    @Test
    void forgedEvents_areRefusedBeforeAnythingIsStored() {
        herald.start();
        String event = FakeFeishu.text("ev-f-1", "om_f0000000000000000000000000001", DM, "p2p", ALICE, "forged");

        assertThat(feishu.post(event, FakeFeishu.ENCRYPT_KEY, "guessed key", Instant.now()).statusCode()).as("a wrong signature").isEqualTo(401);
        assertThat(feishu.post(event, "guessed key", "guessed key", Instant.now()).statusCode()).as("another encrypt key").isEqualTo(401);
        assertThat(feishu.post(event, FakeFeishu.ENCRYPT_KEY, FakeFeishu.ENCRYPT_KEY, Instant.now().minusSeconds(3600)).statusCode())
                .as("a replay an hour later").isEqualTo(401);
        assertThat(feishu.postRaw(FakeFeishu.envelope(FakeFeishu.encrypt(event, FakeFeishu.ENCRYPT_KEY)), Map.of()).statusCode())
                .as("an unsigned event").isEqualTo(401);
        assertThat(feishu.post(event.replace(FakeFeishu.TOKEN, "wrong-verification-token"))).as("a wrong verification token").isEqualTo(401);
        assertThat(feishu.postRaw(event, Map.of()).statusCode()).as("a plain event while the encrypt key is set").isEqualTo(401);
        String garbage = "{\"encrypt\":\"" + java.util.Base64.getEncoder().encodeToString(new byte[48]) + "\"}";
        String ts = Long.toString(Instant.now().getEpochSecond());
        assertThat(feishu.postRaw(garbage, Map.of("X-Lark-Request-Timestamp", ts, "X-Lark-Request-Nonce", "n9", "X-Lark-Signature",
                FakeFeishu.sign(ts, "n9", FakeFeishu.ENCRYPT_KEY, garbage))).statusCode()).as("signed, but not decryptable").isEqualTo(400);

        assertThat(herald.turns()).isEmpty();
        assertThat(feishu.sent).isEmpty();
    }

    @Test
    void withoutAnEncryptKey_plainEventsAreCheckedByTheVerificationTokenOnly() {
        feishu.settings = FeishuSettings.of(feishu.baseUrl(), FakeFeishu.APP_ID, FakeFeishu.SECRET, FakeFeishu.TOKEN, null);
        herald.start();
        String good = FakeFeishu.text("ev-p-1", "om_p0000000000000000000000000001", DM, "p2p", ALICE, "plain");

        assertThat(feishu.postRaw(good.replace(FakeFeishu.TOKEN, "nope"), Map.of()).statusCode()).isEqualTo(401);
        assertThat(feishu.postRaw("not json", Map.of()).statusCode()).isEqualTo(400);
        assertThat(feishu.postRaw("{\"challenge\":\"c1\",\"token\":\"" + FakeFeishu.TOKEN + "\",\"type\":\"url_verification\"}", Map.of()).body())
                .isEqualTo("{\"challenge\":\"c1\"}");
        assertThat(feishu.postRaw(good, Map.of()).statusCode()).isEqualTo(200);

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: plain");
    }

    @Test
    void aStrangersDirectMessage_getsAPairingCode_notTheAgent() {
        herald.start();
        feishu.post(FakeFeishu.text("ev-s-1", "om_s0000000000000000000000000001", "oc_stranger000000000000000000001", "p2p", STRANGER, "hi"));

        await().atMost(WAIT).until(() -> feishu.sentTo("oc_stranger000000000000000000001").size() == 1);
        assertThat(feishu.sentTo("oc_stranger000000000000000000001").getFirst().text()).contains("herald pairing approve feishu");
        assertThat(herald.turns()).isEmpty();
    }
}
