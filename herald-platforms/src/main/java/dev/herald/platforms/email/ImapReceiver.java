package dev.herald.platforms.email;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.SessionSource;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Flags;
import jakarta.mail.Folder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.UIDFolder;
import jakarta.mail.search.FlagTerm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.eclipse.angus.mail.imap.IMAPFolder;
import org.eclipse.angus.mail.imap.IMAPStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbound side of the email platform: one IMAP connection that reads new mail in UID order, hands each to the
 * gateway and waits for more with IDLE (or, on a server without IDLE, by checking every {@code poll_seconds}).
 *
 * <p>Durability: the cursor ({@code UIDVALIDITY:UID}, {@link EmailState}) moves past a mail only after the gateway
 * took it (any answer but a rejection), and {@code \Seen} is set at the same point; reading uses {@code BODY.PEEK}. A
 * crash in between means the mail is read again after the restart and dropped by the store as a duplicate of its
 * Message-ID, so it is answered once. A rejection (the gateway stopping, the store unable to write) stops the batch
 * where it is; the same mail is offered again after a pause. Mail that arrived while Herald was down is above the
 * cursor and is read at the next connection. The first connection ever starts at the folder's end: mail already there
 * is left alone. A changed UIDVALIDITY (the folder was recreated) makes the UIDs meaningless: the unseen mail of the
 * folder is read instead, and Message-ID dedupe keeps anything from being answered twice.
 *
 * <p>Reconnection: any failure of the connection (the server gone, a timeout) closes it and connects again after the
 * {@link Backoff} delay; the cursor makes this lose and repeat nothing. An IDLE is ended every {@code idleRefresh} by a
 * NOOP (servers end an IDLE after 30 minutes; the NOOP also proves the connection alive).
 *
 * <p>One writer: only the receiver's thread reads mail and moves the cursor.
 */
final class ImapReceiver {
    private static final Logger log = LoggerFactory.getLogger(ImapReceiver.class);

    /** How the first connection went: start() waits for it. */
    enum First {
        CONNECTED,
        REJECTED,
        FAILING
    }

    private final Platform platform;
    private final EmailSettings settings;
    private final EmailSettings.Timing timing;
    private final Session session;
    private final EmailState state;
    private final InboundSink sink;
    private final Clock clock;
    private final Backoff backoff;
    private final CompletableFuture<First> first = new CompletableFuture<>();
    private final Object pause = new Object();
    private volatile boolean stopped;
    private volatile IMAPStore store;
    private volatile IMAPFolder folder;
    private Thread thread;
    /** A mail whose hand-over throws (not a rejection) again and again is skipped after this many tries, not retried forever. */
    private static final int MAX_FAILURES = 5;
    private long failingUid = -1;
    private int failures;

    ImapReceiver(Platform platform, EmailSettings settings, EmailSettings.Timing timing, Session session, EmailState state, InboundSink sink,
            Clock clock) {
        this.platform = platform;
        this.settings = settings;
        this.timing = timing;
        this.session = session;
        this.state = state;
        this.sink = sink;
        this.clock = clock;
        this.backoff = timing.backoff();
    }

    CompletableFuture<First> start() {
        // a platform thread: Jakarta Mail synchronizes around its socket reads
        thread = Thread.ofPlatform().name("email-imap").daemon().start(this::run);
        return first;
    }

