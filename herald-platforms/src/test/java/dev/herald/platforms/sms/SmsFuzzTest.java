package dev.herald.platforms.sms;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhook bodies from a broken (or hostile) sender: the form parser throws nothing but its own {@code Malformed}, the
 * reader makes only well-formed messages, and the running route answers every call 400 or 403 unless it is a form
 * signed with the auth token (then 200), never 500, and still answers the next good message, having stored turns only
 * for allowed numbers.
 */
@Tag("fuzz")
class SmsFuzzTest {
    static final String ALICE = SmsWebhookTest.ALICE;
    static final List<String> CORPUS = List.of(
            FakeTwilio.encode(FakeTwilio.sms(ALICE, FakeTwilio.sid(50), "hello *there* & €uro")),
            FakeTwilio.encode(FakeTwilio.sms("+447700900123", FakeTwilio.sid(51), "STOP")),
            "ToCountry=US&MediaContentType0=image%2Fjpeg&NumMedia=1&Body=a+photo&MessageSid=MM" + "0".repeat(31) + "1&AccountSid="
                    + FakeTwilio.ACCOUNT_SID + "&From=%2B4915112345678&MediaUrl0=https%3A%2F%2Fapi.twilio.com%2F2010-04-01%2FAccounts%2F"
                    + FakeTwilio.ACCOUNT_SID + "%2FMessages%2FMM" + "0".repeat(31) + "1%2FMedia%2FME" + "0".repeat(31) + "2&To=%2B15005550006",
            "SmsSid=SM" + "a".repeat(32) + "&SmsStatus=delivered&MessageStatus=delivered&AccountSid=" + FakeTwilio.ACCOUNT_SID,
            "Body=%F0%9F%98%80&Body=twice&From=+4915112345678&=&&&MessageSid=SM" + "b".repeat(32) + "&NumMedia=99&AccountSid=" + FakeTwilio.ACCOUNT_SID);

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE);

    @Test
    void theParser_throwsOnlyItsOwnError_andEveryMessageItMakesIsWellFormed() {
        Fuzzer.of("sms webhook form", CORPUS, 5_000).run(input -> {
            TwilioForm form = TwilioForm.parse(input.getBytes(StandardCharsets.UTF_8));
            assertThat(form.signedSuffix()).isNotNull();
            SmsWebhook.Read read = SmsWebhook.read(form, FakeTwilio.ACCOUNT_SID, url -> url.contains("api.twilio.com/")
                    ? Optional.of("MM" + "0".repeat(31) + "1/ME" + "0".repeat(31) + "2") : Optional.empty(), Instant.now());
            assertThat(read.inbound() == null).isEqualTo(read.skipped() != null);
            if (read.inbound() != null) {
                wellFormed(read.inbound().event());
            }
        }, t -> t instanceof TwilioForm.Malformed);
    }

    @Test
    void theRoute_answersUnsignedGarbage403OrBadForms400_signedForms200_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("sms webhook wire", CORPUS, 80).run(input -> {
            String body = new String(input.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8); // as it goes over the wire
            int unsigned = twilio.postRaw(body, "AAAAAAAAAAAAAAAAAAAAAAAAAAA=").statusCode();
            assertThat(unsigned).as("a wrong signature, or a body that is not a form").isIn(400, 403, 413);
            Map<String, List<String>> decoded;
            try {
                decoded = FakeTwilio.decode(body);
            } catch (IllegalArgumentException notAForm) {
                return;
            }
            if (decoded.values().stream().allMatch(v -> v.size() == 1)) {
                Map<String, String> single = new java.util.LinkedHashMap<>();
                decoded.forEach((k, v) -> single.put(k, v.getFirst()));
                int signed = twilio.postRaw(body, FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, twilio.webhookUrl(), single)).statusCode();
                assertThat(signed).as("signed by Twilio's rule: read, or refused as not a form (the fake's decoder is laxer)").isIn(200, 400, 413);
            }
        }, t -> false);

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(59), "still there?"));
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).stream().anyMatch(s -> "echo: still there?".equals(s.body())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a MessageSid to dedupe by").matches("(SM|MM)[0-9a-fA-F]{32}");
        assertThat(e.source().chatId()).as("a phone number").matches("\\+[1-9][0-9]{5,14}");
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.media().size()).isLessThanOrEqualTo(SmsWebhook.MAX_MEDIA);
    }
}
