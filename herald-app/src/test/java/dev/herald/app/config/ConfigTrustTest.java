package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the configuration may not say: credentials inside URLs, tools and platforms that do not exist. */
class ConfigTrustTest {
    @TempDir
    Path home;

    private ConfigFixture fixture() {
        return new ConfigFixture(home);
    }

    @Test
    void credentialsInModelBaseUrl_areRefusedNamingTheKeyNeverTheValue() {
        String error = fixture().error("model:\n  name: m\n  base_url: https://alice:s3cr3t-pw@llm.example.test/v1\n");

        assertThat(error).isEqualTo("config - " + home.resolve("config.yaml") + " line 3: model.base_url must not carry credentials in the URL"
                + " (user:password@ or a token@ before the host): URLs are printed and logged; remove them and set model.api_key"
                + " (e.g. api_key: ${OPENAI_API_KEY})");
        assertThat(error).doesNotContain("s3cr3t-pw").doesNotContain("alice");
    }

    @Test
    void credentialsInAUrlFromAVariable_areRefusedWithoutPrintingTheVariablesValue() {
        String error = fixture().error("model:\n  base_url: ${LLM_URL}\n", Map.of("LLM_URL", "http://bob:hunter2@127.0.0.1:11434/v1"));

        assertThat(error).contains("model.base_url must not carry credentials").doesNotContain("hunter2").doesNotContain("bob");
    }

    @Test
    void credentialsInAMalformedUrl_areRefusedBeforeTheUrlCheckCouldQuoteIt() {
        String error = fixture().error("model:\n  base_url: \"http://carol:pa55@exa mple\"\n");

        assertThat(error).contains("model.base_url must not carry credentials").doesNotContain("pa55");
    }

    @Test
    void credentialsInEveryOtherUrl_areRefusedWithTheRightNextStep() {
        assertThat(fixture().error("mcp_servers:\n  - name: docs\n    url: https://tok123@mcp.example.test/mcp\n"))
                .contains("line 3: mcp_servers[0].url must not carry credentials")
                .endsWith("send it in mcp_servers[0].headers (e.g. Authorization: \"Bearer ${TOKEN}\")").doesNotContain("tok123");
        assertThat(fixture().error("platforms:\n  telegram:\n    api_base: http://u:p4ss@127.0.0.1:8081\n"))
                .contains("line 3: platforms.telegram.api_base must not carry credentials").doesNotContain("p4ss");
        assertThat(fixture().error("store:\n  url: jdbc:postgresql://herald:pgpw@127.0.0.1:5432/herald\n"))
                .contains("line 2: store.url must not carry credentials").endsWith("set store.user and store.password"
                        + " (e.g. password: ${HERALD_STORE_PASSWORD})").doesNotContain("pgpw");
        assertThat(fixture().error("mcp_servers:\n  - name: fs\n    command: /bin/true\n    args: [\"--db\", \"postgres://x:dbpw@127.0.0.1/db\"]\n"))
                .contains("line 4: mcp_servers[0].args[1] must not carry credentials").doesNotContain("dbpw");
    }

    @Test
    void urlsWithoutCredentials_andSecretValuesHoldingThem_areAccepted() {
        HeraldConfig config = fixture().config("""
                model:
                  base_url: http://127.0.0.1:11434/v1?user=x@y
                  system_prompt: "mail ops@example.test when https://status.example.test is down"
                mcp_servers:
                  - name: db
                    command: /bin/true
                    args: ["ssh://git@git.example.test/repo"]
                    env: {DATABASE_URL: "postgres://app:pw@127.0.0.1/app"}
                """);

        assertThat(config.model().baseUrl()).isEqualTo("http://127.0.0.1:11434/v1?user=x@y");
        assertThat(config.mcpServers().get(0).env().get("DATABASE_URL").reveal()).contains("postgres://app:pw@127.0.0.1/app");
    }

    @Test
    void unknownToolInAgentTools_isRefusedWithTheClosestNameAndTheKnownOnes() {
        String error = fixture().error("agent:\n  tools: [read_file, shel]\n");

        assertThat(error).isEqualTo("config - " + home.resolve("config.yaml") + " line 2: agent.tools[1] is \"shel\", which names no tool"
                + " (did you mean \"shell\"?); tools are shell, read_file, write_file, list_dir, http_get, todo, send_file, schedule, skill, memory, mcp (every MCP tool),"
                + " and <server>__<tool> once mcp_servers has servers");
    }

    @Test
    void unknownPlatformInPlatformTools_isRefused_soATypoCannotLeaveThatPlatformEveryTool() {
        String error = fixture().error("agent:\n  platform_tools:\n    webhok: []\n");

        assertThat(error).isEqualTo("config - " + home.resolve("config.yaml") + " line 3: agent.platform_tools.webhok is not a platform"
                + " (did you mean \"webhook\"?); the platforms are api_server, telegram, weixin, discord, slack, email, irc, matrix, xmpp, mattermost, whatsapp, signal, waha, teams, sms, line, google_chat, wecom, ntfy, feishu, dingtalk, qqbot, bluebubbles, homeassistant, webhook, webchat");
    }

    @Test
    void unknownToolInAPlatformsList_isRefused() {
        assertThat(fixture().error("agent:\n  platform_tools:\n    telegram: [todo, github__search]\n"))
                .contains("line 3: agent.platform_tools.telegram[1] is \"github__search\", which names no tool");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mcp", "github__search_issues", "github__*", "read_*", "*"})
    void toolEntries_thatNameBuiltinsOrConfiguredMcpServers_areAccepted(String entry) {
        HeraldConfig config = fixture().config("""
                agent:
                  tools: [shell, "%s"]
                  platform_tools:
                    webhook: []
                    api_server: [read_file, "%s"]
                mcp_servers:
                  - name: github
                    command: /usr/local/bin/github-mcp-server
                """.formatted(entry, entry));

        assertThat(config.agent().tools()).isEqualTo(List.of("shell", entry));
        assertThat(config.agent().platformTools()).containsEntry("webhook", List.of());
    }
}
