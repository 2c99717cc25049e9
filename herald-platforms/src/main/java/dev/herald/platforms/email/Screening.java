package dev.herald.platforms.email;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.util.Locale;
import java.util.Optional;

/**
 * Which mail is never answered, and which sender is believed. Answering machine mail makes loops and backscatter, so a
 * mail is skipped when it says it was sent automatically ({@code Auto-Submitted} other than {@code no},
 * {@code X-Autoreply}, {@code X-Autorespond}), comes from a list ({@code Precedence: bulk|list|junk}, {@code List-Id},
 * {@code List-Unsubscribe}), or is a bounce (a null {@code Return-Path}, a {@code MAILER-DAEMON} or {@code postmaster}
 * sender, a {@code multipart/report}).
 *
 * <p>{@code From} is whatever the sender wrote. With {@code require_authentication_results}, only mail whose topmost
 * {@code Authentication-Results} header (RFC 8601; the receiving server prepends its own above any the sender wrote)
 * says {@code dmarc=pass}, or {@code dkim=pass} with a signing domain aligned with the From domain, is believed.
 */
final class Screening {
    private Screening() {
    }

    /** Why {@code m} must not be answered, or empty when it may be. */
    static Optional<String> automatic(MimeMessage m, String from) throws MessagingException {
        String auto = first(m, "Auto-Submitted");
        if (auto != null && !token(auto).equals("no")) {
            return Optional.of("it was sent automatically (Auto-Submitted: " + clip(auto) + ")");
        }
        if (first(m, "X-Autoreply") != null || first(m, "X-Autorespond") != null) {
            return Optional.of("it is an auto-reply (X-Autoreply)");
        }
        String precedence = first(m, "Precedence");
        if (precedence != null && (token(precedence).equals("bulk") || token(precedence).equals("list") || token(precedence).equals("junk"))) {
            return Optional.of("it is bulk mail (Precedence: " + clip(precedence) + ")");
        }
        if (first(m, "List-Id") != null || first(m, "List-Unsubscribe") != null) {
            return Optional.of("it comes from a mailing list (List-Id)");
        }
        String returnPath = first(m, "Return-Path");
        if (returnPath != null && returnPath.replaceAll("\\s", "").equals("<>")) {
            return Optional.of("it has a null sender (Return-Path: <>), as bounces do");
        }
        String local = from.substring(0, Math.max(0, from.indexOf('@')));
        if (local.equals("mailer-daemon") || local.equals("postmaster")) {
            return Optional.of("it comes from " + from + " (a bounce)");
        }
        String type = first(m, "Content-Type");
        if (type != null && type.toLowerCase(Locale.ROOT).strip().startsWith("multipart/report")) {
            return Optional.of("it is a delivery report (multipart/report)");
        }
        return Optional.empty();
    }

    /**
     * Why the receiving server's verdict does not vouch for {@code from}, or empty when it does: the topmost
     * {@code Authentication-Results} must hold {@code dmarc=pass} (for the From domain when it names one), or
     * {@code dkim=pass} signed by the From domain or a parent of it.
     */
    static Optional<String> unauthenticated(MimeMessage m, String from) throws MessagingException {
        String[] all = m.getHeader("Authentication-Results");
        if (all == null || all.length == 0) {
            return Optional.of("it has no Authentication-Results header");
        }
        String domain = Addresses.domain(from);
        String[] parts = withoutComments(all[0]).split(";");
        for (int i = 1; i < parts.length && i < 64; i++) {
            String[] words = parts[i].strip().split("\\s+");
            if (words.length == 0 || !words[0].contains("=")) {
                continue;
            }
            String method = words[0].substring(0, words[0].indexOf('=')).toLowerCase(Locale.ROOT);
            String result = words[0].substring(words[0].indexOf('=') + 1).toLowerCase(Locale.ROOT);
            if (!result.equals("pass")) {
                continue;
            }
            if (method.equals("dmarc")) {
                String headerFrom = property(words, "header.from");
                if (headerFrom == null || headerFrom.equals(domain)) {
                    return Optional.empty();
                }
            }
            if (method.equals("dkim")) {
                String d = property(words, "header.d");
                if (d == null) {
                    String i2 = property(words, "header.i");
                    d = i2 == null ? null : Addresses.domain(i2.startsWith("@") ? "x" + i2 : i2);
                }
                if (d != null && !d.isEmpty() && (domain.equals(d) || domain.endsWith("." + d))) {
                    return Optional.empty();
                }
            }
        }
        return Optional.of("its topmost Authentication-Results shows neither dmarc=pass nor dkim=pass for " + domain + " ("
                + clip(all[0]) + ")");
    }

    private static String property(String[] words, String name) {
        for (String w : words) {
            int eq = w.indexOf('=');
            if (eq > 0 && w.substring(0, eq).equalsIgnoreCase(name)) {
                String v = w.substring(eq + 1).toLowerCase(Locale.ROOT);
                return v.startsWith("\"") && v.endsWith("\"") && v.length() > 1 ? v.substring(1, v.length() - 1) : v;
            }
        }
        return null;
    }

    /** The header without RFC 5322 comments in parentheses (nesting counted, unbalanced ones dropped to the end). */
    static String withoutComments(String value) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < value.length() && i < 8_192; i++) {
            char c = value.charAt(i);
            if (c == '\\' && depth > 0) {
                i++;
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && depth > 0) {
                depth--;
            } else if (depth == 0) {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String first(MimeMessage m, String name) throws MessagingException {
        String[] v = m.getHeader(name);
        return v == null || v.length == 0 ? null : v[0];
    }

    /** The first word of a header value, lower-cased, without comments or parameters. */
    private static String token(String value) {
        String v = withoutComments(value).strip().toLowerCase(Locale.ROOT);
        int end = 0;
        while (end < v.length() && !Character.isWhitespace(v.charAt(end)) && v.charAt(end) != ';') {
            end++;
        }
        return v.substring(0, end);
    }

    /** A header value for a log line: one line, at most 160 characters. */
    static String clip(String value) {
        String v = value.replaceAll("[\\r\\n\\t]+", " ").strip();
        return v.length() > 160 ? v.substring(0, 160) + "…" : v;
    }
}
