package dev.herald.platforms.email;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.core.config.Secret;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * What the email tests share: one Dovecot and one SMTP sink per test class, the settings pointing at them (plain IMAP
 * and SMTP on loopback), short timings, raw mails as a mail client writes them, and the receiver's log lines.
 */
final class EmailRig implements AutoCloseable {
    static final String BOT = "herald@herald.test";
    static final String ALICE = "alice@example.org";

    final Dovecot dovecot;
    final SmtpSink smtp;
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    UnaryOperator<EmailSettings> tweak = s -> s;

    EmailRig() throws Exception {
        this(true);
    }

    /** A rig whose Dovecot offers IMAP IDLE, or not. */
    EmailRig(boolean idle) throws Exception {
        dovecot = Dovecot.start(idle);
        smtp = new SmtpSink();
        logs.start();
        ((Logger) LoggerFactory.getLogger(ImapReceiver.class)).addAppender(logs);
    }

    EmailSettings settings() {
        EmailSettings.Imap imap = new EmailSettings.Imap("127.0.0.1", dovecot.port(), EmailSettings.Security.NONE, Dovecot.USER,
                Secret.of(Dovecot.PASSWORD), "INBOX");
        EmailSettings.Smtp out = new EmailSettings.Smtp("127.0.0.1", smtp.port(), EmailSettings.Security.NONE, null, Secret.NONE);
        return tweak.apply(EmailSettings.of(BOT, imap, out).withAllowedUsers(List.of(ALICE))); // as the fixture's allowlist
    }

    /** Quick reconnection, IDLE refreshed every 2 s, a short connect timeout. */
    static EmailSettings.Timing timing() {
        return new EmailSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(50), Duration.ofMillis(400),
                25L * 1024 * 1024);
    }

    /** A gateway fixture running the real adapter against this rig, on the fixture's own store. */
    GatewayFixture herald(String... allowed) {
        GatewayFixture[] self = new GatewayFixture[1];
        self[0] = new GatewayFixture(clock -> new EmailAdapter(settings(), timing(), clock, self[0].storage.platformState())).allow(allowed);
        return self[0];
    }

    /** The receiver's log lines so far. */
    List<String> logLines() {
        return logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Override
    public void close() throws Exception {
        ((Logger) LoggerFactory.getLogger(ImapReceiver.class)).detachAppender(logs);
        smtp.close();
        dovecot.close();
    }

    // ---- mails -----------------------------------------------------------------------------------

    static String newId() {
        return UUID.randomUUID() + "@example.org";
    }

    /** A plain-text mail from {@code from} to the bot, with optional threading headers and extra header lines. */
    static String threaded(String from, String subject, String messageId, String inReplyTo, String references, String body, String... headers) {
        StringBuilder m = new StringBuilder();
        m.append("Return-Path: <").append(from).append(">\r\n");
        for (String h : headers) {
            m.append(h).append("\r\n");
        }
        m.append("From: Alice Example <").append(from).append(">\r\n");
        m.append("To: ").append(BOT).append("\r\n");
        m.append("Subject: ").append(subject).append("\r\n");
        m.append("Date: Mon, 7 Dec 2026 10:00:00 +0000\r\n");
        m.append("Message-ID: <").append(messageId).append(">\r\n");
        if (inReplyTo != null) {
            m.append("In-Reply-To: <").append(inReplyTo).append(">\r\n");
        }
        if (references != null) {
            m.append("References: ").append(references).append("\r\n");
        }
        m.append("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n");
        m.append(body.replace("\r\n", "\n").replace("\n", "\r\n")).append("\r\n");
        return m.toString();
    }

    static String mail(String from, String subject, String messageId, String body, String... headers) {
        return threaded(from, subject, messageId, null, null, body, headers);
    }
}
