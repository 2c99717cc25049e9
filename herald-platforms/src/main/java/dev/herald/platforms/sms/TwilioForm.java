package dev.herald.platforms.sms;

import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An {@code application/x-www-form-urlencoded} body as Twilio POSTs it: name/value pairs in their order, {@code +} a
 * space, {@code %XX} a byte, the bytes UTF-8. Strict: a malformed escape or bytes that are not UTF-8 make the whole body
 * unreadable ({@link Malformed}), never a guess; a pair without {@code =} is a name with an empty value, as browsers read
 * it. Used for the signature (which covers every parameter) and then for the message's fields.
 */
final class TwilioForm {
    /** A body that is not a form. */
    static final class Malformed extends Exception {
        Malformed(String what) {
            super(what, null, false, false);
        }
    }

    record Pair(String name, String value) {
    }

    private static final int MAX_PAIRS = 1000;

    private final List<Pair> pairs;

    private TwilioForm(List<Pair> pairs) {
        this.pairs = List.copyOf(pairs);
    }

    static TwilioForm parse(byte[] body) throws Malformed {
        List<Pair> pairs = new ArrayList<>();
        int start = 0;
        int n = body.length;
        while (start < n) {
            int end = start;
            while (end < n && body[end] != '&') {
                end++;
            }
            if (end > start) {
                if (pairs.size() >= MAX_PAIRS) {
                    throw new Malformed("more than " + MAX_PAIRS + " parameters");
                }
                int eq = start;
                while (eq < end && body[eq] != '=') {
                    eq++;
                }
                String name = decode(body, start, eq);
                String value = eq < end ? decode(body, eq + 1, end) : "";
                pairs.add(new Pair(name, value));
            }
            start = end + 1;
        }
        return new TwilioForm(pairs);
    }

    private static String decode(byte[] b, int from, int to) throws Malformed {
        ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '+') {
                out.write(' ');
            } else if (c == '%') {
                if (i + 2 >= to) {
                    throw new Malformed("a % escape cut short");
                }
                int hi = Character.digit(b[i + 1], 16);
                int lo = Character.digit(b[i + 2], 16);
                if (hi < 0 || lo < 0) {
                    throw new Malformed("a % escape that is not two hex digits");
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                out.write(c);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(out.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new Malformed("bytes that are not UTF-8");
        }
    }

    List<Pair> pairs() {
        return pairs;
    }

    /** The first value of {@code name} (names compare exactly, as Twilio sends them). */
    Optional<String> first(String name) {
        return pairs.stream().filter(p -> p.name.equals(name)).map(Pair::value).findFirst();
    }

    String get(String name) {
        return first(name).orElse("");
    }

    /**
     * What Twilio signs after the URL: every parameter's name and value, concatenated, sorted by name (and by value for a
     * name given twice), compared as Java strings (UTF-16 code units; Twilio's parameter names are ASCII).
     */
    String signedSuffix() {
        StringBuilder s = new StringBuilder();
        pairs.stream().sorted(Comparator.comparing(Pair::name).thenComparing(Pair::value)).forEach(p -> s.append(p.name).append(p.value));
        return s.toString();
    }
}
