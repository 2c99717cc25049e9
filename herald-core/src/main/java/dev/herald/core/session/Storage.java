package dev.herald.core.session;

import dev.herald.core.transcript.TranscriptStore;
import dev.herald.core.turn.TurnStore;

/**
 * One durable store: the session index, the transcripts and the turns, in one database so that the
 * operations that must be atomic across them (admitting a turn with its user message, the start-up
 * sweep) can be. Opened at start-up, closed at stop.
 */
public interface Storage extends AutoCloseable {

    SessionStore sessions();

    TranscriptStore transcripts();

    TurnStore turns();

    /** Scheduled jobs and their occurrences. */
    dev.herald.core.schedule.ScheduleStore schedules();

    /** A short description for logs: the kind and where it lives (never credentials). */
    String describe();

    @Override
    void close();
}
