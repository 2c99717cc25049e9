package dev.herald.core.platform;

import dev.herald.core.session.SessionSource;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chats of the internal platform {@code background}: one per background task ({@code /bg}), each its own session,
 * whose messages all go to the chat that asked for the task. The chat names that chat, so nothing but the chat id is
 * needed to deliver there, after a restart too: the chat id is {@code <platform>:<chat id>}, the thread
 * {@code <number>-<unique>[@<thread>]}.
 */
public final class BackgroundChats {
    /** The internal platform background tasks run on. */
    public static final Platform PLATFORM = Platform.of("background");
    private static final Pattern THREAD = Pattern.compile("(\\d{1,9})-([a-z0-9]{1,16})(?:@(.+))?", Pattern.DOTALL);

    private BackgroundChats() {
    }

    /**
     * The source of background task {@code number} asked in {@code origin}'s chat; {@code unique} (a few letters or
     * digits) keeps its session apart from an earlier task of the same number.
     */
    public static SessionSource source(SessionSource origin, int number, String unique) {
        String thread = number + "-" + unique + (origin.threadId() == null ? "" : "@" + origin.threadId());
        return new SessionSource(PLATFORM, origin.platform().id() + ":" + origin.chatId(), ChatType.DM, origin.userId(),
                origin.userName(), thread, origin.chatName());
    }

    /** The chat a background chat's messages go to; empty for a chat id this class did not make. */
    public static Optional<Destination> destination(ChatTarget chat) {
        int colon = chat.chatId().indexOf(':');
        Matcher m = chat.threadId() == null ? null : THREAD.matcher(chat.threadId());
        if (colon < 1 || colon == chat.chatId().length() - 1 || m == null || !m.matches()) {
            return Optional.empty();
        }
        try {
            Platform p = Platform.of(chat.chatId().substring(0, colon));
            return Optional.of(new Destination(p, new ChatTarget(chat.chatId().substring(colon + 1), m.group(3))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The task's number, or 0 for a chat this class did not make. */
    public static int number(ChatTarget chat) {
        Matcher m = chat.threadId() == null ? null : THREAD.matcher(chat.threadId());
        return m != null && m.matches() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** The line before every message of the task in the chat that asked for it. */
    public static String heading(ChatTarget chat) {
        return "\ud83d\udd19 Background task " + number(chat) + ":\n";
    }
}
