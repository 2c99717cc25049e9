package dev.herald.core.platform;

import java.util.List;
import java.util.Optional;

/**
 * The operator's settings for single chats of a platform ({@code platforms.<type>.channels.<chat id>}): a model profile,
 * a persona, a narrower tool list, what a message does while the chat's turn runs, and whether a mention is needed.
 * Each value is null where the channel keeps the platform's (or the global) default. A chat user's own choice
 * ({@code /model}, {@code /personality}) still wins over the channel's; the channel's wins over the platform's default.
 */
@FunctionalInterface
public interface ChannelOverrides {
    /** No chat has settings of its own. */
    ChannelOverrides NONE = (platform, chatId) -> Optional.empty();

    /**
     * One channel's settings.
     *
     * @param profile        the model profile its turns use unless the chat chose one, or null
     * @param personality    the persona its turns use unless the chat chose one, or null
     * @param tools          the tool list its turns may use, within the platform's tools (never wider), or null
     * @param busyInput      what a message does while the chat's turn runs, a busy policy's name in lower case
     *                       ({@code queue}, {@code interrupt}; the lanes' {@code BusyPolicy}), or null for the gateway's
     * @param requireMention whether a message in this channel needs the bot's mention, or null for the platform's
     */
    record Channel(String profile, String personality, List<String> tools, String busyInput, Boolean requireMention) {
        public Channel {
            tools = tools == null ? null : List.copyOf(tools);
        }
    }

    /** The settings of chat {@code chatId} on {@code platform}, when the operator configured any. */
    Optional<Channel> of(Platform platform, String chatId);

    /** Whether a message in chat {@code chatId} needs the bot's mention: the channel's setting, else {@code platformDefault}. */
    default boolean requireMention(Platform platform, String chatId, boolean platformDefault) {
        return of(platform, chatId).map(Channel::requireMention).orElse(platformDefault);
    }
}
