package dev.herald.core.config;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import java.util.Optional;

/**
 * {@code platforms.<platform>.home_channel:} where gateway notices (restart and shutdown banners) go on that
 * platform even when nobody is talking. {@code /sethome} in a chat overrides it (kept in
 * {@code $HERALD_HOME/home_channels.json}).
 */
public record HomeChannelConfig(
        @Doc("chat id of the home channel (Telegram: a number such as -1001234567890; Weixin: a user id); not set = no home channel")
        String chatId,
        @Doc("thread or forum topic id inside that chat; not set = the chat itself")
        String threadId,
        @Doc("a name for logs and /status; not set = Home")
        String name) implements Validated {

    public static HomeChannelConfig defaults() {
        return new HomeChannelConfig(null, null, null);
    }

    public boolean present() {
        return chatId != null && !chatId.isBlank();
    }

    /** The home channel on {@code platform}, when a chat id is configured. */
    public Optional<HomeChannel> on(Platform platform) {
        return present() ? Optional.of(new HomeChannel(platform, new ChatTarget(chatId.strip(), threadId), name)) : Optional.empty();
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(present() || (threadId == null && name == null), "chat_id",
                "is required when thread_id or name is given; set the chat id of the home channel");
    }
}
