package dev.herald.app.config;

import dev.herald.agent.persona.PersonalityConfig;
import dev.herald.core.config.ClosestKey;


import dev.herald.agent.model.ModelProfileConfig;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.platform.Platform;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One chat's settings under {@code platforms.<type>.channels.<chat id>}, a key every chat platform section has (bound
 * beside the plug-in's own settings, see {@link PluginSection}): each key left out keeps the platform's (or the global)
 * default. A chat user's own choice ({@code /model}, {@code /personality}) wins over the channel's model and persona;
 * the channel's tools only narrow the platform's.
 * <pre>
 * platforms:
 *   discord:
 *     channels:
 *       "123456789012345678": {model: fast, personality: pirate, tools: [read_file], busy_input: interrupt, require_mention: false}
 * </pre>
 */
public record ChannelConfig(
        @Doc("model profile the channel's turns use (default or a name under models:) unless the chat chose one with /model")
        String model,
        @Doc("persona the channel's turns use (a name under personalities:) unless the chat chose one with /personality")
        String personality,
        @Doc("tools the channel's turns may use, as agent.tools; only narrows the platform's tools (unset = the platform's)")
        List<String> tools,
        @Doc("what a message does while the chat's turn runs: queue, interrupt or steer, under the chat's own /busy (unset = gateway.busy_input)")
        dev.herald.core.lanes.BusyPolicy busyInput,
        @Doc("whether messages in this channel need the bot's mention (unset = the platform's require_mention)")
        Boolean requireMention) {

    /** The platforms whose adapters read a channel's {@code require_mention}. */
    static final Set<String> MENTION_OVERRIDES = Set.of("discord", "slack", "matrix", "telegram", "irc", "mattermost");

    public ChannelConfig {
        tools = tools == null ? null : java.util.Collections.unmodifiableList(new ArrayList<>(tools));
    }

    public static ChannelConfig defaults() {
        return new ChannelConfig(null, null, null, null, null);
    }

    /** Whether this channel sets nothing (IRC's and Mattermost's {@code channels: {"#a": {}}}: only a channel to join). */
    boolean isEmpty() {
        return equals(defaults());
    }

    /** This channel's settings for the core. */
    ChannelOverrides.Channel toChannel() {
        return new ChannelOverrides.Channel(blankToNull(model), blankToNull(personality), tools,
                busyInput == null ? null : busyInput.name().toLowerCase(Locale.ROOT), requireMention);
    }

    /** The channels of every chat platform section, for the core, by the chat id each key stands for. */
    public static ChannelOverrides overrides(PlatformsConfig platforms) {
        Map<String, Map<String, ChannelOverrides.Channel>> byType = new java.util.HashMap<>();
        for (PluginSection s : platforms.chat().values()) {
            Map<String, ChannelOverrides.Channel> byChat = new java.util.HashMap<>();
            for (Map.Entry<String, ChannelConfig> e : s.channels().entrySet()) {
                if (!e.getValue().isEmpty()) {
                    byChat.put(s.plugin().chatIdOfChannel(e.getKey()), e.getValue().toChannel()); // validated: never throws
                }
            }
            if (!byChat.isEmpty()) {
                byType.put(s.type(), Map.copyOf(byChat));
            }
        }
        if (byType.isEmpty()) {
            return ChannelOverrides.NONE;
        }
        return (Platform platform, String chatId) -> {
            Map<String, ChannelOverrides.Channel> byChat = byType.get(platform.id());
            return byChat == null || chatId == null ? Optional.empty() : Optional.ofNullable(byChat.get(chatId));
        };
    }

    /**
     * Every channel names a model profile and a persona that exist, tools that exist, and sets {@code require_mention}
     * only where the platform's adapter reads it.
     */
    static void validate(PlatformsConfig platforms, Map<String, ModelProfileConfig> models, Map<String, PersonalityConfig> personalities,
            List<dev.herald.agent.mcp.McpServerSettings> servers, ConfigChecks check) {
        for (PluginSection s : platforms.chat().values()) {
            for (Map.Entry<String, ChannelConfig> e : s.channels().entrySet()) {
                String path = "platforms." + s.type() + ".channels." + e.getKey();
                ChannelConfig c = e.getValue();
                check.require(!e.getKey().isBlank(), path, "is not a chat id: a channel is named by its platform's chat id");
                if (!e.getKey().isBlank() && !c.isEmpty()) {
                    try {
                        s.plugin().chatIdOfChannel(e.getKey());
                    } catch (IllegalArgumentException bad) {
                        check.require(false, path, bad.getMessage());
                    }
                }
                String model = blankToNull(c.model());
                if (model != null && !model.equals("default") && !models.containsKey(model)) {
                    List<String> known = new ArrayList<>(models.keySet());
                    known.add("default");
                    check.require(false, path + ".model", "names no model profile: \"" + model + "\""
                            + ClosestKey.to(model, known).map(k -> "; did you mean " + k + "?").orElse("")
                            + "; use default or a name under models: (" + String.join(", ", known) + ")");
                }
                String persona = blankToNull(c.personality());
                if (persona != null && !personalities.containsKey(persona)) {
                    check.require(false, path + ".personality", "names no personality: \"" + persona + "\""
                            + ClosestKey.to(persona, new ArrayList<>(personalities.keySet())).map(k -> "; did you mean " + k + "?").orElse("")
                            + (personalities.isEmpty() ? "; personalities: has none" : "; use a name under personalities: ("
                                    + String.join(", ", personalities.keySet()) + ")"));
                }
                if (c.tools() != null) {
                    ToolNames.validateList(c.tools(), path + ".tools", servers, check);
                }
                check.require(c.requireMention() == null || MENTION_OVERRIDES.contains(s.type()), path + ".require_mention",
                        "is not read on " + s.type() + "; a channel's require_mention works on " + String.join(", ",
                                MENTION_OVERRIDES.stream().sorted().toList()));
            }
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
