package dev.herald.platforms.sms;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Behind a proxy Twilio signs the public URL it calls, not the one Herald is reached at: with {@code public_url} the
 * signature is checked over the public base, its path prefix, and the route's path; a signature over the local URL is
 * then refused. Twilio's libraries accept the default port written or left out; so does Herald.
 */
class SmsPublicUrlTest {
    static final String ALICE = SmsWebhookTest.ALICE;
    static final String PUBLIC = "https://herald.example.com/sms-gateway";

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE);

    @Test
    void withPublicUrl_theSignatureIsOverThePublicUrl_andOneOverTheLocalUrlIsRefused() {
        twilio.settings = twilio.settings.withPublicUrl(PUBLIC + "/");
        herald.start();
        Map<String, String> form = FakeTwilio.sms(ALICE, FakeTwilio.sid(10), "through the proxy");
        String overLocal = FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, twilio.webhookUrl(), form);
        String overPublic = FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, PUBLIC + "/platforms/sms/webhook", form);
        String overPublicWithPort = FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, "https://herald.example.com:443/sms-gateway/platforms/sms/webhook", form);
        String otherPrefix = FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, "https://herald.example.com/platforms/sms/webhook", form);

        assertThat(twilio.post(form, overLocal).statusCode()).isEqualTo(403);
        assertThat(twilio.post(form, otherPrefix).statusCode()).isEqualTo(403);
        assertThat(herald.turns()).isEmpty();
        assertThat(twilio.post(form, overPublic).statusCode()).isEqualTo(200);
        assertThat(twilio.post(form, overPublicWithPort).statusCode()).as("the same call, signed with :443").isEqualTo(200);

        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: through the proxy");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void withoutPublicUrl_theSignatureIsOverTheUrlAsRequested_andOneOverAPublicUrlIsRefused() {
        herald.start();
        Map<String, String> form = FakeTwilio.sms(ALICE, FakeTwilio.sid(11), "direct");

        assertThat(twilio.post(form, FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, PUBLIC + "/platforms/sms/webhook", form)).statusCode()).isEqualTo(403);
        assertThat(twilio.text(form).statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
    }

    @Test
    void theSignedUrl_andItsPortVariants() {
        assertThat(TwilioSignature.signedUrl("http://127.0.0.1:8642/platforms/sms/webhook?x=1", "https://h.example.com/p"))
                .isEqualTo("https://h.example.com/p/platforms/sms/webhook?x=1");
        assertThat(TwilioSignature.signedUrl("http://127.0.0.1:8642/platforms/sms/webhook", null)).isEqualTo("http://127.0.0.1:8642/platforms/sms/webhook");
        assertThat(TwilioSignature.variants("https://h.example.com/a?b=c")).containsExactly("https://h.example.com/a?b=c", "https://h.example.com:443/a?b=c");
        assertThat(TwilioSignature.variants("https://h.example.com:443/a")).containsExactly("https://h.example.com:443/a", "https://h.example.com/a");
        assertThat(TwilioSignature.variants("http://127.0.0.1:8642/a")).containsExactly("http://127.0.0.1:8642/a");
    }
}
