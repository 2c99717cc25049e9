package dev.herald.platforms.email;

import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import jakarta.activation.DataHandler;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimeUtility;
import jakarta.mail.util.ByteArrayDataSource;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.commonmark.ext.gfm.strikethrough.StrikethroughExtension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * One reply part as a mail: {@code From} the agent's address, {@code To} the chat's address, {@code Subject: Re: ...}
 * (the thread's subject, never "Re: Re:"), {@code In-Reply-To} the answered mail and {@code References} the thread,
 * {@code Auto-Submitted: auto-replied} (RFC 3834: other robots do not answer it, so two of them never loop), and a
 * {@code multipart/alternative} body: the Markdown as text/plain and rendered to text/html (raw HTML in the answer is
 * escaped, unsafe link schemes dropped). A file part is {@code multipart/mixed} with the file after the text.
 *
 * <p>The Message-ID of a part with an idempotency key is derived from the key (a hash), so every attempt to send that
 * part, after a crash too, carries the same Message-ID and a mail client shows a resent copy as the same mail.
 */
final class Composer {
    private static final List<org.commonmark.Extension> EXTENSIONS =
            List.of(TablesExtension.create(), StrikethroughExtension.builder().requireTwoTildes(true).build());
    private static final Parser PARSER = Parser.builder().extensions(EXTENSIONS).build();
    private static final HtmlRenderer HTML = HtmlRenderer.builder().extensions(EXTENSIONS).escapeHtml(true).sanitizeUrls(true).build();
    private static final Pattern REPLY_PREFIX = Pattern.compile("^(re|aw|sv|antw|réf)\\s*(\\[\\d+\\])?\\s*:.*", Pattern.CASE_INSENSITIVE);

    private final Session session;
    private final String from;

    Composer(Session session, String from) {
        this.session = session;
        this.from = from;
    }

    /** The Message-ID (without angle brackets) of the part {@code m}: derived from its idempotency key, else random. */
    String messageId(OutboundMessage m) {
        String local = m.idempotencyKey() == null ? UUID.randomUUID().toString()
                : MailReader.sha256(m.idempotencyKey().getBytes(StandardCharsets.UTF_8)).substring(0, 32);
        String domain = Addresses.domain(from);
        return "herald." + local + "@" + (domain.isEmpty() ? "herald.invalid" : domain);
    }

    /** The mail for {@code m}; {@code thread} is the thread it answers (null when unknown), {@code file} the file's bytes. */
    MimeMessage compose(OutboundMessage m, EmailState.Thread thread, byte[] file, Instant now) throws MessagingException {
        String id = messageId(m);
        MimeMessage mail = new MimeMessage(session) {
            @Override
            protected void updateMessageID() throws MessagingException {
                setHeader("Message-ID", "<" + id + ">");
            }
        };
        mail.setFrom(new InternetAddress(from));
        mail.setRecipient(MimeMessage.RecipientType.TO, new InternetAddress(m.target().chatId()));
        mail.setSubject(subject(thread, m.text()), "UTF-8");
        mail.setSentDate(Date.from(now));
        String replyTo = m.replyToMessageId() != null ? m.replyToMessageId()
                : thread != null && !thread.references().isEmpty() ? thread.references().getLast() : null; // a file part answers too
        if (replyTo != null && !MailReader.ids("<" + replyTo + ">").isEmpty()) {
            mail.setHeader("In-Reply-To", "<" + replyTo + ">");
        }
        List<String> refs = references(thread, replyTo);
        if (!refs.isEmpty()) {
            mail.setHeader("References", MimeUtility.fold(12, String.join(" ", refs.stream().map(r -> "<" + r + ">").toList())));
        }
        mail.setHeader("Auto-Submitted", "auto-replied");
        String text = m.file() != null && m.text().isBlank() ? "(" + m.file().name() + " is attached.)" : m.text();
        MimeMultipart alternative = alternative(text);
        if (m.file() == null) {
            mail.setContent(alternative);
        } else {
            MimeMultipart mixed = new MimeMultipart("mixed");
            MimeBodyPart body = new MimeBodyPart();
            body.setContent(alternative);
            mixed.addBodyPart(body);
            mixed.addBodyPart(attachment(m.file(), file));
            mail.setContent(mixed);
        }
        mail.saveChanges();
        return mail;
    }

    /** {@code Re: <the thread's subject>}; a subject that is a reply already keeps its prefix; without a thread, the text's first line. */
    static String subject(EmailState.Thread thread, String text) {
        String s = thread == null ? "" : thread.subject().strip();
        if (!s.isEmpty()) {
            return REPLY_PREFIX.matcher(s).matches() ? s : "Re: " + s;
        }
        if (thread != null) {
            return "Re: (no subject)";
        }
        String first = text.strip().lines().findFirst().orElse("").replaceAll("[#*_`>\\[\\]]", "").strip();
        return first.isEmpty() ? "Message from Herald" : first.length() > 78 ? first.substring(0, 77) + "…" : first;
    }

    /** The thread's ids, ending with the answered mail's. */
    private static List<String> references(EmailState.Thread thread, String replyTo) {
        java.util.ArrayList<String> refs = new java.util.ArrayList<>(thread == null ? List.of() : thread.references());
        if (replyTo != null && !MailReader.ids("<" + replyTo + ">").isEmpty() && !refs.contains(replyTo)) {
            refs.add(replyTo);
        }
        return refs;
    }

    private static MimeMultipart alternative(String markdown) throws MessagingException {
        MimeMultipart alt = new MimeMultipart("alternative");
        MimeBodyPart plain = new MimeBodyPart();
        plain.setText(markdown, "UTF-8", "plain");
        alt.addBodyPart(plain);
        MimeBodyPart html = new MimeBodyPart();
        html.setText(html(markdown), "UTF-8", "html");
        alt.addBodyPart(html);
        return alt;
    }

    /** The Markdown rendered as a small HTML document. */
    static String html(String markdown) {
        return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n" + HTML.render(PARSER.parse(markdown)) + "</body></html>\n";
    }

    private static MimeBodyPart attachment(OutboundFile f, byte[] bytes) throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setDataHandler(new DataHandler(new ByteArrayDataSource(bytes, f.mimeType())));
        try {
            part.setFileName(MimeUtility.encodeText(f.name(), "UTF-8", null));
        } catch (UnsupportedEncodingException e) {
            part.setFileName(f.name().replaceAll("[^A-Za-z0-9._-]", "_"));
        }
        part.setDisposition(f.isImage() ? MimeBodyPart.INLINE : MimeBodyPart.ATTACHMENT);
        return part;
    }
}