    void stop() {
        stopped = true;
        synchronized (pause) {
            pause.notifyAll();
        }
        disconnect();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(timing.connectTimeout().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (!stopped) {
            try {
                connect();
                backoff.reset();
                first.complete(First.CONNECTED);
                serve();
            } catch (AuthenticationFailedException e) {
                if (!first.isDone()) {
                    first.complete(First.REJECTED);
                    disconnect();
                    return;
                }
                failed("the IMAP server refused the login of " + settings.imapUser() + " (" + Screening.clip(String.valueOf(e.getMessage()))
                        + ")");
            } catch (MessagingException | IOException | RuntimeException e) {
                if (stopped) {
                    break;
                }
                failed(describe(e));
            } finally {
                disconnect();
            }
            if (!stopped) {
                Duration wait = backoff.next();
                log.info("{} - reconnecting to IMAP {}:{} in {} ms (attempt {})", platform, settings.imap().host(),
                        settings.imap().effectivePort(), wait.toMillis(), backoff.attempts());
                sleep(wait);
            }
        }
        first.complete(First.FAILING);
    }

    private void failed(String problem) {
        first.complete(First.FAILING);
        log.warn("{} - IMAP {}:{}: {}", platform, settings.imap().host(), settings.imap().effectivePort(), problem);
        sink.connectionChanged(platform, ConnectionState.BACKING_OFF, problem);
    }

    private void connect() throws MessagingException {
        IMAPStore s = (IMAPStore) session.getStore(MailSessions.imapProtocol(settings));
        store = s;
        s.connect(settings.imap().host(), settings.imap().effectivePort(), settings.imapUser(), settings.imapPassword());
        IMAPFolder f = (IMAPFolder) s.getFolder(settings.imap().folder());
        f.open(Folder.READ_WRITE);
        folder = f;
        if (state.cursor().isEmpty()) {
            begin(f);
        }
        boolean idle = s.hasCapability("IDLE");
        sink.connectionChanged(platform, ConnectionState.CONNECTED, settings.imapUser() + " on " + settings.imap().host() + ", folder "
                + f.getFullName() + (idle ? ", IDLE" : ", polling every " + settings.pollSeconds() + " s"));
    }

    /** Reads and waits until stopped; throws when the connection fails. */
    private void serve() throws MessagingException, IOException {
        IMAPFolder f = folder;
        boolean idle = store.hasCapability("IDLE");
        Thread refresher = idle ? Thread.ofVirtual().name("email-idle-refresh").start(() -> refreshIdle(f)) : null;
        try {
            while (!stopped) {
                int known = f.getMessageCount();
                if (!readNew(f)) {
                    sleep(timing.reconnectInitial().multipliedBy(2)); // the gateway refused for now: offer the mail again soon
                    continue;
                }
                if (stopped || f.getMessageCount() != known) {
                    continue; // mail arrived while reading: read again before waiting
                }
                if (idle) {
                    f.idle(true);
                } else {
                    sleep(Duration.ofSeconds(settings.pollSeconds()));
                }
                if (!f.isOpen()) {
                    throw new MessagingException("the folder was closed by the server");
                }
            }
        } finally {
            if (refresher != null) {
                refresher.interrupt();
            }
        }
    }

    /** Ends the IDLE every {@code idleRefresh} with a NOOP, which also shows a dead connection (it times out). */
    private void refreshIdle(IMAPFolder f) {
        while (!stopped && folder == f) {
            try {
                Thread.sleep(timing.idleRefresh());
                f.doCommand(p -> {
                    p.simpleCommand("NOOP", null);
                    return null;
                });
            } catch (InterruptedException e) {
                return;
            } catch (MessagingException | RuntimeException e) {
                return; // the reading thread sees the same failure and reconnects
            }
        }
    }

    /** Hands every mail above the cursor to the gateway; false when the gateway refused one for now (it stays unread). */
    private boolean readNew(IMAPFolder f) throws MessagingException, IOException {
        long uidValidity = f.getUIDValidity();
        Optional<EmailState.Cursor> cursor = state.cursor();
        List<Message> batch;
        if (cursor.isEmpty()) {
            begin(f);
            return true;
        }
        long after;
        long top = -1;
        if (cursor.get().uidValidity() != uidValidity) {
            log.warn("{} - the UIDVALIDITY of {} changed ({} -> {}): the folder was recreated; reading its unseen mail (a Message-ID seen "
                    + "before is not answered again)", platform, f.getFullName(), cursor.get().uidValidity(), uidValidity);
            top = lastUid(f);
            batch = new ArrayList<>(Arrays.asList(f.search(new FlagTerm(new Flags(Flags.Flag.SEEN), false))));
            after = 0;
        } else {
            after = cursor.get().lastUid();
            batch = new ArrayList<>(Arrays.asList(f.getMessagesByUID(after + 1, UIDFolder.MAXUID)));
        }
        List<long[]> uids = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            if (m != null) {
                long uid = f.getUID(m);
                if (uid > after) {
                    uids.add(new long[] {uid, i});
                }
            }
        }
        uids.sort(Comparator.comparingLong(u -> u[0]));
        for (long[] u : uids) {
            if (stopped) {
                return true;
            }
            if (!handle(batch.get((int) u[1]), uidValidity, u[0])) {
                return false;
            }
        }
        if (top >= 0 && !stopped) {
            long handled = uids.isEmpty() ? 0 : uids.getLast()[0];
            state.advance(new EmailState.Cursor(uidValidity, Math.max(top, handled))); // the new UIDVALIDITY, once
        }
        return true;
    }

    /** The first connection ever: the cursor starts at the folder's end, before start() returns. */
    private void begin(IMAPFolder f) throws MessagingException {
        long last = lastUid(f);
        state.advance(new EmailState.Cursor(f.getUIDValidity(), last));
        log.info("{} - first connection to {}: mail already in {} (up to UID {}) is left alone; new mail is answered", platform,
                settings.imap().host(), f.getFullName(), last);
    }

    private static long lastUid(IMAPFolder f) throws MessagingException {
        long next = f.getUIDNext();
        if (next > 0) {
            return next - 1;
        }
        int count = f.getMessageCount();
        return count == 0 ? 0 : f.getUID(f.getMessage(count));
    }

