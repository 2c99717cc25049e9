package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conversation commands as a Telegram user sees them (/title, /new with a name, /sessions, /resume, /retry, /undo,
 * /whoami), through the Bot API fake and the real adapter, gateway and SQLite store; /resume and /retry also after a
 * crash and restart. What the model sees is read from the scripted agent's requests.
 */
class TelegramConversationCommandsTest {
    private static final String TOKEN = "4343:fake-secret-token";
    private static final long USER = 100;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    /** What the user reads: the messages' text as Telegram shows it (the HTML the adapter sends, its entities decoded). */
    private List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    /** The user sends {@code text}; returns the bot's next message. */
    private String say(String text) {
        int before = texts().size();
        fake.userSays(USER, text);
        await().atMost(WAIT).until(() -> texts().size() > before);
        return texts().get(before);
    }

    /** The user sends {@code text} and the bot answers twice (a command's answer, then a turn's). */
    private List<String> sayAndAwaitTwo(String text) {
        int before = texts().size();
        fake.userSays(USER, text);
        await().atMost(WAIT).until(() -> texts().size() >= before + 2);
        return texts().subList(before, before + 2);
    }

    private static List<String> seen(TurnRequest request) {
        return request.history().stream().map(ChatMessage::content).filter(Objects::nonNull).toList();
    }

    @Test
    void title_new_sessions_nameTheConversationsAndListThemNewestFirst() {
        h.start();
        h.agent.reply("Lisbon is lovely.");
        assertThat(say("plan the trip to Lisbon")).isEqualTo("Lisbon is lovely.");
        assertThat(say("/title")).isEqualTo("This conversation has no title yet. Name it with /title <name>.");
        assertThat(say("/title Lisbon trip")).isEqualTo("\ud83c\udff7 This conversation is now called \u201cLisbon trip\u201d.");
        assertThat(say("/title " + "x".repeat(201))).isEqualTo("A title is at most 200 characters; this one has 201.");
        assertThat(say("/new Build fixes")).isEqualTo("\u2728 New session started: \u201cBuild fixes\u201d.");
        h.agent.reply("Fixed.");
        assertThat(say("fix the build")).isEqualTo("Fixed.");
        assertThat(say("/new")).isEqualTo("\u2728 New session started.");
        assertThat(say("/title")).isEqualTo("This conversation has no title yet. Name it with /title <name>.");

        List<String> list = say("/sessions").lines().filter(l -> !l.isBlank()).toList();

        assertThat(list).hasSize(5);
        assertThat(list.get(0)).isEqualTo("Your conversations in this chat:");
        assertThat(list.get(1)).startsWith("1. (no messages yet) \u2014 ").endsWith(", 0 messages (current)");
        assertThat(list.get(2)).startsWith("2. Build fixes \u2014 ").endsWith(", 2 messages");
        assertThat(list.get(3)).startsWith("3. Lisbon trip \u2014 ").endsWith(", 2 messages");
        assertThat(list.get(4)).startsWith("Go back to one with /resume");

        String lisbon = say("/sessions lisbon");
        assertThat(lisbon).contains("3. Lisbon trip").doesNotContain("Build fixes").doesNotContain("(current)");
        assertThat(say("/sessions the build")).contains("2. Build fixes").doesNotContain("Lisbon");
        assertThat(say("/sessions opera")).isEqualTo("No conversation in this chat matches \u201copera\u201d. Send /sessions for all of them.");
    }

