package dev.herald.platforms.irc;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * What the IRC tests share: fast timing (a short pace, short reconnects), names of their own for each test (so tests on
 * one server never meet), and the fixture that runs the real adapter against a real ngircd.
 */
final class IrcServerTests {
    /** Four lines at once, then one every 20 ms; reconnects from 100 ms to 1 s. */
    static final IrcSettings.Timing TIMING = IrcSettings.Timing.defaults().withPace(4, Duration.ofMillis(20))
            .withReconnect(Duration.ofMillis(100), Duration.ofSeconds(1));
    private static final AtomicInteger RUN = new AtomicInteger();

    /** Nicks and channels unique to one test. */
    record Names(String bot, String alice, String bob, String channel, String home) {
        static Names next() {
            int n = RUN.incrementAndGet();
            return new Names("herald" + n, "alice" + n, "bob" + n, "#herald" + n, "#home" + n);
        }
    }

    private IrcServerTests() {
    }

    /** The real adapter on {@code server} as {@code names.bot()} in the test's channel, with {@code more} applied to its settings. */
    static GatewayFixture herald(Ngircd server, Names names, UnaryOperator<IrcSettings> more) {
        return new GatewayFixture(clock -> adapter(server, names, more, clock));
    }

    static PlatformAdapter adapter(Ngircd server, Names names, UnaryOperator<IrcSettings> more, Clock clock) {
        IrcSettings s = more.apply(IrcSettings.plain("127.0.0.1", server.port(), names.bot(), List.of(names.channel())));
        return new IrcAdapter(s, TIMING, clock);
    }

    /** A user on {@code server}, closed with the fixture. */
    static IrcUser user(GatewayFixture herald, Ngircd server, String nick) {
        try {
            IrcUser u = IrcUser.connect(server.port(), nick);
            herald.closing(u);
            return u;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