    /** One mail: read, screened, handed over; true when the cursor may move past it. */
    private boolean handle(Message m, long uidValidity, long uid) throws MessagingException, IOException {
        EmailState.Cursor next = new EmailState.Cursor(uidValidity, uid);
        try {
            long size = m.getSize();
            if (size > timing.maxMessageBytes()) {
                log.warn("{} - mail UID {} skipped: it is {}, over the limit of {}; it stays unread in the folder", platform, uid,
                        MailReader.size(size), MailReader.size(timing.maxMessageBytes()));
                state.advance(next);
                return true;
            }
            MailReader.Read read = MailReader.read(raw(m), settings.address(), settings.requireAuthenticationResults());
            if (read instanceof MailReader.Skip skip) {
                log.info("{} - mail UID {}{} not answered: {}; it stays unread in the folder", platform, uid,
                        skip.from() == null ? "" : " from " + skip.from(), skip.reason());
                state.advance(next);
                return true;
            }
            MailReader.Mail mail = (MailReader.Mail) read;
            if (settings.mayAnswer(mail.from())) {
                // before the hand-over: the reply (or a pairing prompt, sent inside it) needs the thread's subject and ids;
                // not for a sender who can only be ignored, so unwanted mail leaves no row behind
                state.thread(mail.threadId(), new EmailState.Thread(mail.subject(), mail.references()));
            }
            Admission admission = sink.accept(event(mail, uidValidity, uid));
            if (admission == Admission.REJECTED_STOPPING || admission == Admission.REJECTED_UNAVAILABLE) {
                log.info("{} - mail UID {} from {} not taken ({}); it stays unread and is offered again", platform, uid, mail.from(), admission);
                return false;
            }
            m.setFlag(Flags.Flag.SEEN, true);
            state.advance(next);
            return true;
        } catch (jakarta.mail.MessageRemovedException e) {
            log.info("{} - mail UID {} was deleted from the folder before it was read; skipped", platform, uid);
            state.advance(next);
            return true;
        } catch (RuntimeException e) {
            failures = uid == failingUid ? failures + 1 : 1;
            failingUid = uid;
            if (failures >= MAX_FAILURES) {
                log.error("{} - mail UID {} failed {} times in a row ({}); skipped so the mail after it is read", platform, uid, failures,
                        e.toString());
                state.advance(next);
                return true;
            }
            log.warn("{} - mail UID {} could not be stored ({}); it stays unread and is offered again", platform, uid, e.toString());
            return false;
        }
    }

    private MessageEvent event(MailReader.Mail mail, long uidValidity, long uid) {
        SessionSource source = new SessionSource(platform, mail.from(), ChatType.DM, mail.from(), mail.fromName(), mail.threadId(),
                mail.subject().isEmpty() ? null : mail.subject());
        List<MessageEvent.MediaRef> media = mail.attachments().stream()
                .map(a -> new MessageEvent.MediaRef("attachment", uidValidity + ":" + uid + ":" + a.index(), a.mimeType(), a.name(), a.size()))
                .toList();
        return new MessageEvent(EventIds.next(), source, mail.text(), mail.messageId(), null, media, MessageEvent.Origin.USER,
                clock.instant());
    }

    /** The whole mail as the server holds it (read with BODY.PEEK: not marked seen). */
    static byte[] raw(Message m) throws MessagingException, IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(1024, Math.min(m.getSize(), 1 << 20)));
        m.writeTo(out);
        return out.toByteArray();
    }

    private void disconnect() {
        IMAPFolder f = folder;
        IMAPStore s = store;
        folder = null;
        store = null;
        try {
            if (f != null && f.isOpen()) {
                f.close(false);
            }
        } catch (MessagingException | RuntimeException e) {
            // the connection is gone already
        }
        try {
            if (s != null) {
                s.close();
            }
        } catch (MessagingException | RuntimeException e) {
            // the connection is gone already
        }
    }

    private void sleep(Duration d) {
        synchronized (pause) {
            if (!stopped) {
                try {
                    pause.wait(Math.max(1, d.toMillis()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = true;
                }
            }
        }
    }

    private String describe(Exception e) {
        StringBuilder s = new StringBuilder(e.getClass().getSimpleName());
        if (e.getMessage() != null) {
            s.append(": ").append(Screening.clip(e.getMessage()));
        }
        Throwable cause = e.getCause();
        if (cause != null && cause != e) {
            s.append(" (").append(cause.getClass().getSimpleName());
            if (cause.getMessage() != null) {
                s.append(": ").append(Screening.clip(cause.getMessage()));
            }
            s.append(')');
        }
        return s.toString();
    }
}
