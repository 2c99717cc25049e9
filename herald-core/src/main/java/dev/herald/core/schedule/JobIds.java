package dev.herald.core.schedule;

import java.security.SecureRandom;

/** Ids for jobs made in a chat: six characters without look-alikes (no 0/o, 1/l/i), easy to type in /schedule pause. */
final class JobIds {
    private static final String ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private JobIds() {
    }

    static String next() {
        StringBuilder sb = new StringBuilder(6);
        for (int i = 0; i < 6; i++) {
            sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return sb.toString();
    }
}
