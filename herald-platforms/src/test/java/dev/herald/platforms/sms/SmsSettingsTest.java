package dev.herald.platforms.sms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code platforms.sms}'s own rules (what an operator sees for a wrong SID, number or user), the masked printout, and
 * the credentials: rejected ones stop the start naming the keys, never the secret; an API key replaces the auth token
 * on API calls.
 */
class SmsSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.sms", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    final FakeTwilio twilio = new FakeTwilio();

    @AfterEach
    void close() {
        twilio.close();
    }

    private static SmsSettings of(String accountSid, String from) {
        return SmsSettings.of(SmsSettings.DEFAULT_API_BASE, accountSid, "s3cr3t-auth-value", from);
    }

    @Test
    void sids_numbers_andUsers_areChecked_withTheKeyNamed() {
        assertThatCode(() -> of(FakeTwilio.ACCOUNT_SID, "+1 (501) 712-2661").validate(CHECK)).doesNotThrowAnyException();
        assertThat(of(FakeTwilio.ACCOUNT_SID, "+1 (501) 712-2661").from()).isEqualTo("+15017122661");
        assertThatThrownBy(() -> of("AC123", "+15017122661").validate(CHECK)).hasMessageContaining("platforms.sms.account_sid")
                .hasMessageContaining("AC and 32 hex digits");
        assertThatThrownBy(() -> of(FakeTwilio.ACCOUNT_SID, "015017122661").validate(CHECK)).hasMessageContaining("platforms.sms.from must be a phone number in E.164 form");
        assertThatThrownBy(() -> of(FakeTwilio.ACCOUNT_SID, "").validate(CHECK)).hasMessageContaining("platforms.sms.from is required");
        SmsSettings d = of(FakeTwilio.ACCOUNT_SID, "+15017122661");
        SmsSettings users = new SmsSettings(true, d.accountSid(), d.authToken(), "", d.apiKeySecret(), d.from(), "", "", null, null,
                List.of("+49 151 1234 5678", "4915112345678"), false, List.of(), d.homeChannel(), d.unauthorizedDm());
        assertThat(users.allowedUsers()).first().isEqualTo("+4915112345678");
        assertThatThrownBy(() -> users.validate(CHECK)).hasMessageContaining("platforms.sms.allowed_users must be phone numbers in E.164 form")
                .hasMessageContaining("\"4915112345678\"");
        assertThatThrownBy(() -> d.withPublicUrl("herald.example.com").validate(CHECK)).hasMessageContaining("platforms.sms.public_url");
        assertThatThrownBy(() -> d.withApiKey("SK1", "x").validate(CHECK)).hasMessageContaining("platforms.sms.api_key_sid");
        assertThatCode(() -> SmsSettings.defaults().validate(CHECK)).as("a disabled section needs nothing").doesNotThrowAnyException();
    }

    @Test
    void thePrintout_masksBothSecrets() {
        String s = of(FakeTwilio.ACCOUNT_SID, "+15017122661").withApiKey(FakeTwilio.KEY_SID, FakeTwilio.KEY_SECRET).toString();
        assertThat(s).contains("auth_token=****", "api_key_secret=****", FakeTwilio.KEY_SID).doesNotContain("s3cr3t-auth-value", FakeTwilio.KEY_SECRET);
    }

    @Test
    void rejectedCredentials_stopTheStart_namingTheKeys_notTheSecret() {
        SmsSettings wrong = SmsSettings.of(twilio.apiBase(), FakeTwilio.ACCOUNT_SID, "not-the-token-31337", FakeTwilio.NUMBER);
        SmsAdapter adapter = new SmsAdapter(wrong, FakeTwilio.timing(), Clock.systemUTC(), new MemoryState());

        assertThatThrownBy(() -> adapter.start(new NullSink())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("error 20003").hasMessageContaining("platforms.sms.account_sid and auth_token")
                .hasMessageNotContaining("not-the-token-31337");
    }

    @Test
    void withAnApiKey_theApiCallsAuthenticateWithTheKey() {
        SmsSettings keyed = twilio.settings.withApiKey(FakeTwilio.KEY_SID, FakeTwilio.KEY_SECRET);
        SmsAdapter adapter = new SmsAdapter(keyed, FakeTwilio.timing(), Clock.systemUTC(), new MemoryState());
        adapter.start(new NullSink());

        assertThat(adapter.send(OutboundMessage.notice(ChatTarget.of("+4915112345678"), "hello")).success()).isTrue();
        assertThat(twilio.authUsers).containsOnly(FakeTwilio.KEY_SID).hasSize(2);
        assertThat(twilio.sentTo("+4915112345678")).singleElement().satisfies(m -> assertThat(m.body()).isEqualTo("hello"));
    }

    static final class MemoryState implements PlatformState {
        private final Map<String, String> values = new ConcurrentHashMap<>();

        @Override
        public Optional<String> get(Platform platform, String name) {
            return Optional.ofNullable(values.get(name));
        }

        @Override
        public Map<String, String> all(Platform platform) {
            return Map.copyOf(values);
        }

        @Override
        public void put(Platform platform, Map<String, String> v) {
            values.putAll(v);
        }
    }

    static final class NullSink implements InboundSink {
        @Override
        public Admission accept(MessageEvent event) {
            return Admission.REJECTED_STOPPING;
        }

        @Override
        public void connectionChanged(Platform platform, ConnectionState state, String detail) {
        }
    }
}
