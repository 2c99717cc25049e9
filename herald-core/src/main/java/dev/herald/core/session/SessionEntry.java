package dev.herald.core.session;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import java.time.Instant;
import java.util.Objects;

/**
 * The durable record of one conversation lane: which transcript is current and what continuity
 * state the lane is in. Immutable; stores return a new value after every change.
 *
 * @param key                  the lane's key
 * @param sessionId            the current transcript's id (follows compression to the tip)
 * @param createdAt            when the current session id was created
 * @param updatedAt            when the lane was last used
 * @param origin               the source of the latest message (who, where); null only for legacy rows
 * @param displayName          a name for the chat, or null
 * @param platform             the platform, from the origin
 * @param chatType             the chat type, from the origin
 * @param suspendReason        why the lane was suspended, or null when it is not: a suspended lane's
 *                             next lookup throws this session away and starts a fresh one
 * @param suspendedAt          when it was suspended, or null (not suspended, or not recorded)
 * @param wasAutoReset         the current session id replaced an older one without the user asking
 * @param autoResetReason      why it did, or null
 * @param resumePending        the last turn was cut off by a stop or crash; pick it up from the transcript
 * @param resumeReason         why, or null when not pending
 * @param lastResumeMarkedAt   when the mark was set, or null
 * @param interruptedRestarts  consecutive stops or crashes that cut off one of this lane's turns
 *                             (the stuck-loop counter; its only home, spec E4/G3)
 * @param inputTokens          model input tokens used by this lane's current session
 * @param outputTokens         model output tokens used by this lane's current session
 * @param title                a title its user gave the conversation (web chat rename), or null
 * @param hiddenAt             when its user deleted the conversation from their list (the transcript is kept), or null
 */
public record SessionEntry(
        SessionKey key,
        String sessionId,
        Instant createdAt,
        Instant updatedAt,
        SessionSource origin,
        String displayName,
        Platform platform,
        ChatType chatType,
        SuspendReason suspendReason,
        Instant suspendedAt,
        boolean wasAutoReset,
        ResetReason autoResetReason,
        boolean resumePending,
        ResumeReason resumeReason,
        Instant lastResumeMarkedAt,
        int interruptedRestarts,
        long inputTokens,
        long outputTokens,
        String title,
        Instant hiddenAt) {

    public SessionEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (chatType == null) {
            chatType = ChatType.DM;
        }
        if (interruptedRestarts < 0) {
            throw new IllegalArgumentException("interruptedRestarts must be >= 0");
        }
    }

    /** A brand-new lane: not suspended, not resume-pending, no reason, no mark time (spec B1). */
    public static SessionEntry fresh(SessionKey key, String sessionId, SessionSource origin, Instant now) {
        return new SessionEntry(key, sessionId, now, now, origin, origin == null ? null : origin.chatName(),
                origin == null ? null : origin.platform(), origin == null ? ChatType.DM : origin.chatType(),
                null, null, false, null, false, null, null, 0, 0, 0, null, null);
    }

    /** Deleted from its user's conversation list (kept in the store, listed by the admin page). */
    public boolean hidden() {
        return hiddenAt != null;
    }

    /** Throw this session away: the next lookup starts a fresh one. */
    public boolean suspended() {
        return suspendReason != null;
    }

    /** The reason to resume with: the stored one, or {@code restart_timeout} when none was stored. */
    public ResumeReason effectiveResumeReason() {
        return resumeReason == null ? ResumeReason.RESTART_TIMEOUT : resumeReason;
    }
}
