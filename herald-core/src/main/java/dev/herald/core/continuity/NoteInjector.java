package dev.herald.core.continuity;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.transcript.AgentHistory;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.util.List;

/**
 * Decides what the model is told at the start of a turn (spec C1-C9). At most one note is added:
 *
 * <ol>
 *   <li>A resume-pending session whose interruption (last raw transcript row) or resume mark is fresh
 *       gets the restart recovery note for its reason, worded for interactive or non-interactive
 *       platforms.</li>
 *   <li>Otherwise, a history that ends with a tool result from a fresh interruption gets the tool-tail note.</li>
 *   <li>Otherwise the message goes through unchanged, so a stale restart marker never revives an
 *       unrelated task.</li>
 * </ol>
 *
 * Safety net: a blank message on a resume-pending session never reaches the model blank; it becomes
 * the recovery note for an empty message (C8). What is stored as the user's row is the user's own text
 * when there is some, else the note, so no blank user row is ever persisted.
 */
public final class NoteInjector {

    /** What to send and what to store for one turn. */
    public record Prepared(String modelMessage, String persistedMessage, Note note) {
    }

    /** Which note was added. */
    public enum Note {
        NONE,
        RESUME,
        TOOL_TAIL
    }

    private NoteInjector() {
    }

    public static Prepared prepare(
            SessionEntry entry, List<TranscriptRow> transcript, String message, boolean interactive,
            Freshness window, Instant now) {
        String text = message == null ? "" : message;
        boolean interruptionFresh = window.interruptionFresh(transcript, now);
        boolean pending = entry != null && entry.resumePending();
        boolean markFresh = window.markFresh(entry, now);

        if (pending && (interruptionFresh || markFresh)) {
            String userText = text.isBlank() ? "" : text;
            String note = RecoveryNotes.resumeNote(entry.effectiveResumeReason(), userText, interactive);
            return new Prepared(note, userText.isEmpty() ? note : userText, Note.RESUME);
        }
        if (AgentHistory.endsWithToolResultRow(transcript) && interruptionFresh) {
            return new Prepared(RecoveryNotes.toolTailNote(text), text, Note.TOOL_TAIL);
        }
        if (pending && text.isBlank()) {
            String note = RecoveryNotes.resumeNote(entry.effectiveResumeReason(), "", interactive);
            return new Prepared(note, note, Note.RESUME);
        }
        return new Prepared(text, text, Note.NONE);
    }
}