    @Test
    void resume_afterARestart_continuesTheOlderConversation_andTheLeftOneStaysResumable() {
        h.start();
        h.agent.reply("Sure, Lisbon.");
        say("plan the trip to Lisbon");
        say("/new");
        h.agent.reply("Fixed.");
        say("fix the build");

        h.crash();
        h.start();

        assertThat(say("/resume")).isEqualTo("Usage: /resume <number or title>. Send /sessions for the list.");
        assertThat(say("/resume 7")).isEqualTo("There is no conversation 7; /sessions lists 1 to 2.");
        assertThat(say("/resume opera")).isEqualTo("No conversation in this chat is called \u201copera\u201d. Send /sessions for the list.");
        assertThat(say("/resume 1")).isEqualTo("\u201cfix the build\u201d is already this chat's conversation.");
        assertThat(say("/resume 2")).startsWith("\u25b6\ufe0f Back to \u201cplan the trip to Lisbon\u201d (2 messages, last ")
                .endsWith("Your next message continues it; the one you left stays in /sessions.");
        h.agent.reply("The hotel is booked.");
        assertThat(say("and the hotel?")).isEqualTo("The hotel is booked.");
        assertThat(seen(h.agent.calls().getLast())).containsExactly("plan the trip to Lisbon", "Sure, Lisbon.");

        String list = say("/sessions");
        assertThat(list).contains("1. plan the trip to Lisbon").contains("4 messages (current)").contains("2. fix the build");
        assertThat(say("/resume fix the build")).startsWith("\u25b6\ufe0f Back to \u201cfix the build\u201d");
        say("and the tests?");
        assertThat(seen(h.agent.calls().getLast())).containsExactly("fix the build", "Fixed.");
    }

    @Test
    void resumeRetryAndUndo_whileATurnRuns_areRefused() {
        h.start();
        say("first");
        say("/new");
        ScriptedAgent.Hold hold = h.agent.hold("late answer");
        fake.userSays(USER, "a long question");
        hold.awaitArrival(WAIT);
        try {
            assertThat(say("/resume 2")).isEqualTo("A turn is running in this chat; send /resume again when it has finished (or /stop it).");
            assertThat(say("/retry")).isEqualTo("A turn is running in this chat; send /retry again when it has finished (or /stop it).");
            assertThat(say("/undo")).isEqualTo("A turn is running in this chat; send /undo again when it has finished (or /stop it).");
        } finally {
            hold.release();
        }
        await().atMost(WAIT).until(() -> texts().contains("late answer"));
        assertThat(h.storage.sessions().conversations(h.turns().getLast().sessionKey(), 10).getFirst().firstMessage())
                .isEqualTo("a long question");
    }

    @Test
    void retry_afterARestart_asksTheLastMessageAgain_andTheModelNoLongerSeesTheOldAnswer() {
        h.start();
        assertThat(say("/retry")).isEqualTo("Nothing to retry yet: this conversation has no message of yours.");
        h.agent.reply("Paris.");
        say("capital of France?");
        h.agent.reply("Five.");
        say("what is 2+2?");

        h.crash();
        h.start();
        h.agent.reply("Four.");

        assertThat(sayAndAwaitTwo("/retry")).containsExactly("\ud83d\udd01 Asking again: \u201cwhat is 2+2?\u201d", "Four.");
        TurnRequest again = h.agent.calls().getLast();
        assertThat(again.userMessage()).isEqualTo("what is 2+2?");
        assertThat(seen(again)).containsExactly("capital of France?", "Paris.");

        h.agent.reply("You're welcome.");
        say("thanks");
        assertThat(seen(h.agent.calls().getLast())).containsExactly("capital of France?", "Paris.", "what is 2+2?", "Four.");
        String sessionId = h.storage.sessions().find(h.turns().getLast().sessionKey()).orElseThrow().sessionId();
        assertThat(h.storage.transcripts().load(sessionId)).extracting(TranscriptRow::content)
                .contains("Five.", "omitted rows 3-4 from the model (replaced by /retry)"); // kept for the admin, marked
    }

    @Test
    void undo_takesBackTheLastExchange_twice_thenHasNothingLeft() {
        h.start();
        h.agent.reply("Noted 7.");
        say("remember 7");
        h.agent.reply("Noted 8.");
        say("remember 8");

        assertThat(say("/undo")).isEqualTo("\u21a9\ufe0f Undone: \u201cremember 8\u201d and its answer are left out of the conversation "
                + "(the record keeps them).");
        h.agent.reply("You said 7.");
        say("what did I say?");
        assertThat(seen(h.agent.calls().getLast())).containsExactly("remember 7", "Noted 7.");

        assertThat(say("/undo")).contains("\u201cwhat did I say?\u201d");
        assertThat(say("/undo")).contains("\u201cremember 7\u201d");
        assertThat(say("/undo")).isEqualTo("Nothing to undo: this conversation has no message of yours left.");
        say("hello again");
        assertThat(seen(h.agent.calls().getLast())).isEmpty();
    }

