package dev.herald.platforms.email;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import jakarta.mail.Folder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.angus.mail.imap.IMAPFolder;
import org.eclipse.angus.mail.imap.IMAPStore;

/**
 * Email: a mailbox read over IMAP ({@link ImapReceiver}: IDLE or polling, a durable UID cursor) and answered over SMTP
 * ({@link Composer}, {@link SmtpSender}). Every sender is a direct chat (its address is the chat and the user), and every
 * thread of mail is a session (the root of its References). Replies thread under the mail they answer; files the agent
 * sends are attachments; attachments received are fetched again from the server by UID when the agent wants them.
 *
 * <p>Start waits for the first IMAP connection: a refused login fails start naming the keys, never the password; a
 * network failure lets start return with the platform backing off while the receiver keeps trying.
 */
public final class EmailAdapter implements PlatformAdapter, MediaFetcher {
    public static final Platform PLATFORM = Platform.of("email");
    /** One reply is one mail: the limit only guards against a runaway answer. */
    public static final int MAX_TEXT = 100_000;
    /** What most providers accept in one mail (25 MB), less room for the base64 encoding. */
    static final long MAX_FILE_BYTES = 18L * 1024 * 1024;

    private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, true, false, MAX_TEXT)
            .with(Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);

    private final EmailSettings settings;
    private final EmailSettings.Timing timing;
    private final Clock clock;
    private final EmailState state;
    private final Session imapSession;
    private final Composer composer;
    private final SmtpSender smtp;
    private volatile ImapReceiver receiver;

    public EmailAdapter(EmailSettings settings, EmailSettings.Timing timing, Clock clock, PlatformState store) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.state = new EmailState(PLATFORM, store);
        this.imapSession = MailSessions.imap(settings, timing);
        Session smtpSession = MailSessions.smtp(settings, timing);
        this.composer = new Composer(smtpSession, settings.address());
        this.smtp = new SmtpSender(settings, smtpSession);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void start(InboundSink sink) {
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "IMAP " + settings.imap().host() + ":" + settings.imap().effectivePort());
        ImapReceiver r = new ImapReceiver(PLATFORM, settings, timing, imapSession, state, sink, clock);
        receiver = r;
        ImapReceiver.First first;
        try {
            first = r.start().get(timing.connectTimeout().toMillis() * 2 + 5_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            first = ImapReceiver.First.FAILING;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            first = ImapReceiver.First.FAILING;
        }
        if (first == ImapReceiver.First.REJECTED) {
            close();
            throw new IllegalStateException("email - the IMAP server " + settings.imap().host() + " refused the login of "
                    + settings.imapUser() + "; check platforms.email.imap.username and platforms.email.imap.password");
        }
    }

    @Override
    public SendResult send(OutboundMessage m) {
        byte[] file = null;
        if (m.file() != null) {
            try {
                file = m.file().read(MAX_FILE_BYTES);
            } catch (IOException e) {
                return SendResult.failed("email - " + e.getMessage(), false);
            }
        }
        MimeMessage mail;
        try {
            Optional<EmailState.Thread> thread = state.thread(m.target().threadId());
            mail = composer.compose(m, thread.orElse(null), file, clock.instant());
        } catch (MessagingException | RuntimeException e) {
            return SendResult.failed("email - the reply to " + m.target().chatId() + " could not be composed (" + e.getMessage() + ")", false);
        }
        return smtp.send(mail, composer.messageId(m));
    }

    /** An attachment by its {@code <uidvalidity>:<uid>:<index>}: the mail is read again from the folder, read-only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String[] p = ref.ref().split(":");
        long uidValidity;
        long uid;
        int index;
        try {
            uidValidity = Long.parseLong(p[0]);
            uid = Long.parseLong(p[1]);
            index = Integer.parseInt(p[2]);
        } catch (RuntimeException e) {
            throw new IOException("email - not an attachment reference of this platform");
        }
        IMAPStore s = null;
        try {
            s = (IMAPStore) imapSession.getStore(MailSessions.imapProtocol(settings));
            s.connect(settings.imap().host(), settings.imap().effectivePort(), settings.imapUser(), settings.imapPassword());
            IMAPFolder f = (IMAPFolder) s.getFolder(settings.imap().folder());
            f.open(Folder.READ_ONLY);
            if (f.getUIDValidity() != uidValidity) {
                throw new IOException("email - the folder was recreated since the mail came (UIDVALIDITY changed); the attachment is gone");
            }
            Message m = f.getMessageByUID(uid);
            if (m == null) {
                throw new IOException("email - the mail UID " + uid + " holding the attachment is no longer in the folder");
            }
            if (m.getSize() > timing.maxMessageBytes()) {
                throw new IOException("email - the mail holding the attachment is over the limit of " + timing.maxMessageBytes() + " bytes");
            }
            byte[] bytes = MailReader.attachment(ImapReceiver.raw(m), index, maxBytes)
                    .orElseThrow(() -> new IOException("email - mail UID " + uid + " has no attachment " + index));
            return new Fetched(bytes, ref.mimeType());
        } catch (MessagingException e) {
            throw new IOException("email - the attachment could not be fetched (" + Screening.clip(String.valueOf(e.getMessage())) + ")", e);
        } finally {
            if (s != null) {
                try {
                    s.close();
                } catch (MessagingException e) {
                    // closed anyway
                }
            }
        }
    }

    /** Stops reading mail; sending needs no IMAP connection, so replies still go out. */
    @Override
    public void stopReceiving() {
        ImapReceiver r = receiver;
        receiver = null;
        if (r != null) {
            r.stop();
        }
    }

    @Override
    public void close() {
        stopReceiving();
    }
}
