package dev.herald.platforms.email;

import jakarta.mail.Session;
import java.util.Properties;

/**
 * The Jakarta Mail sessions of one email platform: IMAP and SMTP with the configured protection and the adapter's
 * timeouts. {@code tls} is TLS from the first byte ({@code imaps}, {@code smtps}), {@code starttls} requires the
 * upgrade (a server that does not offer it is refused, never fallen back from), {@code none} is plain (loopback only,
 * checked by the settings). Certificates are checked against the host name. IMAP reads with {@code BODY.PEEK}, so
 * reading a mail never marks it {@code \Seen}: Herald sets that itself once the mail is stored.
 */
final class MailSessions {
    private MailSessions() {
    }

    static String imapProtocol(EmailSettings s) {
        return s.imap().security() == EmailSettings.Security.TLS ? "imaps" : "imap";
    }

    static String smtpProtocol(EmailSettings s) {
        return s.smtp().security() == EmailSettings.Security.TLS ? "smtps" : "smtp";
    }

    static Session imap(EmailSettings s, EmailSettings.Timing t) {
        Properties p = new Properties();
        String proto = imapProtocol(s);
        String pre = "mail." + proto + ".";
        p.setProperty("mail.store.protocol", proto);
        p.setProperty(pre + "host", s.imap().host());
        p.setProperty(pre + "port", Integer.toString(s.imap().effectivePort()));
        p.setProperty(pre + "connectiontimeout", Long.toString(t.connectTimeout().toMillis()));
        // a read must outlive an IDLE between two refreshes: a silent connection is noticed within twice idleRefresh
        p.setProperty(pre + "timeout", Long.toString(Math.max(t.connectTimeout().toMillis(), t.idleRefresh().toMillis() * 2)));
        p.setProperty(pre + "writetimeout", Long.toString(t.connectTimeout().toMillis()));
        p.setProperty(pre + "peek", "true");
        p.setProperty(pre + "partialfetch", "false");
        p.setProperty(pre + "connectionpoolsize", "1");
        security(p, pre, s.imap().security());
        lenientParsing(p);
        return Session.getInstance(p);
    }

    static Session smtp(EmailSettings s, EmailSettings.Timing t) {
        Properties p = new Properties();
        String proto = smtpProtocol(s);
        String pre = "mail." + proto + ".";
        p.setProperty("mail.transport.protocol", proto);
        p.setProperty(pre + "host", s.smtp().host());
        p.setProperty(pre + "port", Integer.toString(s.smtp().effectivePort()));
        p.setProperty(pre + "connectiontimeout", Long.toString(t.connectTimeout().toMillis()));
        p.setProperty(pre + "timeout", Long.toString(t.connectTimeout().toMillis() * 3));
        p.setProperty(pre + "writetimeout", Long.toString(t.connectTimeout().toMillis() * 3));
        p.setProperty(pre + "auth", Boolean.toString(s.smtpLogin() != null));
        String domain = Addresses.domain(s.address());
        if (!domain.isEmpty()) {
            p.setProperty(pre + "localhost", domain);
        }
        p.setProperty("mail.from", s.address());
        security(p, pre, s.smtp().security());
        lenientParsing(p);
        return Session.getInstance(p);
    }

    private static void security(Properties p, String pre, EmailSettings.Security security) {
        switch (security) {
            case TLS -> {
                p.setProperty(pre + "ssl.enable", "true");
                p.setProperty(pre + "ssl.checkserveridentity", "true");
            }
            case STARTTLS -> {
                p.setProperty(pre + "starttls.enable", "true");
                p.setProperty(pre + "starttls.required", "true");
                p.setProperty(pre + "ssl.checkserveridentity", "true");
            }
            case NONE -> {
                // loopback only (EmailSettings.validate)
            }
        }
    }

    private static void lenientParsing(Properties p) {
        p.setProperty("mail.mime.address.strict", "false");
        p.setProperty("mail.mime.multipart.ignoremissingendboundary", "true");
        p.setProperty("mail.mime.multipart.allowempty", "true");
    }
}
