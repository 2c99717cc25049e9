package dev.herald.platforms.email;

import jakarta.mail.Address;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** Mail addresses as Herald uses them: one {@code local@domain}, lower-cased, as the user id and chat id of a sender. */
final class Addresses {
    /** An addr-spec without quoting, comments or empty dot-separated parts: what a person's address looks like in practice. */
    private static final Pattern PLAIN = Pattern.compile(
            "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*");

    private Addresses() {
    }

    /** True for one plain address such as {@code alice@example.org}. */
    static boolean plausible(String address) {
        if (address == null || address.length() > 254) {
            return false;
        }
        String a = address.strip();
        int at = a.indexOf('@');
        return at > 0 && at <= 64 && PLAIN.matcher(a).matches();
    }

    /** The address lower-cased, when it is a plausible one. */
    static Optional<String> normalise(Address a) {
        if (a instanceof InternetAddress ia && ia.getAddress() != null) {
            String s = ia.getAddress().strip().toLowerCase(Locale.ROOT);
            return plausible(s) ? Optional.of(s) : Optional.empty();
        }
        return Optional.empty();
    }

    /** The first address of a header value (lenient parsing), lower-cased; empty when there is none usable. */
    static Optional<String> first(String headerValue) {
        if (headerValue == null || headerValue.isBlank()) {
            return Optional.empty();
        }
        try {
            InternetAddress[] all = InternetAddress.parseHeader(headerValue, false);
            return all.length == 0 ? Optional.empty() : normalise(all[0]);
        } catch (AddressException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The display name of the first address of a header value, or null. */
    static String name(String headerValue) {
        try {
            InternetAddress[] all = InternetAddress.parseHeader(headerValue, false);
            String n = all.length == 0 ? null : all[0].getPersonal();
            return n == null || n.isBlank() ? null : n.strip().replaceAll("\\p{Cntrl}", " ");
        } catch (AddressException | RuntimeException e) {
            return null;
        }
    }

    /** The domain of an address, lower-cased ("" when it has none). */
    static String domain(String address) {
        int at = address == null ? -1 : address.lastIndexOf('@');
        return at < 0 ? "" : address.substring(at + 1).toLowerCase(Locale.ROOT);
    }
}
