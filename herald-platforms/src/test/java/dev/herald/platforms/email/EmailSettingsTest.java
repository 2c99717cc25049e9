package dev.herald.platforms.email;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.ConfigException;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import org.junit.jupiter.api.Test;

/**
 * platforms.email's own rules: plain connections only to this machine, the keys an enabled section needs, a quiet
 * default for unknown senders, and passwords that never show.
 */
class EmailSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.email", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    private static EmailSettings with(String imapHost, EmailSettings.Security imapSecurity, String smtpHost, EmailSettings.Security smtpSecurity) {
        return EmailSettings.of("herald@example.org",
                new EmailSettings.Imap(imapHost, 0, imapSecurity, null, Secret.of("imap-pass-123"), null),
                new EmailSettings.Smtp(smtpHost, 0, smtpSecurity, null, Secret.NONE));
    }

    @Test
    void securityNone_isAllowedToLoopbackOnly() {
        assertThatCode(() -> with("127.0.0.1", EmailSettings.Security.NONE, "localhost", EmailSettings.Security.NONE).validate(CHECK))
                .doesNotThrowAnyException();
        assertThatCode(() -> with("::1", EmailSettings.Security.NONE, "imap.example.org", EmailSettings.Security.STARTTLS).validate(CHECK))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> with("imap.example.org", EmailSettings.Security.NONE, "127.0.0.1", EmailSettings.Security.NONE).validate(CHECK))
                .isInstanceOf(ConfigException.class).hasMessageContaining("platforms.email.imap.security none")
                .hasMessageContaining("only to a loopback host");
        assertThatThrownBy(() -> with("127.0.0.1", EmailSettings.Security.TLS, "10.0.0.5", EmailSettings.Security.NONE).validate(CHECK))
                .isInstanceOf(ConfigException.class).hasMessageContaining("platforms.email.smtp.security");
    }

    @Test
    void anEnabledSection_needsAddressHostsAndTheImapPassword_andDefaultsAreQuiet() {
        EmailSettings d = EmailSettings.defaults();
        assertThat(d.imap().security()).isEqualTo(EmailSettings.Security.TLS);
        assertThat(d.imap().effectivePort()).isEqualTo(993);
        assertThat(d.smtp().effectivePort()).isEqualTo(465);
        assertThat(d.unauthorizedDm()).as("no pairing mail to a possibly forged sender").isEqualTo(UnauthorizedDm.IGNORE);
        assertThatCode(() -> d.validate(CHECK)).doesNotThrowAnyException();
        EmailSettings noHost = EmailSettings.of("herald@example.org", EmailSettings.Imap.defaults(), EmailSettings.Smtp.defaults());
        assertThatThrownBy(() -> noHost.validate(CHECK)).hasMessageContaining("platforms.email.imap.host is required");
        EmailSettings noAddress = EmailSettings.of(null, with("h", EmailSettings.Security.TLS, "h", EmailSettings.Security.TLS).imap(),
                EmailSettings.Smtp.defaults());
        assertThatThrownBy(() -> noAddress.validate(CHECK)).hasMessageContaining("platforms.email.address is required");
        EmailSettings badAddress = EmailSettings.of("not an address", d.imap(), d.smtp());
        assertThatThrownBy(() -> badAddress.validate(CHECK)).hasMessageContaining("must be one mail address");
    }

    @Test
    void passwords_neverShow_inThePrintout() {
        EmailSettings s = with("imap.example.org", EmailSettings.Security.TLS, "smtp.example.org", EmailSettings.Security.STARTTLS);
        assertThat(s.toString()).doesNotContain("imap-pass-123").contains("****");
        assertThat(s.imap().toString()).doesNotContain("imap-pass-123");
        assertThat(s.smtpLogin()).as("SMTP logs in with the IMAP credentials when it has none of its own")
                .containsExactly("herald@example.org", "imap-pass-123");
    }
}
