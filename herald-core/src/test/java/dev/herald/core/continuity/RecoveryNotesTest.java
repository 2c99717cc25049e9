package dev.herald.core.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.ResumeReason;
import org.junit.jupiter.api.Test;

/** The note texts are a contract (spec G1): these are the reference texts, character for character. */
class RecoveryNotesTest {

    @Test
    void restartNoteWithAMessage_isTheReferenceTextThenTheMessage() {
        assertThat(RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "ping", true)).isEqualTo(
                "[System note: The previous turn was interrupted by a gateway restart; the gateway is now back online. "
                        + "Any restart/shutdown command in the history has already run \u2014 do NOT re-execute or verify it. "
                        + "Address the user's NEW message below FIRST and focus on what the user is asking now. "
                        + "Do NOT re-execute old tool calls \u2014 skip any unfinished work from the conversation history.]\n\nping");
    }

    @Test
    void restartNoteWithoutAMessage_asksWhatNextOnInteractivePlatforms() {
        assertThat(RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "", true)).isEqualTo(
                "[System note: The previous turn was interrupted by a gateway restart; the gateway is now back online. "
                        + "Any restart/shutdown command in the history has already run \u2014 do NOT re-execute or verify it. "
                        + "Report to the user that the session was restored successfully and ask what they would like to do next. "
                        + "Do NOT re-execute old tool calls \u2014 skip any unfinished work from the conversation history.]");
    }

    @Test
    void nonInteractiveEmptyNote_continuesTheTask() {
        assertThat(RecoveryNotes.resumeNote(ResumeReason.SHUTDOWN_TIMEOUT, "", false)).isEqualTo(
                "[System note: The previous turn was interrupted by a gateway shutdown; the gateway is now back online. "
                        + "Any restart/shutdown command in the history has already run \u2014 do NOT re-execute or verify it. "
                        + "No user is present on this non-interactive platform, so do NOT emit a 'session restored' acknowledgement "
                        + "or ask questions. Review the conversation history and CONTINUE the interrupted task to completion. "
                        + "Do NOT re-run tool calls whose results already appear in the history \u2014 resume from the first step "
                        + "that has no recorded result.]");
    }

    @Test
    void crashReason_readsAsAGatewayInterruption() {
        assertThat(RecoveryNotes.resumeNote(ResumeReason.RESTART_INTERRUPTED, "x", true))
                .startsWith("[System note: The previous turn was interrupted by a gateway interruption;");
        assertThat(RecoveryNotes.resumeNote(null, "x", true)).contains("by a gateway restart;");
    }
}
