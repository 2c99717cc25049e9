package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.platform.Platform;
import dev.herald.platforms.discord.DiscordSettings;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code platforms.<type>.channels}: one chat's model, persona, tools, busy input and mention, and the mistakes named. */
class ChannelsConfigTest {
    private static final String MODELS = """
            model:
              base_url: http://127.0.0.1:11434/v1
            models:
              fast:
                name: small
            personalities:
              pirate:
                system_prompt: Talk like a pirate.
            """;

    @TempDir
    Path home;

    private ConfigFixture fixture() {
        return new ConfigFixture(home);
    }

    @Test
    void channels_bindBesideThePlatformsOwnKeys_andReachTheCoreByPlatformAndChatId() {
        HeraldConfig c = fixture().config(MODELS + """
                platforms:
                  discord:
                    require_mention: true
                    channels:
                      "123456789012345678":
                        model: fast
                        personality: pirate
                        tools: [read_file]
                        busy_input: interrupt
                        require_mention: false
                      "223456789012345678": {busy_input: queue}
                  slack:
                    channels:
                      C0123: {model: default}
                """);

        PluginSection discord = c.platforms().chat().get("discord");
        assertThat(((DiscordSettings) discord.settings()).requireMention()).as("the platform's own keys bind as before").isTrue();
        assertThat(discord.channels()).containsOnlyKeys("123456789012345678", "223456789012345678");
        ChannelOverrides overrides = ChannelConfig.overrides(c.platforms());
        assertThat(overrides.of(Platform.of("discord"), "123456789012345678")).hasValue(
                new ChannelOverrides.Channel("fast", "pirate", List.of("read_file"), "interrupt", false));
        assertThat(overrides.of(Platform.of("discord"), "223456789012345678")).hasValue(
                new ChannelOverrides.Channel(null, null, null, "queue", null));
        assertThat(overrides.of(Platform.of("slack"), "C0123").map(ChannelOverrides.Channel::profile)).hasValue("default");
        assertThat(overrides.of(Platform.of("discord"), "C0123")).as("a chat id of another platform").isEmpty();
        assertThat(overrides.requireMention(Platform.of("discord"), "123456789012345678", true)).isFalse();
        assertThat(overrides.requireMention(Platform.of("discord"), "223456789012345678", true)).as("unset: the platform's").isTrue();
        assertThat(c.platforms().chat().get("telegram").channels()).isEmpty();
    }

    @Test
    void onAPlatformWhoseOwnKeyIsChannels_theKeyStaysThePlatforms() {
        HeraldConfig c = fixture().config("""
                platforms:
                  irc:
                    channels: ["#herald"]
                """);

        assertThat(((dev.herald.platforms.irc.IrcSettings) c.platforms().chat().get("irc").settings()).channels()).containsExactly("#herald");
        assertThat(c.platforms().chat().get("irc").channels()).isEmpty();
    }

    @Test
    void onIrcAndMattermost_channelsAsAMap_joinsEachKey_andGivesTheKeysWithSettingsTheirOwn() {
        HeraldConfig c = fixture().config(MODELS + """
                platforms:
                  irc:
                    require_mention: true
                    channels:
                      "#Herald": {require_mention: false, personality: pirate}
                      "#quiet":
                  mattermost:
                    channels:
                      town-square: {}
                      "abcdefghijklmnopqrstuvwxyz": {model: fast}
                  telegram:
                    channels:
                      "-1001234567890": {require_mention: false}
                """);

        assertThat(((dev.herald.platforms.irc.IrcSettings) c.platforms().chat().get("irc").settings()).channels())
                .as("every key is still a channel to join").containsExactly("#Herald", "#quiet");
        assertThat(((dev.herald.platforms.mattermost.MattermostSettings) c.platforms().chat().get("mattermost").settings()).channels())
                .containsExactly("town-square", "abcdefghijklmnopqrstuvwxyz");
        ChannelOverrides overrides = ChannelConfig.overrides(c.platforms());
        assertThat(overrides.of(Platform.of("irc"), "#herald")).as("IRC ids fold case: #Herald is chat #herald")
                .hasValue(new ChannelOverrides.Channel(null, "pirate", null, null, false));
        assertThat(overrides.requireMention(Platform.of("irc"), "#herald", true)).isFalse();
        assertThat(overrides.of(Platform.of("irc"), "#quiet")).as("joined, no settings of its own").isEmpty();
        assertThat(overrides.requireMention(Platform.of("irc"), "#quiet", true)).isTrue();
        assertThat(overrides.of(Platform.of("mattermost"), "abcdefghijklmnopqrstuvwxyz").map(ChannelOverrides.Channel::profile)).hasValue("fast");
        assertThat(overrides.requireMention(Platform.of("telegram"), "-1001234567890", true)).isFalse();
        assertThat(overrides.requireMention(Platform.of("telegram"), "-1009999999999", true)).isTrue();
    }

    @Test
    void onMattermost_settingsUnderAChannelName_areRefused_sayingToUseItsId() {
        assertThat(fixture().error(MODELS + """
                platforms:
                  mattermost:
                    channels:
                      town-square: {model: fast}
                """)).contains("platforms.mattermost.channels.town-square").contains("is not a channel id").contains("View Info");
    }

    @Test
    void anUnknownModelOrPersonality_isRefused_namingThePlatformAndTheChannel() {
        assertThat(fixture().error(MODELS + """
                platforms:
                  discord:
                    channels:
                      "42": {model: fsat}
                """)).contains("platforms.discord.channels.42.model").contains("names no model profile: \"fsat\"").contains("did you mean fast?");
        assertThat(fixture().error(MODELS + """
                platforms:
                  slack:
                    channels:
                      C0123: {personality: priate}
                """)).contains("platforms.slack.channels.C0123.personality").contains("names no personality: \"priate\"")
                .contains("did you mean pirate?");
    }

    @Test
    void unknownToolsKeysOrBusyModes_andAMentionWhereThePlatformReadsNone_areRefused() {
        assertThat(fixture().error(MODELS + """
                platforms:
                  discord:
                    channels:
                      "42": {tools: [read_fiel]}
                """)).contains("platforms.discord.channels.42.tools[0]").contains("names no tool");
        assertThat(fixture().error(MODELS + """
                platforms:
                  discord:
                    channels:
                      "42": {busy_input: later}
                """)).contains("platforms.discord.channels").contains("busy_input").contains("later");
        assertThat(fixture().error(MODELS + """
                platforms:
                  discord:
                    channels:
                      "42": {modle: fast}
                """)).contains("platforms.discord.channels").contains("modle");
        assertThat(fixture().error(MODELS + """
                platforms:
                  email:
                    channels:
                      "someone@example.invalid": {require_mention: false}
                """)).contains("platforms.email.channels.someone@example.invalid.require_mention").contains("is not read on email");
    }
}
