package dev.herald.core.turn;

import java.util.Objects;

/**
 * What some people's messages cost in turns and model tokens: since midnight UTC ({@code ...Today}) and over a longer
 * window (the last 30 days on the admin page), counting each turn that started (RUNNING or later) by the time its
 * message came in. {@link TurnStore#usage} adds them up per group of {@link Sender}s, e.g. per web account.
 */
public record SenderUsage(long turnsToday, long inputToday, long outputToday, long turns, long input, long output) {
    /** No turns. */
    public static final SenderUsage NONE = new SenderUsage(0, 0, 0, 0, 0, 0);

    /**
     * One person on one platform, as a turn's source names them: the platform id and the platform's user id (the web chat
     * and the API store {@code u:<account>} for an account).
     */
    public record Sender(String platform, String userId) {
        public Sender {
            Objects.requireNonNull(platform, "platform");
            Objects.requireNonNull(userId, "userId");
        }
    }

    public SenderUsage plus(SenderUsage o) {
        return new SenderUsage(turnsToday + o.turnsToday, inputToday + o.inputToday, outputToday + o.outputToday, turns + o.turns,
                input + o.input, output + o.output);
    }
}
