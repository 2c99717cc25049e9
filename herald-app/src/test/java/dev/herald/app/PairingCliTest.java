package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.runtime.FilePairingStore;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingAuthorizer;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald pairing approve|list|revoke} in-process through {@code Main.run}, against the same
 * {@code $HERALD_HOME/pairing} a running gateway reads: its decisions change at once.
 */
class PairingCliTest {
    private static final Platform TG = Platform.of("telegram");

    @TempDir
    Path home;

    private Map<String, String> env;
    private PairingAuthorizer gateway;
    private final SessionSource stranger = SessionSource.dm(TG, "200", "200");

    @BeforeEach
    void runningGateway() {
        env = Map.of("HERALD_HOME", home.toString());
        Pairing pairing = new Pairing(new FilePairingStore(home.resolve("pairing")), Clock.systemUTC());
        gateway = new PairingAuthorizer(new Allowlists(Map.of(TG, AccessPolicy.users(Set.of("100"))), false), pairing, Set.of(TG));
    }

    private String codeFor(SessionSource s) {
        return gateway.refusalReply(s).orElseThrow().replaceAll("(?s).*pairing code: ([A-Z0-9]{8}).*", "$1");
    }

    private CliRun herald(String... args) {
        return CliRun.of(env, home, args);
    }

    @Test
    void approve_admitsTheUserAtTheRunningGateway() {
        String code = codeFor(stranger);
        assertThat(gateway.isAuthorized(stranger)).isFalse();

        CliRun run = herald("pairing", "approve", "telegram", code);

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("approved: telegram user 200");
        assertThat(gateway.isAuthorized(stranger)).isTrue();
    }

    @Test
    void list_showsWaitingCodesAndPairedUsers_andRevokeTakesAccessAway() {
        String waiting = codeFor(SessionSource.dm(TG, "300", "300"));
        herald("pairing", "approve", "telegram", codeFor(stranger));

        CliRun list = herald("pairing", "list");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("telegram:").contains("waiting  " + waiting + "  user 300").contains("paired   user 200");

        CliRun revoke = herald("pairing", "revoke", "telegram", "200");
        assertThat(revoke.exit()).isZero();
        assertThat(gateway.isAuthorized(stranger)).isFalse();
        assertThat(herald("pairing", "revoke", "telegram", "200").exit()).isEqualTo(ExitCodes.FAILURE);
    }

    @Test
    void unknownCode_exitsOne_andNamesTheNextStep() {
        codeFor(stranger);

        CliRun run = herald("pairing", "approve", "telegram", "AAAAAAAA");

        assertThat(run.exit()).isEqualTo(ExitCodes.FAILURE);
        assertThat(run.err()).contains("no waiting telegram pairing code matches").contains("herald pairing list");
        assertThat(gateway.isAuthorized(stranger)).isFalse();
    }

    @Test
    void invalidPlatformId_isAUsageError() {
        CliRun run = herald("pairing", "approve", "Tele Gram", "AAAAAAAA");

        assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("platform id");
    }

    @Test
    void listWithNothingStored_saysSo() {
        assertThat(herald("pairing", "list").out()).contains("no pairing requests yet");
    }
}
