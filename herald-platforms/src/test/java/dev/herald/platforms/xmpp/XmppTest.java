package dev.herald.platforms.xmpp;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.List;

/** What the XMPP tests share: short timings, the bot's account, and a gateway fixture running the real adapter against a Prosody. */
final class XmppTest {
    static final String BOT = "herald@" + Prosody.DOMAIN;
    static final String BOT_PASSWORD = "bot-secret-1";
    static final String ALICE = "alice@" + Prosody.DOMAIN;
    static final String ROOM = "lobby@" + Prosody.MUC;
    /** Quick reconnection, short timeouts. */
    static final XmppSettings.Timing TIMING = new XmppSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(5), Duration.ofSeconds(3),
            Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofSeconds(5));

    private XmppTest() {
    }

    /** The bot's settings against {@code server} (plain connection to loopback), joining {@code rooms}. */
    static XmppSettings settings(Prosody server, int port, List<String> rooms) {
        return XmppSettings.of(BOT, BOT_PASSWORD).withServer("127.0.0.1", port, XmppSettings.Security.NONE).withRooms(rooms);
    }

    /** A gateway running the adapter with {@code settings}, ready once the adapter is connected and in its rooms. */
    static GatewayFixture herald(XmppSettings settings, String... allowed) {
        GatewayFixture[] f = new GatewayFixture[1];
        f[0] = new GatewayFixture(clock -> new XmppAdapter(settings, TIMING, clock)).allow(allowed)
                .readyWhen(() -> f[0].current instanceof XmppAdapter a && a.ready());
        return f[0];
    }
}