    @Test
    void whoami_andHelp_tellTheUserWhoTheyAreAndListTheCommands() {
        h.start();
        String who = say("/whoami");
        assertThat(who.lines().toList()).contains("Platform: telegram", "Chat id: 100 (dm)", "Tier: user", "Admins only: /restart /sethome");
        assertThat(who).contains("User id: 100").contains("/sessions").contains("/resume").contains("/retry").contains("/undo");
        assertThat(who.lines().filter(l -> l.startsWith("You may run:")).findFirst().orElseThrow())
                .doesNotContain("/restart").doesNotContain("/sethome");

        String help = say("/help");
        for (String command : List.of("/title", "/sessions", "/resume", "/retry", "/undo", "/whoami", "/new [name]")) {
            assertThat(help).contains(command);
        }
    }

    @Test
    void usage_showsTheLastAnswerTheConversationAndToday_afterARestart() {
        int[] calls = {0};
        h.agentOverride(new dev.herald.core.agent.Agent() {
            @Override
            public dev.herald.core.turn.TurnOutcome runTurn(TurnRequest request, dev.herald.core.agent.TurnListener listener,
                    dev.herald.core.agent.Interrupt interrupt) {
                calls[0]++;
                listener.onUsage(1000L * calls[0], 10L * calls[0]);
                listener.onMessage(ChatMessage.assistant("answer " + calls[0]));
                return new dev.herald.core.turn.TurnOutcome.Final("answer " + calls[0]);
            }

            @Override
            public String describe() {
                return "an agent that reports usage";
            }
        });
        h.start();
        assertThat(say("/usage")).isEqualTo("No usage yet: this chat has no conversation. Your first message starts one.");
        say("one");
        say("two");

        h.crash();
        h.start();

        assertThat(say("/usage").lines().filter(l -> !l.isBlank()).toList()).containsExactly("Model tokens (in / out):",
                "Last answer: 2,000 / 20", "This conversation: 3,000 / 30", "Today (UTC), your messages in this chat: 3,000 / 30 over 2 turns");
        say("/new");
        assertThat(say("/usage")).contains("This conversation: 0 / 0").contains("Today (UTC), your messages in this chat: 3,000 / 30 over 2 turns");
        assertThat(say("/usage please")).startsWith("Usage: /usage: the tokens of the last answer");
    }

    @Test
    void usage_withPricesOnTheChatsModelProfile_showsTheCostToo() {
        h.agentOverride(new dev.herald.core.agent.Agent() {
            @Override
            public dev.herald.core.turn.TurnOutcome runTurn(TurnRequest request, dev.herald.core.agent.TurnListener listener,
                    dev.herald.core.agent.Interrupt interrupt) {
                listener.onUsage(200_000, 10_000);
                listener.onMessage(ChatMessage.assistant("priced answer"));
                return new dev.herald.core.turn.TurnOutcome.Final("priced answer");
            }

            @Override
            public List<dev.herald.core.agent.ModelOption> models() {
                return List.of(new dev.herald.core.agent.ModelOption("default", "small-model", false,
                        new dev.herald.core.agent.ModelOption.Prices(2.5, 10.0, null)));
            }

            @Override
            public String describe() {
                return "a priced agent";
            }
        });
        h.start();
        say("what does it cost?");

        assertThat(say("/usage").lines().filter(l -> !l.isBlank()).toList()).containsExactly("Model tokens (in / out):",
                "Last answer: 200,000 / 10,000 (cost 0.6000)", "This conversation: 200,000 / 10,000 (cost 0.6000)",
                "Today (UTC), your messages in this chat: 200,000 / 10,000 (cost 0.6000) over 1 turn",
                "Costs at the prices of default (small-model), per million tokens: 2.50 in / 10.00 out");
    }
}
