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
 * A resume turn that continues a cut-off scheduled task (the caller passes the task's text) is not an interactive
 * restart: nobody is there to be told the session was restored, and the chat waits for the task's result. When
 * the task recorded work after its prompt (the transcript's last conversation row is not the prompt), the model
 * gets the task note ({@link RecoveryNotes#taskNote}): continue from the first step without a recorded result.
 * When nothing of it was recorded, it runs again from the start: the model gets the task as first given.
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
        TOOL_TAIL,
        /** A cut-off scheduled task continues ({@link RecoveryNotes#taskNote}). */
        TASK_RESUME,
        /** A cut-off scheduled task that recorded nothing runs again from the start. */
        TASK_RERUN
    }

    private NoteInjector() {
    }

    public static Prepared prepare(
            SessionEntry entry, List<TranscriptRow> transcript, String message, boolean interactive,
            Freshness window, Instant now) {
        return prepare(entry, transcript, message, interactive, window, now, null);
    }

    /**
     * @param continuedTask for a resume turn that continues a cut-off scheduled task, the text that task was given;
     *                      else null
     */
    public static Prepared prepare(
            SessionEntry entry, List<TranscriptRow> transcript, String message, boolean interactive,
            Freshness window, Instant now, String continuedTask) {
        String text = message == null ? "" : message;
        boolean interruptionFresh = window.interruptionFresh(transcript, now);
        boolean pending = entry != null && entry.resumePending();
        boolean markFresh = window.markFresh(entry, now);

        if (pending && text.isBlank() && continuedTask != null && !continuedTask.isBlank()) {
            if (endsWithPrompt(transcript)) {
                return new Prepared(continuedTask, continuedTask, Note.TASK_RERUN);
            }
            String note = RecoveryNotes.taskNote(entry.effectiveResumeReason(), continuedTask);
            return new Prepared(note, note, Note.TASK_RESUME);
        }

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

    /** Whether the transcript's last conversation row (bookkeeping skipped) is a user's: nothing answered it yet. */
    private static boolean endsWithPrompt(List<TranscriptRow> transcript) {
        for (int i = transcript.size() - 1; i >= 0; i--) {
            TranscriptRow row = transcript.get(i);
            if (row != null && !row.role().isBookkeeping()) {
                return row.role() == dev.herald.core.transcript.Role.USER;
            }
        }
        return false;
    }
}
