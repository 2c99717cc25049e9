package dev.herald.app;

import dev.herald.app.runtime.FilePairingStore;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingState;
import dev.herald.core.platform.Platform;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code herald pairing}: admit people who asked for access in a direct message. The running gateway sees
 * approvals and revocations at its next decision; nothing needs a restart. State lives in
 * {@code $HERALD_HOME/pairing/}.
 */
@Command(name = "pairing", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Approve, list or revoke DM pairing (unknown users who wrote to the bot get a one-time code).")
final class PairingCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    PairingCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald pairing: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }

    static Pairing pairing(CliEnvironment cli, HomeOptions where) {
        return new Pairing(store(cli, where), Clock.systemUTC());
    }

    static FilePairingStore store(CliEnvironment cli, HomeOptions where) {
        Path home = where.home(cli);
        return new FilePairingStore(home.resolve("pairing"));
    }

    /** {@code herald pairing approve <platform> <code>}. */
    @Command(name = "approve", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Admit the user a pairing code was given to. Exit 1 when the code is unknown, expired or pairing is locked.")
    static final class Approve implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "PLATFORM", description = "platform id, e.g. telegram")
        Platform platform;

        @Parameters(index = "1", paramLabel = "CODE", description = "the 8-character code the user received")
        String code;

        Approve(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            Pairing.Approval a = pairing(cli, where).approve(platform, code);
            switch (a.result()) {
                case APPROVED -> {
                    cli.out().println("approved: " + platform + " user " + a.userId() + (a.userName() == null ? "" : " (" + a.userName() + ")")
                            + " may now talk to the agent");
                    return ExitCodes.OK;
                }
                case LOCKED_OUT -> cli.err().println("herald pairing approve: " + platform + " pairing is locked until " + a.lockedUntil()
                        + " after " + Pairing.MAX_FAILED_ATTEMPTS + " failed approvals; try again then");
                case EXPIRED -> cli.err().println("herald pairing approve: that code has expired (codes live "
                        + Pairing.CODE_TTL.toMinutes() + " minutes); ask the user to write to the bot again for a new one");
                default -> cli.err().println("herald pairing approve: no waiting " + platform + " pairing code matches; check the code "
                        + "(herald pairing list shows the waiting ones)"
                        + (a.lockedUntil() == null ? "" : "; pairing is now locked until " + a.lockedUntil()));
            }
            return ExitCodes.FAILURE;
        }
    }

    /** {@code herald pairing list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Show waiting pairing codes and paired users, per platform.")
    static final class ListPairing implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        ListPairing(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            FilePairingStore store = store(cli, where);
            Pairing pairing = new Pairing(store, Clock.systemUTC());
            List<Platform> platforms = store.platforms();
            if (platforms.isEmpty()) {
                cli.out().println("no pairing requests yet");
                return ExitCodes.OK;
            }
            Instant now = Instant.now();
            for (Platform p : platforms) {
                PairingState s = pairing.snapshot(p);
                cli.out().println(p + ":");
                for (PairingState.Pending w : s.pending()) {
                    long left = Duration.between(now, w.issuedAt().plus(Pairing.CODE_TTL)).toMinutes();
                    cli.out().println("  waiting  " + w.code() + "  user " + w.userId() + name(w.userName()) + "  expires in " + left + " min");
                }
                for (PairingState.Approved a : s.approved()) {
                    cli.out().println("  paired   user " + a.userId() + name(a.userName()) + "  since " + a.approvedAt());
                }
                if (s.lockedUntil() != null && now.isBefore(s.lockedUntil())) {
                    cli.out().println("  locked until " + s.lockedUntil() + " (too many failed approvals)");
                }
                if (s.pending().isEmpty() && s.approved().isEmpty()) {
                    cli.out().println("  (nothing waiting, nobody paired)");
                }
            }
            return ExitCodes.OK;
        }

        private static String name(String n) {
            return n == null ? "" : " (" + n + ")";
        }
    }

    /** {@code herald pairing revoke <platform> <user>}. */
    @Command(name = "revoke", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Remove a paired user; their next message is refused (and may ask for a new code).")
    static final class Revoke implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "PLATFORM", description = "platform id, e.g. telegram")
        Platform platform;

        @Parameters(index = "1", paramLabel = "USER", description = "the platform's user id, as herald pairing list shows it")
        String user;

        Revoke(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            if (pairing(cli, where).revoke(platform, user)) {
                cli.out().println("revoked: " + platform + " user " + user + " is no longer paired");
                return ExitCodes.OK;
            }
            cli.err().println("herald pairing revoke: " + platform + " user " + user + " is not paired (herald pairing list shows who is)");
            return ExitCodes.FAILURE;
        }
    }
}
