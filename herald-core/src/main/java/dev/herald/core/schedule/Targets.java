package dev.herald.core.schedule;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;

/**
 * The source a job runs as when it is not made from inside its chat (the configuration, an admin naming
 * another chat): the target chat and thread, and the user the job runs as. A chat whose id is the user's
 * is taken as that user's direct chat; any other as a group (where sessions are per user).
 */
public final class Targets {
    private Targets() {
    }

    /**
     * @param user the user the job runs as; null = the chat id (a direct chat's user)
     */
    public static SessionSource source(Platform platform, String chatId, String threadId, String user) {
        String u = user == null || user.isBlank() ? chatId : user;
        return new SessionSource(platform, chatId, u.equals(chatId) ? ChatType.DM : ChatType.GROUP, u, null, threadId, null);
    }

    /** The source of a job whose answer goes to the log: the internal chat {@code schedule:<job>}. */
    public static SessionSource log(String jobId, String user) {
        return new SessionSource(SchedulePlatform.PLATFORM, jobId, ChatType.DM, user == null || user.isBlank() ? "config" : user, null,
                null, "job " + jobId);
    }

    /**
     * Reads {@code log} or {@code <platform>:<chat_id>[:<thread_id>]} (a chat id cannot contain ':').
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static SessionSource parse(String target, String jobId, String user) {
        String t = target == null ? "log" : target.strip();
        if (t.isEmpty() || t.equals("log")) {
            return log(jobId, user);
        }
        String[] parts = t.split(":", 3);
        if (parts.length < 2 || parts[1].isBlank() || (parts.length == 3 && parts[2].isBlank())) {
            throw new IllegalArgumentException("schedule - deliver must be 'log' or '<platform>:<chat_id>[:<thread_id>]', was '" + t + "'");
        }
        return source(Platform.of(parts[0]), parts[1], parts.length == 3 ? parts[2] : null, user);
    }
}
