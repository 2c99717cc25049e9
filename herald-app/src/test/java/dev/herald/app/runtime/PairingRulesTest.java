package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingAuthorizer;
import dev.herald.core.auth.PairingStore;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/** DM pairing's rules (the reference's constants), run against every {@link PairingStore}: in memory and files. */
class PairingRulesTest {
    private static final Platform TG = Platform.of("telegram");

    @TempDir
    static Path tmp;

    static Stream<Arguments> stores() {
        return Stream.of(Arguments.of("memory", PairingStore.inMemory()),
                Arguments.of("files", new FilePairingStore(tmp.resolve("pairing-" + System.nanoTime()))));
    }

    private final MutableClock clock = MutableClock.atNoon();

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void code_isEightCharactersOfTheAlphabet_andLivesOneHour(String name, PairingStore store) {
        Pairing pairing = new Pairing(store, clock);
        String code = pairing.request(TG, "200", "alice", "200").orElseThrow();
        assertThat(code).hasSize(8).matches("[" + Pairing.ALPHABET + "]{8}").doesNotContain("0", "O", "1", "I");

        clock.advance(Duration.ofMinutes(61));
        assertThat(pairing.approve(TG, code).result()).isEqualTo(Pairing.Result.EXPIRED);

        clock.advance(Duration.ofMinutes(10));
        String fresh = pairing.request(TG, "200", "alice", "200").orElseThrow();
        clock.advance(Duration.ofMinutes(59));
        Pairing.Approval ok = pairing.approve(TG, " " + fresh.toLowerCase() + " ");
        assertThat(ok.approved()).isTrue();
        assertThat(ok.userId()).isEqualTo("200");
        assertThat(pairing.isApproved(TG, "200")).isTrue();
        assertThat(pairing.approve(TG, fresh).result()).as("a code works once").isEqualTo(Pairing.Result.UNKNOWN_CODE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void oneCodePerUserPerTenMinutes(String name, PairingStore store) {
        Pairing pairing = new Pairing(store, clock);
        String first = pairing.request(TG, "200", null, "200").orElseThrow();

        clock.advance(Duration.ofMinutes(9));
        assertThat(pairing.request(TG, "200", null, "200")).isEmpty();

        clock.advance(Duration.ofMinutes(1));
        String second = pairing.request(TG, "200", null, "200").orElseThrow();
        assertThat(pairing.approve(TG, first).approved()).as("the older code was replaced").isFalse();
        assertThat(pairing.approve(TG, second).approved()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void atMostThreeCodesWaitPerPlatform(String name, PairingStore store) {
        Pairing pairing = new Pairing(store, clock);
        for (String user : new String[] {"1", "2", "3"}) {
            assertThat(pairing.request(TG, user, null, user)).isPresent();
        }
        assertThat(pairing.request(TG, "4", null, "4")).isEmpty();
        assertThat(pairing.request(Platform.of("weixin"), "4", null, "4")).as("another platform has its own limit").isPresent();

        clock.advance(Duration.ofMinutes(61));
        assertThat(pairing.request(TG, "4", null, "4")).as("expired codes free their places").isPresent();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void fiveFailedApprovals_lockThePlatformForAnHour(String name, PairingStore store) {
        Pairing pairing = new Pairing(store, clock);
        String code = pairing.request(TG, "200", null, "200").orElseThrow();
        for (int i = 1; i <= 4; i++) {
            assertThat(pairing.approve(TG, "WRONG" + i + "AA").result()).isEqualTo(Pairing.Result.UNKNOWN_CODE);
        }
        Pairing.Approval fifth = pairing.approve(TG, "WRONGAAA");
        assertThat(fifth.lockedUntil()).isEqualTo(clock.instant().plus(Pairing.LOCKOUT));

        assertThat(pairing.approve(TG, code).result()).isEqualTo(Pairing.Result.LOCKED_OUT);
        assertThat(pairing.request(TG, "201", null, "201")).isEmpty();

        clock.advance(Duration.ofMinutes(59));
        assertThat(pairing.request(TG, "202", null, "202")).isEmpty();
        clock.advance(Duration.ofMinutes(2));
        String after = pairing.request(TG, "203", null, "203").orElseThrow();
        assertThat(pairing.approve(TG, after).approved()).as("the lockout ends after an hour").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void revoke_removesThePairedUser(String name, PairingStore store) {
        Pairing pairing = new Pairing(store, clock);
        pairing.approve(TG, pairing.request(TG, "200", null, "200").orElseThrow());

        assertThat(pairing.revoke(TG, "200")).isTrue();
        assertThat(pairing.isApproved(TG, "200")).isFalse();
        assertThat(pairing.revoke(TG, "200")).isFalse();
    }

    @Test
    void authorizer_givesCodesInDirectMessagesOnly_andAdmitsApprovedUsersAtOnce() {
        Path dir = tmp.resolve("shared-" + System.nanoTime());
        Pairing gatewaySide = new Pairing(new FilePairingStore(dir), clock);
        Pairing operatorSide = new Pairing(new FilePairingStore(dir), clock);
        PairingAuthorizer auth = new PairingAuthorizer(new Allowlists(Map.of(TG, AccessPolicy.users(Set.of("100"))), false),
                gatewaySide, Set.of(TG));
        SessionSource dm = SessionSource.dm(TG, "200", "200");
        SessionSource group = new SessionSource(TG, "-100", ChatType.GROUP, "300", null, null, null);

        assertThat(auth.isAuthorized(dm)).isFalse();
        assertThat(auth.refusalReply(group)).isEmpty();
        String reply = auth.refusalReply(dm).orElseThrow();
        String code = reply.replaceAll("(?s).*pairing code: ([A-Z0-9]{8}).*", "$1");

        assertThat(operatorSide.approve(TG, code).approved()).isTrue();
        assertThat(auth.isAuthorized(dm)).as("an approval from another process applies at the next decision").isTrue();
        assertThat(auth.isAdmin(dm)).isFalse();
    }

    @Test
    void pairingFiles_areReadableByTheirOwnerOnly() throws Exception {
        Path dir = tmp.resolve("modes-" + System.nanoTime());
        new Pairing(new FilePairingStore(dir), clock).request(TG, "200", null, "200");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("telegram.json")))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    }

    @Test
    void codes_neverAppearInLogs() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        root.setLevel(Level.ALL);
        try {
            Pairing pairing = new Pairing(new FilePairingStore(tmp.resolve("logs-" + System.nanoTime())), clock);
            PairingAuthorizer auth = new PairingAuthorizer(new Allowlists(Map.of(), false), pairing, Set.of(TG));
            String reply = auth.refusalReply(SessionSource.dm(TG, "200", "200")).orElseThrow();
            String code = reply.replaceAll("(?s).*pairing code: ([A-Z0-9]{8}).*", "$1");
            auth.refusalReply(SessionSource.dm(TG, "200", "200"));
            pairing.approve(TG, code.substring(0, 7) + "Z");
            pairing.approve(TG, code);
            pairing.approve(TG, code);

            assertThat(logs.list).isNotEmpty();
            assertThat(logs.list).allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain(code));
        } finally {
            root.detachAppender(logs);
            root.setLevel(before);
        }
    }
}
