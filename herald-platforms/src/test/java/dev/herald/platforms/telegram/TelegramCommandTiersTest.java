package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.auth.CommandTiers;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Command tiers as Telegram users see them: an admin may run every command, another allowed user the commands of
 * {@code commands.users} (by default all but /restart and /sethome); a refused command says who may run it, /help and
 * /whoami show each user what they may run. Through the Bot API fake, the real adapter, gateway and SQLite store.
 */
class TelegramCommandTiersTest {
    private static final String TOKEN = "4545:fake-secret-token";
    private static final long ADMIN = 7;
    private static final long USER = 100;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final List<SessionSource> restarts = new CopyOnWriteArrayList<>();
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).admins(Long.toString(ADMIN)).closing(fake)
            .with(b -> b.onRestartRequested(restarts::add));

    /** What {@code chat} reads: the messages' text sent there, as Telegram shows it. */
    private List<String> texts(long chat) {
        return fake.calls("sendMessage").stream().filter(c -> c.body().path("chat_id").asLong() == chat)
                .map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                        .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    /** {@code user} sends {@code text} in their direct chat; returns the bot's next message there. */
    private String say(long user, String text) {
        int before = texts(user).size();
        fake.userSays(user, text);
        await().atMost(WAIT).until(() -> texts(user).size() > before);
        return texts(user).get(before);
    }

    @Test
    void aUserIsRefusedRestartAndSethome_anAdminRestarts() {
        h.start();
        assertThat(say(USER, "/restart")).isEqualTo("\u26d4 /restart is for admins here; ask an admin of this Herald to run it for you.");
        assertThat(say(USER, "/set-home")).isEqualTo("\u26d4 /set-home is for admins here; ask an admin of this Herald to run it for you.");
        assertThat(restarts).isEmpty();

        assertThat(say(ADMIN, "/restart")).startsWith("\u267b\ufe0f Restarting the gateway.");
        assertThat(restarts).extracting(SessionSource::userId).containsExactly(Long.toString(ADMIN));
    }

    @Test
    void helpAndWhoami_showEachTierWhatItMayRun() {
        h.start();
        String userHelp = say(USER, "/help");
        assertThat(userHelp).contains("/sessions").contains("/model [name]").doesNotContain("/restart - ").doesNotContain("/sethome - ")
                .endsWith("For admins only: /restart /sethome");
        String adminHelp = say(ADMIN, "/help");
        assertThat(adminHelp).contains("/restart - restart the gateway (admins only)")
                .contains("/sethome - make this chat the home channel for gateway notices (admins only)")
                .contains("/sessions [words] - your conversations in this chat, newest first (matching the words)\n")
                .doesNotContain("For admins only");

        String who = say(ADMIN, "/whoami");
        assertThat(who.lines().toList()).contains("Tier: admin (may run every command)");
        assertThat(who.lines().filter(l -> l.startsWith("You may run:")).findFirst().orElseThrow()).contains("/restart").contains("/sethome");
        assertThat(who).doesNotContain("Admins only");
    }

    @Test
    void aConfigThatGrantsSethome_andTakesModel_isWhatUsersMayRun() {
        Set<String> users = new java.util.HashSet<>(CommandTiers.defaults().users());
        users.add("set-home");
        users.remove("model");
        h.with(b -> b.onRestartRequested(restarts::add).commandTiers(new CommandTiers(users))).start();

        assertThat(say(USER, "/sethome")).startsWith("\ud83c\udfe0 This chat is now the home channel for telegram");
        assertThat(say(USER, "/models")).isEqualTo("\u26d4 /models is for admins here; ask an admin of this Herald to run it for you.");
        assertThat(say(USER, "/restart")).startsWith("\u26d4 /restart is for admins here");

        String help = say(USER, "/help");
        assertThat(help).contains("/sethome - ").doesNotContain("/model [name]").endsWith("For admins only: /model /restart");
        String who = say(USER, "/whoami");
        assertThat(who.lines().toList()).contains("Admins only: /model /restart");
        assertThat(who.lines().filter(l -> l.startsWith("You may run:")).findFirst().orElseThrow()).contains("/sethome")
                .doesNotContain("/model").doesNotContain("/restart");
        assertThat(say(ADMIN, "/model")).doesNotContain("\u26d4");
    }
}
