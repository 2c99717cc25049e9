package dev.herald.web.admin;

import dev.herald.core.session.SessionEntry;
import java.time.Duration;
import java.time.Instant;

/**
 * One session as the admin page lists it.
 *
 * @param state             running, resume_pending, suspended or idle (running wins: a resumed turn may be running
 *                          while its mark is still set)
 * @param resumeReason      why it is resume-pending (restart_timeout, shutdown_timeout, restart_interrupted, ...), or null
 * @param resumeAgeSeconds  how long ago the resume mark was set, or null
 * @param suspendReason     why it is suspended (stop_command, stuck_loop, operator, unrecorded), or null
 * @param suspendDetail     the same for people, or null
 * @param suspendedAgeSeconds how long ago it was suspended, or null (not suspended, or not recorded)
 * @param hidden            its web chat user deleted it from their list (the transcript is kept)
 */
public record SessionItem(
        String key,
        String sessionId,
        String platform,
        String chatId,
        String title,
        String state,
        boolean running,
        boolean resumePending,
        String resumeReason,
        String resumeMarkedAt,
        Long resumeAgeSeconds,
        boolean suspended,
        String suspendReason,
        String suspendDetail,
        Long suspendedAgeSeconds,
        int interruptedRestarts,
        long inputTokens,
        long outputTokens,
        String createdAt,
        String updatedAt,
        boolean hidden) {

    static SessionItem of(SessionEntry e, boolean running, Instant now) {
        String state = running ? "running" : e.suspended() ? "suspended" : e.resumePending() ? "resume_pending" : "idle";
        Instant marked = e.resumePending() ? e.lastResumeMarkedAt() : null;
        return new SessionItem(
                e.key().value(),
                e.sessionId(),
                e.platform() == null ? null : e.platform().id(),
                e.origin() == null ? null : e.origin().chatId(),
                e.title() != null ? e.title() : e.origin() != null && e.origin().chatName() != null ? e.origin().chatName() : e.displayName(),
                state,
                running,
                e.resumePending(),
                e.resumePending() ? e.effectiveResumeReason().code() : null,
                marked == null ? null : marked.toString(),
                marked == null ? null : Math.max(0, Duration.between(marked, now).toSeconds()),
                e.suspended(),
                e.suspended() ? e.suspendReason().code() : null,
                e.suspended() ? e.suspendReason().description() : null,
                e.suspendedAt() == null ? null : Math.max(0, Duration.between(e.suspendedAt(), now).toSeconds()),
                e.interruptedRestarts(),
                e.inputTokens(),
                e.outputTokens(),
                e.createdAt().toString(),
                e.updatedAt().toString(),
                e.hidden());
    }
}
