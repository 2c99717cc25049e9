package dev.herald.platforms.matrix;

import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.List;

/** The settings, timing and gateway fixture the Matrix tests share. */
final class MatrixFixtures {
    private MatrixFixtures() {
    }

    static MatrixSettings.Timing timing() {
        return new MatrixSettings.Timing(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(5), Duration.ofMillis(20),
                Duration.ofMillis(50), Duration.ofMillis(300));
    }

    static MatrixSettings settings(FakeMatrix matrix) {
        return MatrixSettings.of(matrix.baseUrl(), FakeMatrix.BOT, FakeMatrix.BOT_TOKEN)
                .withAccess(List.of(FakeMatrix.ALICE, FakeMatrix.BOB), UnauthorizedDm.PAIR);
    }

    /** A gateway whose adapter keeps its state in the fixture's store, ready once the bot syncs with a token. */
    static GatewayFixture herald(FakeMatrix matrix, StateSource state) {
        GatewayFixture[] self = new GatewayFixture[1];
        self[0] = new GatewayFixture(clock -> new MatrixAdapter(settings(matrix), timing(), clock, state.of(self[0])))
                .allow(FakeMatrix.ALICE, FakeMatrix.BOB).withPairing().readyWhen(() -> botSyncing(matrix)).closing(matrix);
        return self[0];
    }

    static GatewayFixture herald(FakeMatrix matrix) {
        return herald(matrix, h -> h.storage.platformState());
    }

    /** Where the adapter of a process keeps its state. */
    interface StateSource {
        PlatformState of(GatewayFixture h);
    }

    /** The bot's latest sign-in (whoami) was followed by a sync with a since token: the backlog is behind it. */
    static boolean botSyncing(FakeMatrix matrix) {
        List<FakeMatrix.Request> all = List.copyOf(matrix.requests);
        int signIn = -1;
        for (int i = 0; i < all.size(); i++) {
            if (FakeMatrix.BOT.equals(all.get(i).user()) && all.get(i).path().endsWith("/account/whoami")) {
                signIn = i;
            }
        }
        for (int i = signIn + 1; signIn >= 0 && i < all.size(); i++) {
            FakeMatrix.Request r = all.get(i);
            if (FakeMatrix.BOT.equals(r.user()) && r.path().endsWith("/sync") && r.query() != null && r.query().contains("since=")) {
                return true;
            }
        }
        return false;
    }
}
