package dev.herald.web.fuzz;

import java.util.Random;

/**
 * Seeded generators for the outside-input tests of herald-web: strings over an alphabet chosen to hit the
 * parsers' separators, and mutations of valid inputs. {@code -Dherald.fuzz.iterations=1000000} runs a long
 * campaign; {@code -Dherald.fuzz.seed=N} replays one. The default is a few seconds per parser.
 */
public final class Fuzz {
    private static final String ALPHABET = "[]:;,=\"' \t%.-_/\\{}0123456789abcdefABCDEFxX:ff::1127.0.0.1forprotobyhost";
    public static final int ITERATIONS = Integer.getInteger("herald.fuzz.iterations", 5_000);
    public static final long SEED = Long.getLong("herald.fuzz.seed", 0x5eed_1234L);

    private Fuzz() {
    }

    public static Random random() {
        return new Random(SEED);
    }

    /** A string of up to {@code max} characters: mostly the alphabet, sometimes any char (controls and non-ASCII included). */
    public static String text(Random r, int max) {
        int n = r.nextInt(max + 1);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(10);
            sb.append(pick < 8 ? ALPHABET.charAt(r.nextInt(ALPHABET.length())) : (char) r.nextInt(pick == 8 ? 128 : 0x3000));
        }
        return sb.toString();
    }

    /** {@code valid} with a few characters replaced, inserted or removed. */
    public static String mutate(Random r, String valid) {
        StringBuilder sb = new StringBuilder(valid);
        int edits = 1 + r.nextInt(4);
        for (int i = 0; i < edits; i++) {
            int at = sb.isEmpty() ? 0 : r.nextInt(sb.length());
            switch (r.nextInt(3)) {
                case 0 -> sb.insert(at, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
                case 1 -> {
                    if (!sb.isEmpty()) {
                        sb.deleteCharAt(at);
                    }
                }
                default -> {
                    if (!sb.isEmpty()) {
                        sb.setCharAt(at, (char) r.nextInt(128));
                    }
                }
            }
        }
        return sb.toString();
    }

    /** Null a fifth of the time, else {@link #text}. */
    public static String header(Random r, int max) {
        return r.nextInt(5) == 0 ? null : text(r, max);
    }
}
