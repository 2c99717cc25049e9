package dev.herald.core.continuity;

import dev.herald.core.session.SessionEntry;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.RunningTurn;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The one answer to "is this interruption fresh", for the note injector (spec C1, C6, C7), the resumer (G4)
 * and the sweeps of cut-off turns (G2). Within the window a cut-off turn is picked up again; past it the old
 * task is left alone. A window of zero or less disables the gate: everything is fresh. Fresh means age at
 * most the window (the boundary is fresh, D2); an unknown time is fresh (C7).
 *
 * <p>The window comes from {@code gateway.auto_continue_freshness_seconds}, which the configuration loader
 * reads once with its environment overrides ({@code HERALD_AUTO_CONTINUE_FRESHNESS}, then
 * {@code HERMES_AUTO_CONTINUE_FRESHNESS}); nothing here reads the environment.
 */
public record Freshness(Duration length) {
    public static final Duration DEFAULT = Duration.ofHours(1);

    public Freshness {
        Objects.requireNonNull(length, "length");
    }

    public static Freshness ofSeconds(double seconds) {
        return new Freshness(Duration.ofMillis(Math.round(seconds * 1000)));
    }

    public static Freshness defaults() {
        return new Freshness(DEFAULT);
    }

    public boolean disabled() {
        return length.isZero() || length.isNegative();
    }

    /** Whether something that happened {@code at} is still fresh {@code now}. */
    public boolean isFresh(Instant at, Instant now) {
        if (disabled() || at == null) {
            return true;
        }
        return Duration.between(at, now).compareTo(length) <= 0;
    }

    public boolean isFresh(Optional<Instant> at, Instant now) {
        return isFresh(at.orElse(null), now);
    }

    /** The interruption is fresh when the transcript's newest row that is not bookkeeping is (spec C1, C5). */
    public boolean interruptionFresh(List<TranscriptRow> transcript, Instant now) {
        return isFresh(Timestamps.lastTranscriptTimestamp(transcript), now);
    }

    /** A resume-pending session's mark is fresh (spec C1); false when it is not resume-pending. */
    public boolean markFresh(SessionEntry entry, Instant now) {
        return entry != null && entry.resumePending() && isFresh(entry.lastResumeMarkedAt(), now);
    }

    /** Whether a resume-pending session is still worth an automatic resume: its mark, else its last update (G4). */
    public boolean worthResuming(SessionEntry entry, Instant now) {
        return isFresh(entry.lastResumeMarkedAt() != null ? entry.lastResumeMarkedAt() : entry.updatedAt(), now);
    }

    /** Whether a turn found cut off is fresh: its transcript's last activity, else its start (G2). */
    public boolean cutOffFresh(RunningTurn turn, Instant now) {
        return isFresh(turn.hasActivity() ? turn.lastActivity() : turn.startedAt(), now);
    }

    public long seconds() {
        return length.toSeconds();
    }
}
