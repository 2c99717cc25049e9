package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.platforms.discord.DiscordSettings;
import dev.herald.platforms.slack.SlackSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * platforms.discord, platforms.slack and platforms.webhook: binding (the chat platforms into their plug-ins' own settings
 * records), defaults, secrets, and the messages for mistakes.
 */
class ChatPlatformsConfigTest {
    @TempDir
    Path home;

    private ConfigFixture fixture() {
        return new ConfigFixture(home);
    }

    @Test
    void allThreeSections_bindFromYaml_withEnvironmentSecrets_andRouteDefaults() {
        String yaml = """
                platforms:
                  discord:
                    enabled: true
                    token: ${DISCORD_BOT_TOKEN}
                  slack:
                    enabled: true
                    app_token: ${SLACK_APP_TOKEN}
                    bot_token: ${SLACK_BOT_TOKEN}
                    require_mention: false
                  webhook:
                    enabled: true
                    routes:
                      github:
                        secret: ${GITHUB_WEBHOOK_SECRET}
                        prompt: "Issue {issue.number}: {issue.title}"
                        deliver: slack:C0123
                      alerts:
                        signature: none
                """;
        Map<String, String> env = Map.of("DISCORD_BOT_TOKEN", "dtoken-1", "SLACK_APP_TOKEN", "xapp-1-x", "SLACK_BOT_TOKEN", "xoxb-2",
                "GITHUB_WEBHOOK_SECRET", "whsec-3");

        LoadedConfig loaded = fixture().write(yaml).load(env);
        PlatformsConfig p = loaded.config().platforms();

        DiscordSettings discord = (DiscordSettings) p.chat().get("discord").settings();
        SlackSettings slack = (SlackSettings) p.chat().get("slack").settings();
        assertThat(discord.token().reveal()).hasValue("dtoken-1");
        assertThat(discord.apiBase()).isEqualTo("https://discord.com/api/v10");
        assertThat(discord.requireMention()).isTrue();
        assertThat(slack.botToken().reveal()).hasValue("xoxb-2");
        assertThat(slack.requireMention()).isFalse();
        assertThat(p.webhook().routes()).containsOnlyKeys("github", "alerts");
        assertThat(p.webhook().routes().get("github").signature()).isEqualTo(dev.herald.web.webhook.SignatureStyle.GITHUB);
        assertThat(p.webhook().routes().get("github").deliver()).isEqualTo("slack:C0123");
        assertThat(p.webhook().routes().get("alerts").deliver()).isEqualTo("log");
        assertThat(p.webhook().routes().get("alerts").prompt()).isEmpty();
        assertThat(loaded.effective()).doesNotContain("dtoken-1", "xapp-1-x", "xoxb-2", "whsec-3");
    }

    @Test
    void discordEnabledWithoutAToken_namesTheKeyAndWhereToGetOne() {
        String error = fixture().error("platforms:\n  discord:\n    enabled: true\n");

        assertThat(error).contains("line 2: platforms.discord.token is required when platforms.discord.enabled is true")
                .contains("discord.com/developers/applications");
    }

    @Test
    void slackTokensInTheWrongSlots_areNamedWithoutShowingThem() {
        String error = fixture().error("platforms:\n  slack:\n    enabled: true\n    app_token: xoxb-swapped-123\n    bot_token: xoxb-ok\n");

        assertThat(error).contains("line 4: platforms.slack.app_token must be an app-level token starting with xapp-")
                .doesNotContain("swapped-123");
    }

    @Test
    void aGitHubRouteWithoutASecret_isAnError() {
        String error = fixture().error("platforms:\n  webhook:\n    enabled: true\n    routes:\n      github:\n        prompt: hi\n");

        assertThat(error).contains("line 5: platforms.webhook.routes.github.secret is required with signature github");
    }

    @Test
    void aMalformedDeliveryTarget_isAnError() {
        String error = fixture().error("platforms:\n  webhook:\n    routes:\n      ci:\n        signature: none\n        deliver: telegram\n");

        assertThat(error).contains("line 6: platforms.webhook.routes.ci.deliver must be log or <platform>:<chat_id>[:<thread_id>], was \"telegram\"");
    }

    @Test
    void anUnknownKeyInARoute_suggestsTheClosestOne() {
        String error = fixture().error("platforms:\n  webhook:\n    routes:\n      ci:\n        signatur: none\n");

        assertThat(error).contains("unknown key platforms.webhook.routes.ci.signatur; did you mean platforms.webhook.routes.ci.signature?");
    }
}
