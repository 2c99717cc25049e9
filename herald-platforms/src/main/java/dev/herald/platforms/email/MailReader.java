package dev.herald.platforms.email;

import jakarta.mail.BodyPart;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import jakarta.mail.internet.ParseException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One received mail, read from its raw bytes into what Herald needs: who sent it, its Message-ID, the thread it belongs
 * to, its new text and its attachments; or why it is skipped. Everything in a mail is the sender's to choose, so
 * nothing here throws for a mail's content: a broken header, a MIME tree that does not parse, an unknown charset or a
 * mail without any text part come back as a {@link Skip} naming the problem.
 *
 * <p>The body is the first {@code text/plain} part that is not an attachment, else the first {@code text/html} one
 * turned into text; every other leaf (and a forwarded {@code message/rfc822}) is an attachment, numbered in the order of
 * a depth-first walk, which {@link #attachment} repeats to hand over its bytes. The walk stops at
 * {@value #MAX_DEPTH} levels and {@value #MAX_PARTS} parts; a text part is read up to {@value #MAX_TEXT_BYTES} bytes.
 */
final class MailReader {
    static final int MAX_DEPTH = 8;
    static final int MAX_PARTS = 200;
    static final int MAX_TEXT_BYTES = 512 * 1024;
    /** At most this many ids are kept in the References of a reply (the root and the newest ones). */
    static final int MAX_REFERENCES = 20;
    private static final Pattern ID = Pattern.compile("<([^<>\\s]{1,250})>");
    private static final Session SESSION = session();

    /** What reading a mail gave. */
    sealed interface Read permits Mail, Skip {
    }

    /** A mail that can be answered, if its sender is allowed. */
    record Mail(String messageId, String from, String fromName, String subject, String threadId, List<String> references, String text,
            List<Attachment> attachments) implements Read {
    }

    /** A mail that is not answered, and why (for the log line). */
    record Skip(String from, String reason) implements Read {
    }

    /** An attachment: its place in the walk, the name and type the sender gave, its approximate decoded size. */
    record Attachment(int index, String name, String mimeType, long size) {
    }

    private MailReader() {
    }

    /** A session that parses leniently (no network: it only reads bytes). */
    private static Session session() {
        Properties p = new Properties();
        p.setProperty("mail.mime.address.strict", "false");
        p.setProperty("mail.mime.multipart.ignoremissingendboundary", "true");
        p.setProperty("mail.mime.multipart.allowempty", "true");
        p.setProperty("mail.mime.decodetext.strict", "false");
        p.setProperty("mail.mime.parameters.strict", "false");
        return Session.getInstance(p);
    }

    /** The mail in {@code raw}; {@code ownAddress} is skipped as a sender (Herald's own mail coming back). */
    static Read read(byte[] raw, String ownAddress, boolean requireAuthenticationResults) {
        MimeMessage m;
        String from = null;
        try {
            m = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
            String fromHeader = m.getHeader("From", ",");
            from = Addresses.first(fromHeader).orElse(null);
            if (from == null) {
                return new Skip(null, "it has no usable From address" + (fromHeader == null ? "" : " (" + Screening.clip(fromHeader) + ")"));
            }
            if (from.equalsIgnoreCase(ownAddress)) {
                return new Skip(from, "it comes from Herald's own address");
            }
            Optional<String> automatic = Screening.automatic(m, from);
            if (automatic.isPresent()) {
                return new Skip(from, automatic.get());
            }
            if (requireAuthenticationResults) {
                Optional<String> unauthenticated = Screening.unauthenticated(m, from);
                if (unauthenticated.isPresent()) {
                    return new Skip(from, "the sender is not authenticated: " + unauthenticated.get()
                            + "; require_authentication_results is on");
                }
            }
            String messageId = ids(m.getHeader("Message-ID", " ")).stream().findFirst().orElseGet(() -> synthesisedId(raw));
            List<String> references = new ArrayList<>(ids(m.getHeader("References", " ")));
            List<String> inReplyTo = ids(m.getHeader("In-Reply-To", " "));
            String root = !references.isEmpty() ? references.getFirst() : !inReplyTo.isEmpty() ? inReplyTo.getFirst() : messageId;
            if (references.isEmpty() && !inReplyTo.isEmpty()) {
                references.add(inReplyTo.getFirst());
            }
            references.remove(messageId);
            references.add(messageId);
            Walk walk = new Walk();
            walk.part(m, 0);
            String body = walk.plain != null ? walk.plain : walk.html != null ? Html.text(walk.html) : null;
            if (body == null) {
                return new Skip(from, "it has no text part (" + size(raw.length) + ", " + describe(m) + ")");
            }
            String text = Quotes.strip(body);
            if (text.isBlank() && walk.attachments.isEmpty()) {
                return new Skip(from, "its text is empty");
            }
            return new Mail(messageId, from, Addresses.name(m.getHeader("From", ",")), subject(m), threadId(root), trim(references), text,
                    List.copyOf(walk.attachments));
        } catch (MessagingException | IOException | RuntimeException e) {
            return new Skip(from, "it could not be read as MIME (" + e.getClass().getSimpleName() + ": "
                    + Screening.clip(String.valueOf(e.getMessage())) + ")");
        }
    }

    /** The bytes of attachment {@code index} of the mail in {@code raw}, at most {@code maxBytes}. */
    static Optional<byte[]> attachment(byte[] raw, int index, long maxBytes) throws IOException {
        try {
            MimeMessage m = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
            Walk walk = new Walk();
            walk.keep = index;
            walk.part(m, 0);
            if (walk.kept == null) {
                return Optional.empty();
            }
            try (InputStream in = walk.kept.getInputStream()) {
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (bytes.length > maxBytes) {
                    throw new IOException("email - the attachment is larger than the limit of " + maxBytes + " bytes");
                }
                return Optional.of(bytes);
            }
        } catch (MessagingException e) {
            throw new IOException("email - the mail holding the attachment could not be read (" + e.getMessage() + ")", e);
        }
    }

    /** The subject, decoded, on one line; "" when there is none. */
    static String subject(MimeMessage m) {
        try {
            String s = m.getSubject();
            return s == null ? "" : s.replaceAll("[\\p{Cntrl}]+", " ").strip();
        } catch (MessagingException | RuntimeException e) {
            return "";
        }
    }

    /** The message ids in a header ({@code <id>} tokens), without angle brackets, in order, at most 100. */
    static List<String> ids(String header) {
        List<String> out = new ArrayList<>();
        if (header == null) {
            return out;
        }
        Matcher matcher = ID.matcher(header.length() > 20_000 ? header.substring(0, 20_000) : header);
        while (matcher.find() && out.size() < 100) {
            String id = matcher.group(1);
            if (id.chars().allMatch(c -> c > 0x20 && c < 0x7f) && !out.contains(id)) {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * The thread's id for its session: the root Message-ID when it is short and has no {@code ..} or backslash (which a
     * session key refuses), else a hash of it.
     */
    static String threadId(String root) {
        if (root.length() <= 200 && !root.contains("..") && !root.contains("\\")) {
            return root;
        }
        return "sha-" + sha256(root.getBytes(StandardCharsets.UTF_8)).substring(0, 32);
    }

    /** The References of a reply: the root and the newest ids, at most {@value #MAX_REFERENCES}. */
    private static List<String> trim(List<String> refs) {
        if (refs.size() <= MAX_REFERENCES) {
            return List.copyOf(refs);
        }
        List<String> out = new ArrayList<>();
        out.add(refs.getFirst());
        out.addAll(refs.subList(refs.size() - (MAX_REFERENCES - 1), refs.size()));
        return List.copyOf(out);
    }

    /** An id for a mail without a usable Message-ID: a hash of its bytes, so a redelivery of the same mail has the same. */
    private static String synthesisedId(byte[] raw) {
        return "sha-" + sha256(raw).substring(0, 40) + "@herald.invalid";
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static String describe(MimeMessage m) {
        try {
            String t = m.getContentType();
            return t == null ? "no Content-Type" : Screening.clip(t.split(";")[0]);
        } catch (MessagingException | RuntimeException e) {
            return "unreadable Content-Type";
        }
    }

    static String size(long bytes) {
        return bytes < 1024 * 1024 ? (bytes + 1023) / 1024 + " KB" : String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
    }

    /** One depth-first walk of a MIME tree, collecting the body texts and numbering the attachments. */
    private static final class Walk {
        String plain;
        String html;
        final List<Attachment> attachments = new ArrayList<>();
        int parts;
        int keep = -1;
        Part kept;

        void part(Part p, int depth) throws MessagingException, IOException {
            if (++parts > MAX_PARTS || depth > MAX_DEPTH) {
                return;
            }
            ContentType type = type(p);
            String base = type.getBaseType().toLowerCase(Locale.ROOT);
            if (base.startsWith("multipart/")) {
                Object content = p.getContent();
                if (content instanceof Multipart mp) {
                    int n = Math.min(mp.getCount(), MAX_PARTS);
                    for (int i = 0; i < n; i++) {
                        BodyPart child = mp.getBodyPart(i);
                        part(child, depth + 1);
                    }
                    return;
                }
            }
            String disposition = disposition(p);
            String name = fileName(p);
            boolean inline = !"attachment".equals(disposition) && name == null;
            if (inline && base.equals("text/plain") && plain == null) {
                plain = text(p, type);
                return;
            }
            if (inline && base.equals("text/html") && html == null) {
                html = text(p, type);
                return;
            }
            if (inline && (base.equals("text/plain") || base.equals("text/html")) && !(p instanceof MimeMessage)) {
                return; // the other half of an alternative, a list footer: not a file
            }
            if (p instanceof MimeMessage) {
                return; // a single-part mail whose only part is not text: no body, no attachment
            }
            int index = attachments.size();
            if (index == keep) {
                kept = p;
            }
            long size = p.getSize();
            String encoding = p instanceof jakarta.mail.internet.MimePart mp ? mp.getEncoding() : null;
            if (size > 0 && "base64".equalsIgnoreCase(encoding)) {
                size = size * 3 / 4;
            }
            String fallback = base.equals("message/rfc822") ? "forwarded.eml" : "attachment-" + (index + 1);
            attachments.add(new Attachment(index, name == null ? fallback : name, base, size));
        }

        private static ContentType type(Part p) {
            try {
                String t = p.getContentType();
                return t == null ? new ContentType("text/plain") : new ContentType(t);
            } catch (MessagingException | RuntimeException e) {
                try {
                    return new ContentType("application/octet-stream");
                } catch (ParseException impossible) {
                    throw new IllegalStateException(impossible);
                }
            }
        }

        private static String disposition(Part p) {
            try {
                String d = p.getDisposition();
                return d == null ? null : d.toLowerCase(Locale.ROOT);
            } catch (MessagingException | RuntimeException e) {
                return null;
            }
        }

        private static String fileName(Part p) {
            try {
                String n = p.getFileName();
                if (n == null || n.isBlank()) {
                    return null;
                }
                try {
                    n = MimeUtility.decodeText(n);
                } catch (IOException | RuntimeException undecodable) {
                    // keep it as written
                }
                n = n.replaceAll("[\\p{Cntrl}/\\\\]+", "_").strip();
                return n.isEmpty() ? null : n.length() > 200 ? n.substring(0, 200) : n;
            } catch (MessagingException | RuntimeException e) {
                return null;
            }
        }

        /** The decoded text of a part: its transfer encoding undone, at most {@value #MAX_TEXT_BYTES} bytes, in its charset. */
        private static String text(Part p, ContentType type) throws MessagingException, IOException {
            byte[] bytes;
            try (InputStream in = p.getInputStream()) {
                bytes = in.readNBytes(MAX_TEXT_BYTES);
            }
            return new String(bytes, charset(type.getParameter("charset")));
        }

        private static Charset charset(String name) {
            if (name == null || name.isBlank()) {
                return StandardCharsets.UTF_8; // US-ASCII is a subset; 8-bit mail without a charset is most often UTF-8
            }
            try {
                return Charset.forName(MimeUtility.javaCharset(name.strip()));
            } catch (RuntimeException unknown) {
                return StandardCharsets.UTF_8;
            }
        }
    }
}
