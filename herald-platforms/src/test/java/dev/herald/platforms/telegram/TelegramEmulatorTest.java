package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.auth.Pairing;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.telegram.Emulator.BotMessage;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Telegram adapter against an independent Bot API emulator (npm telegram-test-api 4.2.1): the real
 * adapter and its HTTP client, the real gateway on SQLite, a scripted agent; the test acts as the user
 * through the emulator's client API and reads what the bot sent there.
 */
class TelegramEmulatorTest {
    private static final long USER = 100;
    private static Emulator emulator;
    private static int tokens;

    /** Each test is its own bot (its own token), so tests never see each other's updates. */
    private final String token = "1" + (++tokens) + ":emulator-token-" + System.nanoTime();
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(emulator.apiBase(), token, false).withRequireMention(false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(50),
                    Duration.ofMillis(500)), clock))
            .allow(Long.toString(USER)).withPairing();

    @BeforeAll
    static void startEmulator() throws Exception {
        emulator = Emulator.start();
    }

    @AfterAll
    static void stopEmulator() {
        if (emulator != null) {
            emulator.close();
        }
    }

    @Test
    void userMessage_getsExactlyOneReply() throws Exception {
        h.start().agent.reply("hello from the agent");

        emulator.userSays(token, USER, "hi");

        List<BotMessage> sent = emulator.awaitBot(token, USER, m -> !m.isEmpty(), WAIT);
        Thread.sleep(500);
        assertThat(emulator.botMessages(token, USER)).extracting(BotMessage::text).containsExactly("hello from the agent");
        assertThat(sent.get(0).body().path("reply_parameters").path("message_id").asLong()).isPositive();
        assertThat(h.agent.messages()).containsExactly("hi");
    }

    @Test
    void forumTopic_replyLandsInTheTopic() throws Exception {
        h.start().agent.reply("answer in the topic");
        long group = -1001234;

        emulator.userSays(token, group, "supergroup", USER, "question in topic 7",
                Map.of("message_thread_id", 7, "is_topic_message", true));

        List<BotMessage> sent = emulator.awaitBot(token, group, m -> !m.isEmpty(), WAIT);
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).text()).isEqualTo("answer in the topic");
        assertThat(sent.get(0).threadId()).isEqualTo(7L);
        assertThat(h.agent.calls().get(0).sessionKey()).endsWith(":group:-1001234:7");
    }

    @Test
    void longReply_isSplitAtTheLimitWithoutBreakingTheCodeBlockOrItsTags() throws Exception {
        StringBuilder code = new StringBuilder("Here is the program:\n```java\n");
        for (int i = 0; code.length() < 7000; i++) {
            code.append("if (a < b && line > ").append(i).append(") System.out.println(\"line ").append(i).append("\");\n");
        }
        code.append("```\n**Done.**");
        h.start().agent.reply(code.toString());

        emulator.userSays(token, USER, "write a long program");

        List<BotMessage> sent = emulator.awaitBot(token, USER, m -> m.size() >= 2 && m.get(m.size() - 1).text().endsWith("<b>Done.</b>"), WAIT);
        assertThat(sent).hasSizeBetween(2, 3);
        for (BotMessage m : sent) {
            String shown = TelegramHtml.unescape(m.text().replaceAll("<[^>]*>", ""));
            assertThat(shown.length()).as("the text Telegram counts").isLessThanOrEqualTo(TelegramAdapter.MAX_TEXT);
            assertThat(count(m.text(), "<pre>")).as("code block tags balanced in part: %s", m.text().substring(0, 40))
                    .isEqualTo(count(m.text(), "</pre>")).isEqualTo(1);
            assertThat(m.body().path("parse_mode").asText()).isEqualTo("HTML");
        }
        assertThat(sent.get(1).text()).startsWith("<pre><code class=\"language-java\">if (a &lt; b &amp;&amp; line &gt;");
    }

    @Test
    void answerWithEveryConstruct_reachesTelegramAsHtml() throws Exception {
        h.start().agent.reply(dev.herald.platforms.common.Answers.everyConstruct());

        emulator.userSays(token, USER, "show me everything");

        BotMessage sent = emulator.awaitBot(token, USER, m -> !m.isEmpty(), WAIT).getFirst();
        assertThat(sent.body().path("parse_mode").asText()).isEqualTo("HTML");
        assertThat(sent.text()).isEqualTo(dev.herald.platforms.common.Answers.everyConstructAs("telegram.html"))
                .contains("<b>Release notes</b>", "<i>out</i>", "<s>no</s>", "<code>fewer</code>", "&lt;safer&gt;",
                        "<a href=\"https://docs.herald.invalid/guide?a=1&amp;b=2\">the guide</a>", "<blockquote>Quoted advice",
                        "<pre><code class=\"language-java\">", "<pre>Platform | Limit");
    }

    @Test
    void unauthorizedDmUser_getsAPairingCodeAndNoTurn_thenATurnOnceApproved() throws Exception {
        h.start();
        long stranger = 200;

        emulator.userSays(token, stranger, "let me in");

        List<BotMessage> sent = emulator.awaitBot(token, stranger, m -> !m.isEmpty(), WAIT);
        Matcher code = Pattern.compile("pairing code: ([" + Pairing.ALPHABET + "]{8})").matcher(sent.get(0).text());
        assertThat(code.find()).as("a code in: %s", sent.get(0).text()).isTrue();
        assertThat(sent.get(0).text()).contains("herald pairing approve telegram " + code.group(1));
        assertThat(h.agent.calls()).isEmpty();
        assertThat(h.turns(TurnState.RECEIVED)).isEmpty();

        assertThat(h.pairing.approve(TelegramAdapter.PLATFORM, code.group(1)).approved()).isTrue();
        h.agent.reply("welcome");
        emulator.userSays(token, stranger, "hello again");

        emulator.awaitBot(token, stranger, m -> m.size() == 2, WAIT);
        assertThat(emulator.botMessages(token, stranger).get(1).text()).isEqualTo("welcome");
        assertThat(h.agent.messages()).containsExactly("hello again");
    }

    @Test
    void unauthorizedUserInAGroup_getsNoReplyAndNoTurn() throws Exception {
        h.start();
        long group = -100777;

        emulator.userSays(token, group, "group", 300, "hello bot", Map.of());
        emulator.userSays(token, group, "group", USER, "/status", Map.of());

        emulator.awaitBot(token, group, m -> !m.isEmpty(), WAIT);
        assertThat(emulator.botMessages(token, group)).hasSize(1).allMatch(m -> !m.text().contains("pairing code"));
        assertThat(h.agent.calls()).isEmpty();
    }

    @Test
    void commandAddressedToThisBot_isAnsweredInline() throws Exception {
        h.start();

        emulator.userSays(token, USER, "/status@TestNameBot");

        List<BotMessage> sent = emulator.awaitBot(token, USER, m -> !m.isEmpty(), WAIT);
        assertThat(sent.get(0).text()).isNotBlank();
        assertThat(h.agent.calls()).isEmpty();
    }

    @Test
    void shutdown_bannerReachesTheHomeChannelAndTheActiveChat() throws Exception {
        long home = -100555;
        h.home(new HomeChannel(TelegramAdapter.PLATFORM, ChatTarget.of(Long.toString(home)), "Ops")).start();
        ScriptedAgent.Hold hold = h.agent.hold("never sent");

        emulator.userSays(token, USER, "a long task");
        hold.awaitArrival(WAIT);
        h.stop(StopKind.SHUTDOWN);

        assertThat(emulator.awaitBot(token, home, m -> !m.isEmpty(), WAIT)).extracting(BotMessage::text)
                .containsExactly(StopKind.SHUTDOWN.banner());
        assertThat(emulator.botMessages(token, USER)).extracting(BotMessage::text).containsExactly(StopKind.SHUTDOWN.banner());
    }

    @Test
    void restartMidTurn_isResumedAndAnsweredExactlyOnce() throws Exception {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("cut off");
        emulator.userSays(token, USER, "summarise the logs");
        hold.awaitArrival(WAIT);

        h.stop(StopKind.RESTART);
        h.restart();

        h.agent.awaitCalls(1, WAIT);
        emulator.awaitBot(token, USER, m -> m.size() >= 2, WAIT);
        Thread.sleep(700);
        List<String> texts = emulator.botMessages(token, USER).stream().map(BotMessage::text).toList();
        assertThat(texts).hasSize(2);
        assertThat(texts.get(0)).isEqualTo(StopKind.RESTART.banner());
        assertThat(texts.get(1)).startsWith("echo:");
        String asked = h.turns().stream().filter(t -> t.origin() == dev.herald.core.platform.MessageEvent.Origin.USER).findFirst()
                .orElseThrow().platformMessageId();
        assertThat(emulator.botMessages(token, USER).get(1).body().path("reply_parameters").path("message_id").asText())
                .as("the resumed answer replies to the message it continues").isEqualTo(asked.substring(asked.indexOf(':') + 1));
        assertThat(h.agent.calls()).hasSize(1);
        assertThat(h.turns(TurnState.AWAITING_DELIVERY)).isEmpty();
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }
}
