package dev.herald.platforms.irc;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The IRC adapter in conversation: a real gateway and store, the real adapter, a real ngircd, people on raw sockets. */
class IrcConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);
    static Ngircd server;

    @BeforeAll
    static void startServer() throws Exception {
        server = Ngircd.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    final IrcServerTests.Names n = IrcServerTests.Names.next();
    UnaryOperator<IrcSettings> settings = s -> s;
    dev.herald.core.platform.ChannelOverrides channels = dev.herald.core.platform.ChannelOverrides.NONE;
    @RegisterExtension
    final GatewayFixture herald = new GatewayFixture(clock -> {
        IrcAdapter adapter = (IrcAdapter) IrcServerTests.adapter(server, n, s -> settings.apply(s), clock);
        adapter.useChannels(channels);
        return adapter;
    }).allow(n.alice()).withPairing();

    private IrcUser user(String nick) {
        return IrcServerTests.user(herald, server, nick);
    }

    @Test
    void aDirectMessage_isAnsweredInTheDirectMessage_inItsOwnSession() throws Exception {
        herald.start();
        herald.agent.reply("hello back");
        IrcUser alice = user(n.alice());

        alice.say(n.bot(), "hi there");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.alice()).size() == 1);
        assertThat(alice.messages(n.bot(), n.alice())).containsExactly("hello back");
        assertThat(herald.agent.messages()).containsExactly("hi there");
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.sessionKey().value()).isEqualTo("agent:main:irc:dm:" + n.alice()));
    }

    @Test
    void inAChannel_onlyAMessageAddressedToTheBot_isAnswered_withTheAskersNickInFront() throws Exception {
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel());

        alice.say(n.channel(), "just chatting with friends");
        alice.say(n.channel(), n.bot() + ": what is 2+2?");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": echo: what is 2+2?");
        assertThat(herald.agent.messages()).containsExactly("what is 2+2?");

        alice.say(n.channel(), n.bot().toUpperCase() + ", and the comma form?");
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.channel()).size() == 2);
        assertThat(alice.messages(n.bot(), n.channel()).get(1)).isEqualTo(n.alice() + ": echo: and the comma form?");
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsOnly("agent:main:irc:group:" + n.channel() + ":" + n.alice());
    }

    @Test
    void withRequireMentionOff_everyChannelMessageOfAnAllowedUser_isAnswered() throws Exception {
        settings = s -> s.withRequireMention(false);
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel());

        alice.say(n.channel(), "no address at all");

        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": echo: no address at all");
    }

    @Test
    void aChannelsOwnRequireMentionOff_answersEveryMessageThere_whileOtherChannelsStillNeedTheNick() throws Exception {
        String other = n.channel() + "-b";
        settings = s -> IrcSettings.plain(s.host(), s.port(), s.nick(), java.util.List.of(n.channel(), other));
        channels = (platform, chatId) -> chatId.equals(n.channel().toLowerCase(java.util.Locale.ROOT))
                ? java.util.Optional.of(new dev.herald.core.platform.ChannelOverrides.Channel(null, null, null, null, false))
                : java.util.Optional.empty();
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel()).join(other);

        alice.say(other, "not for the bot");
        alice.say(n.channel(), "no address at all");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": echo: no address at all");
        assertThat(alice.messages(n.bot(), other)).isEmpty();
        assertThat(herald.agent.messages()).containsExactly("no address at all");
    }

    @Test
    void aLongAnswerWithMultibyteText_isSentAsLinesOfAtMost512Bytes_noneCutInsideACharacter() throws Exception {
        String words = "Café crème brûlée 😀👍🏽 naïve façade ".repeat(40);
        String unbroken = "é😀a".repeat(300); // no space to cut at: cut between characters
        herald.agent.reply(words + "\n\n" + unbroken + "\n\n```\n" + "x".repeat(700) + "\n```");
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel());

        alice.say(n.channel(), n.bot() + ": write a lot");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.channel()).stream().filter((n.alice() + ": ```")::equals).count() == 2);
        List<IrcUser.Received> lines = alice.privmsgs(n.bot(), n.channel());
        assertThat(lines.size()).isGreaterThan(10);
        for (IrcUser.Received line : lines) {
            assertThat(line.wireBytes()).as("the relayed line, CR LF included").isLessThanOrEqualTo(512);
            assertThat(strictUtf8(line.bytes())).as("every line is whole UTF-8").isTrue();
            assertThat(line.message()).startsWith(n.alice() + ": ");
        }
        String received = String.join("", lines.stream().map(l -> l.message().substring(n.alice().length() + 2)).toList());
        String expected = words + unbroken + "```" + "x".repeat(700) + "```";
        String got = received.replace(" ", "");
        String want = expected.replace(" ", "");
        int at = 0;
        while (at < Math.min(got.length(), want.length()) && got.charAt(at) == want.charAt(at)) {
            at++;
        }
        assertThat(got).as("first difference at %d of %d/%d: got ...%s... want ...%s...", at, got.length(), want.length(),
                got.substring(Math.max(0, at - 20), Math.min(got.length(), at + 20)), want.substring(Math.max(0, at - 20), Math.min(want.length(), at + 20)))
                .isEqualTo(want);
        assertThat(lines.stream().map(IrcUser.Received::message)).as("the code block keeps its fences as lines")
                .contains(n.alice() + ": ```");
    }

    @Test
    void anUnknownNick_getsAPairingCodeInADirectMessage_andNothingInAChannel() throws Exception {
        herald.start();
        IrcUser bob = user(n.bob()).join(n.channel());
        IrcUser alice = user(n.alice()).join(n.channel());

        bob.say(n.channel(), n.bot() + ": let me in");
        bob.say(n.bot(), "let me in");

        await().atMost(WAIT).until(() -> bob.messages(n.bot(), n.bob()).stream().anyMatch(m -> m.contains("herald pairing approve irc ")));
        alice.say(n.channel(), n.bot() + ": and me?");
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": echo: and me?");
        assertThat(herald.agent.messages()).containsExactly("and me?");
        String code = String.join("\n", bob.messages(n.bot(), n.bob()));
        Matcher m = Pattern.compile("herald pairing approve irc ([A-Z0-9]{8})").matcher(code);
        assertThat(m.find()).isTrue();

        assertThat(herald.pairing.approve(IrcAdapter.PLATFORM, m.group(1)).approved()).isTrue();
        bob.say(n.bot(), "now?");
        await().atMost(WAIT).until(() -> bob.messages(n.bot(), n.bob()).contains("echo: now?"));
        assertThat(herald.turns()).extracting(TurnRecord::text).containsExactlyInAnyOrder("and me?", "now?");
    }

    @Test
    void aTakenNick_getsAnUnderscore_andTheBotAnswersThere_thenTakesItsNickBackWhenItIsFree() throws Exception {
        IrcUser squatter = IrcUser.connect(server.port(), n.bot()).join(n.channel());
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel());
        String taken = n.bot() + "_";

        alice.say(taken, "are you there?");
        await().atMost(WAIT).until(() -> alice.messages(taken, n.alice()).contains("echo: are you there?"));
        alice.say(n.channel(), taken + ": and here?");
        await().atMost(WAIT).until(() -> alice.messages(taken, n.channel()).contains(n.alice() + ": echo: and here?"));

        squatter.close();
        alice.await(r -> r.command().equals("NICK") && taken.equals(r.from()));
        alice.say(n.bot(), "back?");
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.alice()).contains("echo: back?"));
    }

    private static boolean strictUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
