package dev.herald.core.session;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.Platform;
import java.util.Objects;

/**
 * Where a conversation comes from: platform, chat, chat type, the user who wrote, and the thread.
 * A session entry keeps the source of its latest message as its {@code origin}; auto-resume and
 * shutdown notices use it to reach the chat again and to re-check the user's authorization.
 *
 * @param platform the platform
 * @param chatId   the platform's chat id (DM, group or channel); never blank
 * @param chatType dm, group, channel or thread
 * @param userId   the platform's id of the person who wrote, or null when unknown
 * @param userName a display name for the person, or null
 * @param threadId thread or topic id inside the chat, or null
 * @param chatName a display name for the chat, or null
 */
public record SessionSource(
        Platform platform, String chatId, ChatType chatType, String userId, String userName, String threadId, String chatName) {

    public SessionSource {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(chatId, "chatId");
        Objects.requireNonNull(chatType, "chatType");
        if (chatId.isBlank()) {
            throw new IllegalArgumentException("chatId must not be blank");
        }
        userId = blankToNull(userId);
        userName = blankToNull(userName);
        threadId = blankToNull(threadId);
        chatName = blankToNull(chatName);
    }

    /** A direct-message source where the chat is the user. */
    public static SessionSource dm(Platform platform, String chatId, String userId) {
        return new SessionSource(platform, chatId, ChatType.DM, userId, null, null, null);
    }

    public ChatTarget target() {
        return new ChatTarget(chatId, threadId);
    }

    public SessionSource withThread(String thread) {
        return new SessionSource(platform, chatId, chatType, userId, userName, thread, chatName);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
